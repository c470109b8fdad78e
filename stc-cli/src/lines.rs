//! `--lines`: NDJSON streams, one document a line, for `encode`, `decode`
//! and `check`.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use stc_core::GateOptions;

use crate::codec::{EncodeArgs, Failure, Input};

/// Help of `--lines` (encode, decode, check).
pub(crate) const LINES_HELP: &str = "Line-delimited input (NDJSON / JSON Lines, or STC one document a line): \
    each line is read, converted and written on its own, in constant memory; output line N belongs to \
    input line N. A CRLF line ending is read as LF; output lines end in LF. A blank line (empty or only \
    spaces and tabs) is written as an empty line. The first bad line stops the run with \
    FILE:LINE:COLUMN: message and exit status 1; the output of the lines before it has already been \
    written (nothing is skipped). --gate, --profile and --max-depth apply to each line (encode --lines \
    does not combine with --budget or --truncate-arrays-at).";

/// Help of `--max-line-bytes`.
pub(crate) const MAX_LINE_HELP: &str =
    "With --lines: the longest line accepted, in bytes without its line ending; a longer line is an error";

/// Default of `--max-line-bytes`: 64 MiB.
pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// `stc encode --lines`: each line encoded (or gated) on its own; with
/// --gate one summary of the choices on stderr at the end.
pub(crate) fn encode_lines(args: &EncodeArgs) -> Result<String, Failure> {
    let options = args.input.encode_options(args.profile);
    let gate = GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer);
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
pub(crate) fn stream_lines(
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
pub(crate) fn write_failed(input: &Input, e: std::io::Error, lines: usize) -> Result<usize, Failure> {
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
