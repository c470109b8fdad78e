//! `stc`: encode JSON as STC, decode STC to JSON, check STC, and measure what
//! STC saves. All format work is done by `stc-core`; this file only reads
//! input, writes output and reports errors. The services (`proxy`, `mcp`,
//! `mcp-proxy`, `serve`, `native-host`, `retrieve`) each live in a module of
//! their own over a library crate of their own.
//!
//! On invalid input every command exits with status 1, prints
//! `FILE:LINE:COLUMN: message` on stderr and nothing on stdout. With
//! `--lines` (NDJSON streams) the output of the lines before a bad one has
//! already been written when the error is reported.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod config;
mod mcp;
mod mcp_http;
mod proxy;
mod retrieve;
#[allow(dead_code)] // used by the services as they move their process concerns here
mod runtime;
mod serve;

use clap::{Args, Parser, Subcommand, ValueEnum};
use stc_core::{DecodeOptions, Document, EncodeOptions, GateOptions, Limits, Profile, Sink, Tokenizer, Version};

#[derive(Parser)]
#[command(
    name = "stc",
    version,
    about = "STC: a token-efficient, lossless text encoding of JSON",
    long_about = "STC: a token-efficient, lossless text encoding of JSON.\n\n\
        Every JSON text is valid STC. `stc encode` turns JSON into STC, `stc decode` \
        turns STC (or JSON) back into minified JSON with exact number lexemes, key \
        order and duplicate keys."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Read the services' options from this TOML file (a table per
    /// subcommand, keyed by long flag names; see stc-cli/README.md). The
    /// command line and the environment take precedence over it.
    #[arg(long, global = true, value_name = "FILE", env = config::CONFIG_ENV)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Codec(CodecCommand),
    /// Reverse proxy: serve an upstream JSON API as STC to clients that ask for it.
    Proxy(proxy::ProxyArgs),
    /// MCP server over stdio with the stc_encode, stc_decode and stc_estimate tools.
    Mcp(mcp::McpArgs),
    /// Wrap a stdio MCP server and re-encode its JSON tool results as STC.
    McpProxy(mcp::McpProxyArgs),
    /// The local NDJSON TCP service (prompt, response, context, encode, decode).
    Serve(serve::ServeArgs),
    /// Browser native-messaging host that bridges to `stc serve`.
    NativeHost(serve::NativeHostArgs),
    /// Print what the stash holds under a key.
    Retrieve(retrieve::RetrieveArgs),
}

/// The codec commands: read input, write one output, report the first error.
#[derive(Subcommand)]
enum CodecCommand {
    /// Encode JSON as STC.
    Encode(EncodeArgs),
    /// Decode STC (or JSON) to minified JSON.
    Decode(DecodeArgs),
    /// Check that the input is valid STC; report the first error.
    Check(DecodeArgs),
    /// Bytes and tokens of a JSON document as pretty JSON, minified JSON and STC.
    Stats(StatsArgs),
}

#[derive(Args)]
struct Input {
    /// Input file; standard input when absent or `-`.
    file: Option<PathBuf>,
    /// Deepest nesting of arrays and objects accepted.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// STC version to write (encode) or read (decode, check): 1 (the default)
    /// or 2 (column groups, absent cells `~`, keyed tables, bare (unquoted) strings; a version-2
    /// reader also reads every version-1 text).
    #[arg(long = "stc-version", default_value_t = Version::default(), value_name = "VERSION", value_parser = parse_version)]
    stc_version: Version,
    /// How an error is written to standard error: `text` (FILE:LINE:COLUMN:
    /// message) or `json` (one line: {"origin","kind","offset","line",
    /// "column","message"}; kind and offset as the spec's section 4.3 names
    /// them, null for an I/O error; with --lines, line and offset count from
    /// the bad line counted from the input's start, the offset within that line).
    #[arg(long, value_enum, default_value_t = ErrorFormat::Text)]
    error_format: ErrorFormat,
}

