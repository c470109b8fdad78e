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
//! Every change is printed (case, old, new). Review them with `git diff`:
//! the tool must never paper over a bug in the reference.

use std::path::PathBuf;
use std::process::ExitCode;

use stc_conformance::{
    blessed, case_paths, cases_dir, display_path, format_file, quote, read_file, Case, ExpectedError, PrefixException,
};

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
                    "usage: bless [--check] [--prefixes] [CASE_FILE...]   (default: every file of {})",
                    cases_dir().display()
                );
                return ExitCode::SUCCESS;
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.is_empty() {
        match case_paths(&cases_dir()) {
            Ok(all) => paths = all,
            Err(e) => {
                eprintln!("cannot list {}: {e}", cases_dir().display());
                return ExitCode::FAILURE;
            }
        }
    }
    let (mut changed_cases, mut changed_files, mut refused) = (0usize, 0usize, 0usize);
    for path in &paths {
        let shown = display_path(path);
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
        let formatted = format_file(&file);
        if formatted != text {
            changed_files += 1;
            if check_only {
                println!("{shown}: would be rewritten");
            } else if let Err(e) = std::fs::write(path, formatted) {
                eprintln!("cannot write {shown}: {e}");
                refused += 1;
            }
        }
    }
    let verb = if check_only { "would change" } else { "changed" };
    println!(
        "{} files read; {changed_cases} expectations {verb}; {changed_files} files {verb}; {refused} cases refused",
        paths.len()
    );
    if refused > 0 || (check_only && changed_files > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
