//! The codec commands `encode`, `decode` and `check`: their arguments, how
//! they read input, call the core and write output, and the failure they
//! report. `--lines` streams are in `lines.rs`.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use stc_core::{DecodeOptions, Document, EncodeOptions, GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};

use crate::lines::{encode_lines, stream_lines, write_failed, DEFAULT_MAX_LINE_BYTES, LINES_HELP, MAX_LINE_HELP};
use crate::{args, retrieve};

#[derive(Args)]
pub(crate) struct Input {
    /// Input file; standard input when absent or `-`.
    pub(crate) file: Option<PathBuf>,
    /// Deepest nesting of arrays and objects accepted.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    pub(crate) max_depth: usize,
    /// STC version to write (encode) or read (decode, check): 1 (the default)
    /// or 2 (column groups, absent cells `~`, keyed tables, bare (unquoted) strings; a version-2
    /// reader also reads every version-1 text).
    #[arg(long = "stc-version", default_value_t = Version::default(), value_name = "VERSION", value_parser = args::version())]
    pub(crate) stc_version: Version,
    /// How an error is written to standard error: `text` (FILE:LINE:COLUMN:
    /// message) or `json` (one line: {"origin","kind","offset","line",
    /// "column","message"}; kind and offset as the spec's section 4.3 names
    /// them, null for an I/O error; with --lines, line and offset count from
    /// the bad line counted from the input's start, the offset within that line).
    #[arg(long, value_enum, default_value_t = ErrorFormat::Text)]
    pub(crate) error_format: ErrorFormat,
}

/// `--error-format`.
#[derive(Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorFormat {
    /// FILE:LINE:COLUMN: message
    #[default]
    Text,
    /// One JSON object a line, with the error's kind and byte offset.
    Json,
}

#[derive(Args)]
pub(crate) struct EncodeArgs {
    #[command(flatten)]
    pub(crate) input: Input,
    /// Output whitespace style.
    #[arg(long, default_value_t = Profile::Compact, value_parser = args::profile())]
    pub(crate) profile: Profile,
    /// Do no harm: print minified JSON instead of STC unless STC saves at
    /// least --min-saving of the tokens.
    #[arg(long)]
    pub(crate) gate: bool,
    /// With --gate: the fraction of tokens STC must save (0 to 1).
    #[arg(long, default_value_t = MinSaving::default(), value_name = "FRACTION", value_parser = args::min_saving, requires = "gate")]
    pub(crate) min_saving: MinSaving,
    /// With --gate: how tokens are counted.
    #[arg(long, default_value_t = Tokenizer::Estimate, value_parser = args::tokenizer(), requires = "gate")]
    pub(crate) tokenizer: Tokenizer,
    #[command(flatten)]
    pub(crate) stash: retrieve::EncodeStashArgs,
    /// (See `LINES_HELP`.) Truncation (--budget, --truncate-arrays-at) is for
    /// one tool response, not for a stream, so it does not combine with this.
    #[arg(long, help = LINES_HELP, conflicts_with_all = ["budget", "truncate_arrays_at"])]
    pub(crate) lines: bool,
    /// With --lines: the longest line accepted.
    #[arg(long, help = MAX_LINE_HELP, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", requires = "lines")]
    pub(crate) max_line_bytes: usize,
}

#[derive(Args)]
pub(crate) struct DecodeArgs {
    #[command(flatten)]
    pub(crate) input: Input,
    #[command(flatten)]
    pub(crate) lines: LinesArgs,
}

/// Line-delimited (NDJSON) streaming, shared by `encode`, `decode` and `check`.
#[derive(Args)]
pub(crate) struct LinesArgs {
    /// Line-delimited input, one document a line.
    #[arg(long, help = LINES_HELP)]
    pub(crate) lines: bool,
    /// With --lines: the longest line accepted.
    #[arg(long, help = MAX_LINE_HELP, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", requires = "lines")]
    pub(crate) max_line_bytes: usize,
}

/// A failure to report: where, and what.
#[derive(Default)]
pub(crate) struct Failure {
    pub(crate) origin: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
    /// The error's kind (`ErrorKind::code`) and byte offset, when the codec
    /// reported it (not for I/O errors).
    pub(crate) kind: Option<&'static str>,
    pub(crate) offset: Option<usize>,
}

impl Input {
    pub(crate) fn name(&self) -> String {
        match &self.file {
            Some(p) if p.as_os_str() != "-" => p.display().to_string(),
            _ => "<stdin>".to_string(),
        }
    }

    pub(crate) fn read(&self) -> Result<Vec<u8>, Failure> {
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

    pub(crate) fn limits(&self) -> Limits {
        Limits::default().max_depth(self.max_depth)
    }

    /// The decoder's options: `--max-depth` and `--stc-version`.
    pub(crate) fn decode_options(&self) -> DecodeOptions {
        DecodeOptions::default().limits(self.limits()).version(self.stc_version)
    }

    /// The encoder's options: `--profile`, `--max-depth` and `--stc-version`.
    pub(crate) fn encode_options(&self, profile: Profile) -> EncodeOptions {
        EncodeOptions::default().profile(profile).limits(self.limits()).version(self.stc_version)
    }

    pub(crate) fn fail(&self, e: stc_core::Error) -> Failure {
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

/// `stc encode`.
pub(crate) fn encode(args: &EncodeArgs) -> Result<String, Failure> {
    if args.lines {
        return encode_lines(args);
    }
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
        let gate = GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer);
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

/// `stc decode`.
pub(crate) fn decode(args: &DecodeArgs) -> Result<String, Failure> {
    if args.lines.lines {
        let options = args.input.decode_options();
        return stream_lines(&args.input, args.lines.max_line_bytes, |line| {
            stc_core::decode_bytes_with(line, &options).map(Some)
        })
        .map(|_| String::new());
    }
    let input = &args.input;
    let bytes = input.read()?;
    decode_streaming(input, &bytes)?;
    Ok(String::new())
}

/// `stc check`.
pub(crate) fn check(args: &DecodeArgs) -> Result<String, Failure> {
    let input = &args.input;
    if args.lines.lines {
        let options = input.decode_options();
        let n = stream_lines(input, args.lines.max_line_bytes, |line| {
            stc_core::validate_bytes_with(line, &options).map(|_| None)
        })?;
        return Ok(format!("{}: ok ({n} lines)\n", input.name()));
    }
    let bytes = input.read()?;
    stc_core::validate_bytes_with(&bytes, &input.decode_options()).map_err(|e| input.fail(e))?;
    Ok(format!("{}: ok\n", input.name()))
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
/// standard output in the pieces `stc_core::decode_to` hands over: memory
/// stays the input plus a piece, instead of the input plus the whole JSON text.
fn decode_streaming(input: &Input, bytes: &[u8]) -> Result<(), Failure> {
    let options = input.decode_options();
    let text = stc_core::from_utf8(bytes).map_err(|e| input.fail(e))?;
    stc_core::validate_with(text, &options).map_err(|e| input.fail(e))?;
    // The core hands the JSON over in pieces of about 64 KiB, each written whole.
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = match stc_core::decode_to(text, &options, |piece| out.write_all(piece.as_bytes())) {
        Ok(()) => out.write_all(b"\n").and_then(|()| out.flush()),
        Err(stc_core::Failure::Input(e)) => return Err(input.fail(e)),
        Err(stc_core::Failure::Sink(e)) => Err(e),
    };
    written.or_else(|e| write_failed(input, e, 0).map(|_| ()))
}