/// `--error-format`.
#[derive(Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
enum ErrorFormat {
    /// FILE:LINE:COLUMN: message
    #[default]
    Text,
    /// One JSON object a line, with the error's kind and byte offset.
    Json,
}

/// `--stc-version`: the core's own names and message.
fn parse_version(name: &str) -> Result<Version, String> {
    name.parse::<Version>().map_err(|e| e.to_string())
}

#[derive(Args)]
struct EncodeArgs {
    #[command(flatten)]
    input: Input,
    /// Output whitespace style.
    #[arg(long, value_enum, default_value_t = ProfileArg::Compact)]
    profile: ProfileArg,
    /// Do no harm: print minified JSON instead of STC unless STC saves at
    /// least --min-saving of the tokens.
    #[arg(long)]
    gate: bool,
    /// With --gate: the fraction of tokens STC must save (0 to 1).
    #[arg(long, default_value_t = GateOptions::default().min_saving, value_name = "FRACTION", requires = "gate")]
    min_saving: f64,
    /// With --gate: how tokens are counted.
    #[arg(long, value_enum, default_value_t = TokenizerArg::Estimate, requires = "gate")]
    tokenizer: TokenizerArg,
    #[command(flatten)]
    stash: retrieve::EncodeStashArgs,
    /// (See `LINES_HELP`.) Truncation (--budget, --truncate-arrays-at) is for
    /// one tool response, not for a stream, so it does not combine with this.
    #[arg(long, help = LINES_HELP, conflicts_with_all = ["budget", "truncate_arrays_at"])]
    lines: bool,
    /// With --lines: the longest line accepted.
    #[arg(long, help = MAX_LINE_HELP, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", requires = "lines")]
    max_line_bytes: usize,
}

#[derive(Args)]
struct DecodeArgs {
    #[command(flatten)]
    input: Input,
    #[command(flatten)]
    lines: LinesArgs,
}

/// Line-delimited (NDJSON) streaming, shared by `encode`, `decode` and `check`.
#[derive(Args)]
struct LinesArgs {
    /// Line-delimited input, one document a line.
    #[arg(long, help = LINES_HELP)]
    lines: bool,
    /// With --lines: the longest line accepted.
    #[arg(long, help = MAX_LINE_HELP, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", requires = "lines")]
    max_line_bytes: usize,
}

/// Help of `--lines` (encode, decode, check).
const LINES_HELP: &str = "Line-delimited input (NDJSON / JSON Lines, or STC one document a line): \
    each line is read, converted and written on its own, in constant memory; output line N belongs to \
    input line N. A CRLF line ending is read as LF; output lines end in LF. A blank line (empty or only \
    spaces and tabs) is written as an empty line. The first bad line stops the run with \
    FILE:LINE:COLUMN: message and exit status 1; the output of the lines before it has already been \
    written (nothing is skipped). --gate, --profile and --max-depth apply to each line (encode --lines \
    does not combine with --budget or --truncate-arrays-at).";

/// Help of `--max-line-bytes`.
const MAX_LINE_HELP: &str =
    "With --lines: the longest line accepted, in bytes without its line ending; a longer line is an error";

/// Default of `--max-line-bytes`: 64 MiB.
const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

