//! `stc-conformance-run` as a user runs it: a real process running real
//! programs (the independent Python oracle, deliberately broken programs,
//! programs that hang). The run against the `stc` CLI is in
//! `stc-cli/tests/conformance_run.rs`, where that binary is built.

use std::path::PathBuf;
use std::process::{Command, Output};

fn runner(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stc-conformance-run")).args(args).output().expect("run stc-conformance-run")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn oracle_program() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/oracle_program.py");
    // -S: no site packages; the program is stdlib only and starts faster.
    format!("python3 -S {}", shell_words::quote(path.to_str().unwrap()))
}

/// One file of every category, all of both kinds of error files: about 140
/// cases, a few seconds of Python start-ups. The whole corpus through the
/// oracle is `the_whole_corpus_passes_through_the_python_oracle` (ignored).
const ORACLE_SAMPLE: [&str; 12] = [
    "::decode-keys::",
    "::decode-limits::",
    "::encode-adr-examples::",
    "::encode-numbers::",
    "::roundtrip-keys-and-strings::",
    "::roundtrip-data-model::",
    "::invalid-limits::",
    "::invalid-utf8::",
    "::invalid-numbers::",
    "::json-invalid-limits::",
    "::json-invalid-stc-syntax::",
    "::invalid-offsets::",
];

fn oracle_args(extra: &[&str]) -> Vec<String> {
    let program = oracle_program();
    let mut args = vec![
        "--decoder".to_string(),
        format!("{program} decode --max-depth {{max_depth}}"),
        "--encoder".to_string(),
        format!("{program} encode --profile {{profile}} --max-depth {{max_depth}}"),
        "--errors".to_string(),
        "strict".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn summary_line(out: &str) -> &str {
    out.lines().find(|l| l.contains(" cases: ")).unwrap_or_else(|| panic!("no summary in {out}"))
}

#[test]
fn an_independent_python_implementation_passes_a_sample_with_error_kinds_and_offsets() {
    let mut extra = Vec::new();
    for f in ORACLE_SAMPLE {
        extra.extend(["--filter", f]);
    }
    let args = oracle_args(&extra);
    let out = runner(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let summary = summary_line(&stdout);
    assert!(summary.contains(" 0 failed, 0 skipped"), "{summary}");
    let passed: usize = summary.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(passed > 100, "{summary}");
}

#[test]
#[ignore = "the whole corpus through ~1760 Python start-ups: 2 CPU-minutes, 5.5 minutes on 2 busy cores"]
fn the_whole_corpus_passes_through_the_python_oracle() {
    let args = oracle_args(&[]);
    let out = runner(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(summary_line(&stdout).ends_with(" 0 failed, 0 skipped"), "{stdout}");
}

#[test]
fn a_broken_decoder_fails_with_a_diff_naming_the_case() {
    // The oracle, with every `1` of its output turned into `2`.
    let broken = format!("sh -c '{} decode | sed s/1/2/g'", oracle_program());
    let out = runner(&["--decoder", &broken, "--filter", "decode::decode-spec-examples::spec-3-1-spaces-in-header"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL decode::decode-spec-examples::spec-3-1-spaces-in-header"), "{stdout}");
    assert!(stdout.contains("expected: \"[1,2]\""), "{stdout}");
    assert!(stdout.contains("actual:   \"[2,2]\""), "{stdout}");
    assert!(stdout.contains("first difference at byte 1"), "{stdout}");
    assert!(stdout.contains("1 cases: 0 passed, 1 failed, 0 skipped"), "{stdout}");
}

#[test]
fn a_decoder_that_accepts_everything_fails_every_invalid_case() {
    // `cat` "decodes" by echoing: right for inputs already in canonical form, wrong for the rest.
    let out = runner(&["--decoder", "cat", "--filter", "invalid::invalid-numbers::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    let summary = summary_line(&stdout);
    assert!(summary.contains(" 0 passed, "), "{summary}");
    assert!(stdout.contains("actual:   exit status 0, output"), "{stdout}");
    // Encoder categories are skipped, and the reason is printed.
    let out = runner(&["--decoder", "cat", "--filter", "json-invalid::json-invalid-limits::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "nothing ran: {stdout}");
    assert!(stdout.contains("skipped 6: json-invalid cases need --encoder"), "{stdout}");
}

#[test]
fn error_kinds_and_offsets_are_checked_when_printed_and_required_when_strict() {
    // Rejects everything, always claiming "unexpected_char at byte 0".
    let liar = "sh -c 'cat >/dev/null; echo \"stc-error: unexpected_char 0\" >&2; exit 1'";
    let silent = "sh -c 'cat >/dev/null; exit 1'";
    let filter = "invalid::invalid-numbers::";
    let out = runner(&["--decoder", liar, "--filter", filter]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("actual:   error unexpected_char at byte 0"), "{stdout}");
    let out = runner(&["--decoder", liar, "--filter", filter, "--errors", "exit"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = runner(&["--decoder", silent, "--filter", filter]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = runner(&["--decoder", silent, "--filter", filter, "--errors", "strict"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("no `stc-error: KIND OFFSET` line on stderr"), "{stdout}");
}

#[test]
fn a_crash_is_not_a_rejection_and_a_hang_times_out() {
    let crash = "sh -c 'cat >/dev/null; kill -SEGV $$'";
    let out = runner(&["--decoder", crash, "--filter", "invalid::invalid-numbers::leading-zero"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("killed by a signal"), "{stdout}");

    // A program that never answers, and a child of it that keeps the pipes open.
    let hang = "sh -c 'sleep 60 & sleep 60'";
    let out = runner(&["--decoder", hang, "--timeout", "0.5", "--filter", "decode::decode-keys::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("timed out after 500ms (killed)"), "{stdout}");
    assert!(summary_line(&stdout).contains(" 0 passed, "), "{stdout}");
}

#[test]
fn usage_errors_and_bad_case_files_exit_2() {
    let out = runner(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("give --decoder, --encoder or both"));
    let out = runner(&["--decoder", "cat", "--filter", "no-such-case-anywhere"]);
    assert_eq!(out.status.code(), Some(2));
    let out = runner(&["--decoder", "'unclosed"]);
    assert_eq!(out.status.code(), Some(2));

    let dir = std::env::temp_dir().join(format!("stc-runner-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x.json"), r#"{"category": "mystery", "description": "d", "cases": []}"#).unwrap();
    let out = runner(&["--decoder", "cat", "--cases", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("x.json: unknown category \"mystery\""), "{}", text(&out.stderr));
    std::fs::write(dir.join("x.json"), "{not json").unwrap();
    let out = runner(&["--decoder", "cat", "--cases", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("x.json is not a valid case file"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_text_only_program_skips_the_byte_cases_and_says_why() {
    let args = oracle_args(&[
        "--filter",
        "invalid::invalid-utf8::",
        "--filter",
        "invalid::invalid-offsets::",
        "--text-only",
        "--verbose",
    ]);
    let out = runner(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("SKIP invalid::invalid-utf8::"), "{stdout}");
    assert!(stdout.contains("input is not UTF-8 and the program takes text only (--text-only)"), "{stdout}");
    assert!(stdout.contains("PASS invalid::invalid-offsets::"), "{stdout}");
    assert!(stdout.contains("skipped 12: input is not UTF-8"), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}
