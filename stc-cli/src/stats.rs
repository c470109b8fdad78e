//! `stc stats`: bytes and tokens of JSON documents as pretty JSON, minified
//! JSON and STC.

use std::path::PathBuf;

use clap::Args;
use stc_core::{Document, EncodeOptions, GateOptions, Limits, Profile, Tokenizer, Version};

use crate::args;
use crate::codec::{ErrorFormat, Failure, Input};

#[derive(Args)]
pub(crate) struct StatsArgs {
    /// JSON files; standard input when none is given.
    files: Vec<PathBuf>,
    /// Deepest nesting of arrays and objects accepted.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// Tokenizer for the token counts.
    #[arg(long, default_value_t = Tokenizer::O200kBase, value_parser = args::tokenizer())]
    tokenizer: Tokenizer,
    /// STC version of the readable, compact and gated columns: 1 (the
    /// default) or 2.
    #[arg(long = "stc-version", default_value_t = Version::default(), value_name = "VERSION", value_parser = args::version())]
    stc_version: Version,
    /// How an error is written to standard error (see `stc decode --help`).
    #[arg(long, value_enum, default_value_t = ErrorFormat::Text)]
    pub(crate) error_format: ErrorFormat,
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

pub(crate) fn stats(args: &StatsArgs) -> Result<String, Failure> {
    let tokenizer = args.tokenizer;
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