#[derive(Args)]
struct StatsArgs {
    /// JSON files; standard input when none is given.
    files: Vec<PathBuf>,
    /// Deepest nesting of arrays and objects accepted.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// Tokenizer for the token counts.
    #[arg(long, value_enum, default_value_t = TokenizerArg::O200kBase)]
    tokenizer: TokenizerArg,
    /// STC version of the readable, compact and gated columns: 1 (the
    /// default) or 2.
    #[arg(long = "stc-version", default_value_t = Version::default(), value_name = "VERSION", value_parser = parse_version)]
    stc_version: Version,
    /// How an error is written to standard error (see `stc decode --help`).
    #[arg(long, value_enum, default_value_t = ErrorFormat::Text)]
    error_format: ErrorFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    /// No optional whitespace (fewest tokens).
    Compact,
    /// The spacing of ADR-066's examples.
    Readable,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Profile {
        match p {
            ProfileArg::Compact => Profile::Compact,
            ProfileArg::Readable => Profile::Readable,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum TokenizerArg {
    /// Fast table-free estimate of o200k_base.
    Estimate,
    /// OpenAI o200k_base (GPT-4o and later).
    #[value(name = "o200k_base")]
    O200kBase,
    /// OpenAI cl100k_base (GPT-4, GPT-3.5).
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

impl From<TokenizerArg> for Tokenizer {
    fn from(t: TokenizerArg) -> Tokenizer {
        match t {
            TokenizerArg::Estimate => Tokenizer::Estimate,
            TokenizerArg::O200kBase => Tokenizer::O200kBase,
            TokenizerArg::Cl100kBase => Tokenizer::Cl100kBase,
        }
    }
}

/// A failure to report: where, and what.
#[derive(Default)]
struct Failure {
    origin: String,
    line: usize,
    column: usize,
    message: String,
    /// The error's kind (`ErrorKind::code`) and byte offset, when the codec
    /// reported it (not for I/O errors).
    kind: Option<&'static str>,
    offset: Option<usize>,
}

impl Input {
    fn name(&self) -> String {
        match &self.file {
            Some(p) if p.as_os_str() != "-" => p.display().to_string(),
            _ => "<stdin>".to_string(),
        }
    }

    fn read(&self) -> Result<Vec<u8>, Failure> {
        let mut bytes = Vec::new();
        let result = match &self.file {
            Some(p) if p.as_os_str() != "-" => std::fs::File::open(p).and_then(|mut f| f.read_to_end(&mut bytes)),
            _ => std::io::stdin().read_to_end(&mut bytes),
        };
        result.map_err(|e| Failure {
            origin: self.name(),
            line: 0,
            column: 0,
            message: e.to_string(),
            ..Default::default()
        })?;
        Ok(bytes)
    }

    fn limits(&self) -> Limits {
        Limits::default().max_depth(self.max_depth)
    }

    /// The decoder's options: `--max-depth` and `--stc-version`.
    fn decode_options(&self) -> DecodeOptions {
        DecodeOptions::default().limits(self.limits()).version(self.stc_version)
    }

    /// The encoder's options: `--profile`, `--max-depth` and `--stc-version`.
    fn encode_options(&self, profile: ProfileArg) -> EncodeOptions {
        EncodeOptions::default().profile(profile.into()).limits(self.limits()).version(self.stc_version)
    }

    fn fail(&self, e: stc_core::Error) -> Failure {
        Failure {
            origin: self.name(),
            line: e.line().unwrap_or(0),
            column: e.column().unwrap_or(0),
            message: e.message().to_string(),
            kind: Some(e.kind().code()),
            offset: e.offset(),
        }
    }
}

impl CodecCommand {
    /// The command's `--error-format`.
    fn error_format(&self) -> ErrorFormat {
        match self {
            CodecCommand::Encode(a) => a.input.error_format,
            CodecCommand::Decode(a) | CodecCommand::Check(a) => a.input.error_format,
            CodecCommand::Stats(a) => a.error_format,
        }
    }
}

fn run(command: CodecCommand) -> Result<String, Failure> {
    match command {
        CodecCommand::Encode(args) if args.lines => encode_lines(&args),
        CodecCommand::Decode(args) if args.lines.lines => {
            let options = args.input.decode_options();
            stream_lines(&args.input, args.lines.max_line_bytes, |line| {
                stc_core::decode_bytes_with(line, &options).map(Some)
            })
            .map(|_| String::new())
        }
        CodecCommand::Check(args) if args.lines.lines => {
            let options = args.input.decode_options();
            let n = stream_lines(&args.input, args.lines.max_line_bytes, |line| {
                stc_core::validate_bytes_with(line, &options).map(|_| None)
            })?;
            Ok(format!("{}: ok ({n} lines)\n", args.input.name()))
        }
        CodecCommand::Encode(args) => {
            let input = &args.input;
            let bytes = input.read()?;
            let json = stc_core::from_utf8(&bytes).map_err(|e| input.fail(e))?;
            let options = input.encode_options(args.profile);
            // The budget is counted in the version the text is written in.
            let truncated = retrieve::truncate(json, &args.stash, &options).map_err(|e| match e {
                stc_stash::TruncateError::Input(e) => input.fail(e),
                e => Failure { origin: input.name(), line: 0, column: 0, message: e.to_string(), ..Default::default() },
            })?;
            let json = truncated.as_deref().unwrap_or(json);
            if args.gate {
                let gate = GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer.into());
                let gated = stc_core::encode_gated(json, &options, &gate).map_err(|e| input.fail(e))?;
                eprintln!(
                    "stc: gate chose {} ({} tokens as STC, {} as minified JSON, by {})",
                    gated.chosen.name(),
                    gated.stc_tokens,
                    gated.json_tokens,
                    gate.tokenizer.name()
                );
                retrieve::check_budget(&args.stash, &gated.text);
                write_output(input, &gated.text)
            } else if truncated.is_some() || args.stash.has_budget() {
                let text = stc_core::encode_with(json, &options).map_err(|e| input.fail(e))?;
                retrieve::check_budget(&args.stash, &text);
                write_output(input, &text)
            } else {
                let doc = Document::parse_json(json, &options.limits).map_err(|e| input.fail(e))?;
                write_encoded(input, &doc, &options)
            }
        }
        CodecCommand::Decode(args) => {
            let input = &args.input;
            let bytes = input.read()?;
            decode_streaming(input, &bytes)?;
            Ok(String::new())
        }
        CodecCommand::Check(args) => {
            let input = &args.input;
            let bytes = input.read()?;
            stc_core::validate_bytes_with(&bytes, &input.decode_options()).map_err(|e| input.fail(e))?;
            Ok(format!("{}: ok\n", input.name()))
        }
        CodecCommand::Stats(args) => stats(&args),
    }
}

/// Writes one command's whole output and its final newline straight to
/// standard output (no copy with the newline appended). Returns the empty
/// string for `main` to print.
fn write_output(input: &Input, text: &str) -> Result<String, Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|_| stdout.write_all(b"\n")).and_then(|_| stdout.flush()) {
        Ok(()) => Ok(String::new()),
        Err(e) => write_failed(input, e, 0).map(|_| String::new()),
    }
}

/// `stc encode FILE` (no gate, budget or lines): the STC text goes to
/// standard output in pieces of [`Document::ENCODE_CHUNK`] (64 KiB) as the
/// encoder writes it, so memory holds the input, its tape and the
/// encoder's decisions, never the whole output. The input was parsed before
/// (invalid input still prints nothing on stdout).
fn write_encoded(input: &Input, doc: &Document, options: &EncodeOptions) -> Result<String, Failure> {
    let mut stdout = std::io::stdout().lock();
    let written = doc
        .encode_to(options, |piece| stdout.write_all(piece.as_bytes()))
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    match written {
        Ok(()) => Ok(String::new()),
        Err(e) => write_failed(input, e, 0).map(|_| String::new()),
    }
}

/// `stc decode FILE`: checks the whole input first (so that invalid input
/// still prints nothing on stdout), then decodes it again straight to
/// standard output in chunks through [`StreamJson`]: memory stays the input
/// plus a few [`CHUNK`]s, instead of the input plus the whole JSON text.
fn decode_streaming(input: &Input, bytes: &[u8]) -> Result<(), Failure> {
    let options = input.decode_options();
    let text = stc_core::from_utf8(bytes).map_err(|e| input.fail(e))?;
    stc_core::validate_with(text, &options).map_err(|e| input.fail(e))?;
    // The chunks go out whole; the buffer only gathers the commas owed across hand-overs and the last newline.
    let mut sink = StreamJson::new(BufWriter::new(std::io::stdout().lock()), CHUNK);
    let parsed = stc_core::parse_stc(text, &options, &mut sink);
    let written = match (parsed, sink.error.take()) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => return Err(input.fail(e)),
        (Ok(()), None) => sink.finish(),
    };
    written.or_else(|e| write_failed(input, e, 0).map(|_| ()))
}

