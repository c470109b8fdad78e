//! Re-blesses the corpus from the Rust reference after a deliberate spec change:
//! rewrites `expected` (encode, decode, roundtrip) and `error` (invalid,
//! json-invalid) of every case, and writes every file in the canonical layout.
//!
//! ```text
//! cargo run -p stc-conformance --bin bless             # rewrite the files
//! cargo run -p stc-conformance --bin bless -- --check  # only report; exit 1 if anything would change
//! cargo run -p stc-conformance --bin bless -- cases/encode/keys.json   # some files only
//! cargo run -p stc-conformance --bin bless -- --prefixes   # also rewrite seeds' `except` ranges
//! ```
//!
//! Seed files (`seeds/<category>/<topic>.json`) are blessed like case files,
//! and each writes the case file it generates (`cases/<category>/<topic>.json`,
//! its seeds expanded): the one place seeds are expanded; runners read cases only.
//!
//! Every change is printed (case, old, new). Review them with `git diff`:
//! the tool must never paper over a bug in the reference.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stc_conformance::{
    blessed, case_paths, cases_dir, display_path, format_file, generated_file, generated_path, quote, read_file,
    seed_of, seeds_dir, Case, ExpectedError, PrefixException,
};

/// Whether `path` is a seed file (under `seeds/`).
fn is_seed_file(path: &Path) -> bool {
    match (path.canonicalize(), seeds_dir().canonicalize()) {
        (Ok(path), Ok(seeds)) => path.starts_with(seeds),
        _ => false,
    }
}

/// The `except` ranges the reference gives a seed's family: every prefix
/// whose error is not the family's default kind at its length, in runs of
/// consecutive lengths with the same error.
fn derived_except(category: &str, case: &Case) -> Result<Vec<PrefixException>, String> {
    let family = case.prefixes.as_ref().ok_or("not a seed")?;
    let mut except: Vec<PrefixException> = Vec::new();
    for member in case.expand() {
        let n = member.input.as_deref().unwrap_or_default().len();
        let got = blessed(category, &member)?.error.ok_or("a prefix succeeded")?;
        if got == (ExpectedError { kind: family.kind.clone(), offset: n }) {
            continue;
        }
        match except.last_mut() {
            Some(last) if last.to + 1 == n && last.error == got => last.to = n,
            _ => except.push(PrefixException { from: n, to: n, error: got }),
        }
    }
    Ok(except)
}

fn describe(case: &Case) -> String {
    match (&case.expected, &case.error) {
        (Some(text), _) => quote(text),
        (None, Some(e)) => format!("{} at byte {}", e.kind, e.offset),
        (None, None) => "(nothing)".into(),
    }
}

fn main() -> ExitCode {
    let mut check_only = false;
    let mut rewrite_prefixes = false;
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check_only = true,
            "--prefixes" => rewrite_prefixes = true,
            "-h" | "--help" => {
                println!(
                    "usage: bless [--check] [--prefixes] [CASE_OR_SEED_FILE...]   (default: every file of {} and {})",
                    seeds_dir().display(),
                    cases_dir().display()
                );
                return ExitCode::SUCCESS;
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.is_empty() {
        for dir in [seeds_dir(), cases_dir()] {
            match case_paths(&dir) {
                Ok(all) => paths.extend(all),
                Err(e) => {
                    eprintln!("cannot list {}: {e}", dir.display());
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let (mut changed_cases, mut changed_files, mut refused) = (0usize, 0usize, 0usize);
    let mut read = 0usize;
    for path in &paths {
        let shown = display_path(path);
        let seed_file = is_seed_file(path);
        if let (false, Some(seed)) = (seed_file, seed_of(path)) {
            // Written from its seed file, never blessed on its own.
            let seed_given = paths.iter().any(|p| p.canonicalize().ok() == seed.canonicalize().ok());
            if !seed_given {
                eprintln!("{shown}: generated from {}: bless that file", display_path(&seed));
                refused += 1;
            }
            continue;
        }
        read += 1;
        let (text, mut file) = match read_file(path) {
            Ok(parsed) => parsed,
            Err(e) => {
                eprintln!("error: {e}");
                refused += 1;
                continue;
            }
        };
        for case in &mut file.cases {
            if rewrite_prefixes && case.prefixes.is_some() {
                match derived_except(&file.category, case) {
                    Ok(except) => {
                        let Some(family) = case.prefixes.as_mut() else { continue };
                        if family.except != except {
                            println!("{shown}: {}: except ranges rewritten", case.name);
                            changed_cases += 1;
                            family.except = except;
                        }
                    }
                    Err(e) => {
                        eprintln!("{shown}: {}: not blessed: {e}", case.name);
                        refused += 1;
                    }
                }
                continue;
            }
            if case.prefixes.is_some() {
                // A seed's family is written by hand (its `prefixes`): check it; `--prefixes` rewrites it.
                for member in case.expand() {
                    match blessed(&file.category, &member) {
                        Ok(new) if new == member => {}
                        Ok(new) => {
                            eprintln!(
                                "{shown}: {}: not blessed: the reference gives {} for {}; edit the seed's prefixes",
                                case.name,
                                describe(&new),
                                member.name
                            );
                            refused += 1;
                        }
                        Err(e) => {
                            eprintln!("{shown}: {}: not blessed: {}: {e}", case.name, member.name);
                            refused += 1;
                        }
                    }
                }
                continue;
            }
            match blessed(&file.category, case) {
                Ok(new) => {
                    if new != *case {
                        println!("{shown}: {}\n    was: {}\n    now: {}", case.name, describe(case), describe(&new));
                        changed_cases += 1;
                        *case = new;
                    }
                }
                Err(e) => {
                    eprintln!("{shown}: {}: not blessed: {e}", case.name);
                    refused += 1;
                }
            }
        }
        let mut outputs = vec![(path.clone(), text, format_file(&file))];
        if seed_file {
            let generated = generated_path(path);
            let old = std::fs::read_to_string(&generated).unwrap_or_default();
            outputs.push((generated, old, format_file(&generated_file(path, &file))));
        }
        for (path, text, formatted) in outputs {
            if formatted != text {
                let shown = display_path(&path);
                changed_files += 1;
                if check_only {
                    println!("{shown}: would be rewritten");
                } else if let Err(e) = std::fs::write(&path, formatted) {
                    eprintln!("cannot write {shown}: {e}");
                    refused += 1;
                }
            }
        }
    }
    let verb = if check_only { "would change" } else { "changed" };
    println!(
        "{read} files read; {changed_cases} expectations {verb}; {changed_files} files {verb}; {refused} cases refused"
    );
    if refused > 0 || (check_only && changed_files > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