/// How much decoded JSON [`StreamJson`] collects before handing it on: big
/// enough that each hand-over is one large write, small enough to stay in
/// the allocator's heap (below glibc's 128 KiB mmap threshold).
const CHUNK: usize = 64 << 10;

/// A [`Sink`](stc_core::Sink) that forwards every event to the core's
/// [`JsonWriter`](stc_core::JsonWriter) and hands the text written so far to
/// `out` whenever about [`CHUNK`] bytes have collected, so decoded JSON goes
/// out as it is made. All JSON is written by the core's writer; the one
/// thing this adapter must know is the separator rule across a hand-over:
/// a fresh writer does not know that the last thing written was a complete
/// value, so when the next event is a value or key (not a closing bracket)
/// the adapter writes that `,` itself. (With a core hook that empties the
/// writer's buffer in place, keeping its state, this would go away.)
struct StreamJson<W: Write> {
    writer: stc_core::JsonWriter,
    out: W,
    /// Hand the text on at about this many bytes ([`CHUNK`]; smaller in tests).
    chunk: usize,
    /// About how many bytes `writer` holds.
    pending: usize,
    /// The last event before the hand-over completed a value.
    complete: bool,
    /// A `,` is due before the next value or key (a hand-over after a complete value).
    comma_due: bool,
    /// The first write error; the parse is aborted when it happens.
    error: Option<std::io::Error>,
}

impl<W: Write> StreamJson<W> {
    fn new(out: W, chunk: usize) -> Self {
        StreamJson {
            writer: stc_core::JsonWriter::with_capacity(chunk + chunk / 4),
            out,
            chunk,
            pending: 0,
            complete: false,
            comma_due: false,
            error: None,
        }
    }

    /// Before an event: the comma owed from a hand-over, unless a bracket closes.
    fn before(&mut self, closing: bool) -> Result<(), stc_core::Abort> {
        if std::mem::take(&mut self.comma_due) && !closing {
            self.io(|out| out.write_all(b","))?;
        }
        Ok(())
    }

    /// After an event of about `bytes` bytes: hand the text on when a chunk is full.
    fn after(&mut self, bytes: usize, complete: bool) -> Result<(), stc_core::Abort> {
        self.complete = complete;
        self.pending += bytes;
        if self.pending >= self.chunk {
            let fresh = stc_core::JsonWriter::with_capacity(self.chunk + self.chunk / 4);
            let text = std::mem::replace(&mut self.writer, fresh).into_string();
            self.pending = 0;
            self.comma_due = self.complete;
            self.io(|out| out.write_all(text.as_bytes()))?;
        }
        Ok(())
    }

    fn io(&mut self, f: impl FnOnce(&mut W) -> std::io::Result<()>) -> Result<(), stc_core::Abort> {
        f(&mut self.out).map_err(|e| {
            self.error = Some(e);
            stc_core::Abort
        })
    }

    /// The rest of the text, the final newline, and a flush.
    fn finish(mut self) -> std::io::Result<()> {
        let text = std::mem::take(&mut self.writer).into_string();
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

impl<'a, W: Write> Sink<'a> for StreamJson<W> {
    fn null(&mut self) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.null()?;
        self.after(5, true)
    }
    fn boolean(&mut self, value: bool) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.boolean(value)?;
        self.after(6, true)
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.number(lexeme)?;
        self.after(lexeme.len() + 1, true)
    }
    fn string(&mut self, value: stc_core::JsonStr<'a>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        let bytes = value.raw().len() + 3;
        self.writer.string(value)?;
        self.after(bytes, true)
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.begin_array(len)?;
        self.after(2, false)
    }
    fn end_array(&mut self) -> Result<(), stc_core::Abort> {
        self.before(true)?;
        self.writer.end_array()?;
        self.after(1, true)
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.begin_object(len)?;
        self.after(2, false)
    }
    fn key(&mut self, key: stc_core::JsonStr<'a>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        let bytes = key.raw().len() + 4;
        self.writer.key(key)?;
        self.after(bytes, false)
    }
    fn end_object(&mut self) -> Result<(), stc_core::Abort> {
        self.before(true)?;
        self.writer.end_object()?;
        self.after(1, true)
    }
}

/// `stc encode --lines`: each line encoded (or gated) on its own; with
/// --gate one summary of the choices on stderr at the end.
fn encode_lines(args: &EncodeArgs) -> Result<String, Failure> {
    let options = args.input.encode_options(args.profile);
    let gate = GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer.into());
    let (mut as_stc, mut as_json) = (0usize, 0usize);
    let result = stream_lines(&args.input, args.max_line_bytes, |line| {
        let json = stc_core::from_utf8(line)?;
        if args.gate {
            let gated = stc_core::encode_gated(json, &options, &gate)?;
            match gated.chosen {
                stc_core::Chosen::Stc => as_stc += 1,
                stc_core::Chosen::Json => as_json += 1,
            }
            Ok(Some(gated.text))
        } else {
            stc_core::encode_with(json, &options).map(Some)
        }
    });
    if args.gate {
        eprintln!("stc: gate chose stc for {as_stc} lines and json for {as_json} (by {})", gate.tokenizer.name());
    }
    result.map(|_| String::new())
}

/// The line-by-line loop of `--lines`: reads one line at a time (at most
/// `--max-line-bytes` of it in memory), hands its bytes (without `\n` or
/// `\r\n`) to `convert`, writes `Some` output as one line, and flushes the
/// output whenever the next read would wait for input. Blank lines are
/// written as empty lines without calling `convert`. Returns the number of
/// lines read, or the first failure with its line and column.
fn stream_lines(
    input: &Input,
    max: usize,
    mut convert: impl FnMut(&[u8]) -> Result<Option<String>, stc_core::Error>,
) -> Result<usize, Failure> {
    let fail = |line: usize, column: usize, message: String| Failure {
        origin: input.name(),
        line,
        column,
        message,
        ..Default::default()
    };
    let source: Box<dyn Read> = match &input.file {
        Some(p) if p.as_os_str() != "-" => Box::new(std::fs::File::open(p).map_err(|e| fail(0, 0, e.to_string()))?),
        _ => Box::new(std::io::stdin()),
    };
    let mut reader = BufReader::with_capacity(64 << 10, source);
    let mut out = BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        if reader.buffer().is_empty() {
            // About to wait for input: let the reader downstream see what is done.
            if let Err(e) = out.flush() {
                return write_failed(input, e, number);
            }
        }
        buf.clear();
        // Room for the longest line plus its CR LF; anything longer is cut here.
        let limit = max.saturating_add(2) as u64;
        let read = (&mut reader).take(limit).read_until(b'\n', &mut buf);
        let n = read.map_err(|e| fail(0, 0, format!("reading line {}: {e}", number + 1)))?;
        if n == 0 {
            break;
        }
        number += 1;
        let ended = buf.last() == Some(&b'\n');
        if ended {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        if buf.len() > max || (!ended && n as u64 == limit) {
            let _ = out.flush();
            return Err(fail(number, max + 1, format!("line is longer than --max-line-bytes ({max} bytes)")));
        }
        let written = if buf.iter().all(|&b| b == b' ' || b == b'\t') {
            out.write_all(b"\n")
        } else {
            match convert(&buf) {
                Ok(Some(text)) => out.write_all(text.as_bytes()).and_then(|_| out.write_all(b"\n")),
                Ok(None) => Ok(()),
                Err(e) => {
                    let _ = out.flush();
                    let (line, column) = match (e.line(), e.column()) {
                        (Some(l), Some(c)) => (number + l - 1, c),
                        _ => (number, 1),
                    };
                    let failure = fail(line, column, e.message().to_string());
                    return Err(Failure { kind: Some(e.kind().code()), offset: e.offset(), ..failure });
                }
            }
        };
        if let Err(e) = written {
            return write_failed(input, e, number);
        }
    }
    match out.flush() {
        Ok(()) => Ok(number),
        Err(e) => write_failed(input, e, number),
    }
}

/// A closed pipe (`stc decode --lines log | head`) ends the run quietly;
/// any other write error is reported.
fn write_failed(input: &Input, e: std::io::Error, lines: usize) -> Result<usize, Failure> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(lines)
    } else {
        Err(Failure {
            origin: input.name(),
            line: 0,
            column: 0,
            message: format!("writing output: {e}"),
            ..Default::default()
        })
    }
}

const STATS_COLUMNS: [&str; 5] = ["pretty", "minified", "readable", "compact", "gated"];

/// Bytes and tokens of one document in each of the [`STATS_COLUMNS`] forms.
fn measure(input: &Input, tokenizer: Tokenizer) -> Result<[(usize, usize); 5], Failure> {
    let bytes = input.read()?;
    let text = stc_core::from_utf8(&bytes).map_err(|e| input.fail(e))?;
    let doc = Document::parse_json(text, &input.limits()).map_err(|e| input.fail(e))?;
    let gate = GateOptions::default().tokenizer(tokenizer);
    let options = |p: Profile| EncodeOptions::default().profile(p).version(input.stc_version);
    let gated = doc.encode_gated_with(&options(Profile::Compact), &gate);
    let forms = [
        doc.to_json_pretty(),
        doc.to_json(),
        doc.encode_with(&options(Profile::Readable)),
        doc.encode_with(&options(Profile::Compact)),
        gated.text,
    ];
    Ok(forms.map(|t| (t.len(), tokenizer.count(&t))))
}

fn stats(args: &StatsArgs) -> Result<String, Failure> {
    let tokenizer: Tokenizer = args.tokenizer.into();
    let inputs: Vec<Input> = if args.files.is_empty() {
        vec![Input {
            file: None,
            max_depth: args.max_depth,
            stc_version: args.stc_version,
            error_format: args.error_format,
        }]
    } else {
        args.files
            .iter()
            .map(|f| Input {
                file: Some(f.clone()),
                max_depth: args.max_depth,
                stc_version: args.stc_version,
                error_format: args.error_format,
            })
            .collect()
    };
    let mut rows = Vec::new();
    for input in &inputs {
        rows.push((input.name(), measure(input, tokenizer)?));
    }
    let mut total = [(0usize, 0usize); 5];
    for (_, m) in &rows {
        for (t, v) in total.iter_mut().zip(m) {
            t.0 += v.0;
            t.1 += v.1;
        }
    }
    let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0).max(5);
    let mut out = String::new();
    for (title, pick) in [("bytes", 0usize), (tokenizer.name(), 1)] {
        let get = |m: &[(usize, usize); 5], i: usize| if pick == 0 { m[i].0 } else { m[i].1 };
        out.push_str(&format!("{:<width$}", title));
        for c in STATS_COLUMNS {
            out.push_str(&format!("{c:>11}"));
        }
        out.push('\n');
        for (name, m) in rows.iter().chain(std::iter::once(&("total".to_string(), total))) {
            if rows.len() == 1 && name == "total" {
                continue;
            }
            out.push_str(&format!("{name:<width$}"));
            for i in 0..5 {
                out.push_str(&format!("{:>11}", get(m, i)));
            }
            out.push('\n');
        }
        out.push_str(&format!("{:<width$}", "vs minified"));
        for i in 0..5 {
            out.push_str(&format!("{:>11.3}", ratio(get(&total, i), get(&total, 1))));
        }
        out.push_str("\n\n");
    }
    out.push_str("pretty = 2-space indented JSON; readable/compact = STC profiles; gated = STC if it saves >= 5% of tokens, else minified JSON\n");
    Ok(out)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

fn main() -> ExitCode {
    // Services own their output and exit status; the codec commands share `run`.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Err(message) = config::apply(&argv, &<Cli as clap::CommandFactory>::command()) {
        eprintln!("stc: {message}");
        return ExitCode::from(2);
    }
    let command = match Cli::parse_from(argv).command {
        Command::Codec(command) => command,
        Command::Proxy(args) => return proxy::run(args),
        Command::Mcp(args) => return mcp::run_server(args),
        Command::McpProxy(args) => return mcp::run_proxy(args),
        Command::Serve(args) => return serve::run_serve(args),
        Command::NativeHost(args) => return serve::run_native_host(args),
        Command::Retrieve(args) => return retrieve::run(args),
    };
    let error_format = command.error_format();
    match run(command) {
        Ok(output) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`stc decode big | head`) is not an error worth a message.
            let _ = stdout.write_all(output.as_bytes()).and_then(|_| stdout.flush());
            if retrieve::over_budget() {
                // `stc encode --budget`: the output is written, but it is over the budget.
                return ExitCode::from(retrieve::OVER_BUDGET_EXIT);
            }
            ExitCode::SUCCESS
        }
        Err(f) if error_format == ErrorFormat::Json => {
            let text = |t: &str| format!("\"{}\"", stc_core::JsonStr::escape(t));
            let number = |n: Option<usize>| n.map_or_else(|| "null".to_string(), |n| n.to_string());
            eprintln!(
                "{{\"origin\":{},\"kind\":{},\"offset\":{},\"line\":{},\"column\":{},\"message\":{}}}",
                text(&f.origin),
                f.kind.map_or_else(|| "null".to_string(), text),
                number(f.offset),
                number((f.line > 0).then_some(f.line)),
                number((f.column > 0).then_some(f.column)),
                text(&f.message)
            );
            ExitCode::FAILURE
        }
        Err(f) => {
            if f.line == 0 {
                eprintln!("{}: {}", f.origin, f.message);
            } else {
                eprintln!("{}:{}:{}: {}", f.origin, f.line, f.column, f.message);
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk size from 1 byte up puts a hand-over after every kind of
    /// event (a value, a key, an opening or closing bracket): the streamed
    /// text must equal the core's one-piece decode each time.
    #[test]
    fn stream_json_equals_the_cores_decode_at_every_chunk_size() {
        let texts = [
            r#"{a:1,"b c":[2]:true,null,e:{},f:[],g:[[],[{}]],h:"x\u00e9\n",i:-0.5e3}"#,
            r#"([3]{id,name,tags}: 1,"a",[2]:"x","y" / 2,"b",[0]: / 3,"c",[1]:[])"#,
            r#"[[1,2],[3,[4,[5]]],{"k":[{"l":null}]},"s",false]"#,
            "7",
            r#""only a string""#,
        ];
        for text in texts {
            let expected = stc_core::decode(text).unwrap();
            for chunk in 1..expected.len() + 2 {
                let mut sink = StreamJson::new(Vec::new(), chunk);
                stc_core::parse_stc(text, &Limits::default(), &mut sink).unwrap();
                assert!(sink.error.is_none());
                let mut out = Vec::new();
                let rest = std::mem::take(&mut sink.writer).into_string();
                out.extend_from_slice(&sink.out);
                out.extend_from_slice(rest.as_bytes());
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{text} at chunk {chunk}");
            }
        }
    }
}
