//! `stc-conformance-run` as a user runs it: a real process running real
//! programs (the independent Python oracle, deliberately broken programs,
//! programs that hang). The run against the `stc` CLI is in
//! `stc-cli/tests/it/conformance_run.rs`, where that binary is built.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn runner(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stc-conformance-run"))
        .args(args)
        // The oracle runs once per case: let Python keep its compiled module
        // (outside the source tree) even where the environment says not to.
        .env("PYTHONPYCACHEPREFIX", Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-pycache"))
        .env_remove("PYTHONDONTWRITEBYTECODE")
        .output()
        .expect("run stc-conformance-run")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The Python interpreter itself, not a wrapper that finds it (a pyenv shim
/// is a shell script running `pyenv exec`: ten times the start-up of Python).
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-S", "-c", "import sys; sys.stdout.write(sys.executable)"])
            .output()
            .expect("python3 runs");
        let path = String::from_utf8(out.stdout).expect("a UTF-8 path");
        assert!(out.status.success() && !path.is_empty(), "python3 names its executable");
        path
    })
}

fn oracle_program() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/oracle_program.py");
    // -S: no site packages; the program is stdlib only and starts faster.
    format!("{} -S {}", shell_words::quote(python()), shell_words::quote(path.to_str().unwrap()))
}

/// Invalid-number cases, by case name (names are unique across the corpus).
const INVALID_NUMBERS: [&str; 4] = ["::leading-zero", "::lone-minus", "::leading-plus", "::double-zero"];

fn with_filters<'a>(mut args: Vec<&'a str>, filters: &[&'a str]) -> Vec<&'a str> {
    for f in filters {
        args.extend(["--filter", f]);
    }
    args
}

fn oracle_args(extra: &[&str]) -> Vec<String> {
    let program = oracle_program();
    let mut args = vec![
        "--decoder".to_string(),
        format!("{program} decode --max-depth {{max_depth}} --stc-version {{version}}"),
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

/// The whole corpus through the independent Python implementation
/// (`tools/oracle_program.py`, written from the spec): its decoder with error
/// kinds and offsets (`--errors strict`), its encoder by value (it writes the
/// fixed version 1 forms, not the reference's cost-driven choices, which is a
/// correct encoder of both versions). One Python start-up per program run,
/// about 2,000 in all: 30-70 s on the shared 2-core machine.
#[test]
fn an_independent_python_implementation_passes_the_whole_corpus() {
    let args = oracle_args(&["--encoder-check", "value", "--verbose"]);
    let out = runner(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = text(&out.stdout);
    let fails: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    assert_eq!(out.status.code(), Some(0), "{}\n{stdout}{}", fails.join("\n"), text(&out.stderr));
    let summary = summary_line(&stdout);
    let passed: usize = summary.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(summary, format!("{passed} cases: {passed} passed, 0 failed, 0 skipped"));
    assert!(passed > 1400, "{summary}");
    // Every category ran, and version 2 cases of every category.
    for category in ["encode", "decode", "roundtrip", "invalid", "json-invalid"] {
        assert!(stdout.contains(&format!("PASS {category}::")), "no {category} case passed:\n{stdout}");
    }
    for category in ["encode", "decode", "roundtrip", "invalid"] {
        assert!(stdout.contains(&format!("PASS {category}::v2-")), "no version 2 {category} case passed:\n{stdout}");
    }
}

#[test]
fn a_plain_json_encoder_passes_every_encode_case_by_value_and_fails_them_exactly() {
    // `cat` "encodes" by echoing the JSON input: every JSON text is STC, so by
    // value it is a correct encoder (for every version: {version} only makes
    // the v2 cases run); byte for byte it is not the reference encoder.
    let plain = "sh -c cat plain-json-encoder {version}";
    let out = runner(&["--encoder", plain, "--encoder-check", "value", "--filter", "encode::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let summary = summary_line(&stdout);
    assert!(summary.ends_with(" 0 failed, 0 skipped"), "{summary}");
    let passed: usize = summary.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(passed > 150, "{summary}");

    let out = runner(&["--encoder", plain, "--filter", "encode::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let summary = summary_line(&stdout);
    let failed: usize = summary.split_whitespace().nth(4).unwrap().parse().unwrap();
    assert!(failed > passed * 3 / 4, "exact mode should fail most encode cases: {summary}");
    assert!(stdout.contains("first difference at byte"), "{stdout}");
}

#[test]
fn an_encoder_that_changes_the_value_fails_by_value_with_both_values_and_the_difference() {
    // The case's input: {"status": "ok", "page": {...}, "items": [{"id": "a1", "price": 9.90, ...
    let case = "::paged-list-compact";
    let value = |encoder: &str| {
        let out = runner(&["--encoder", encoder, "--encoder-check", "value", "--filter", case]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.starts_with("FAIL encode::realistic::paged-list-compact\n"), "{stdout}");
        assert!(stdout.contains("1 cases: 0 passed, 1 failed, 0 skipped"), "{stdout}");
        stdout
    };
    // A key dropped.
    let stdout = value(r#"sed 's/"status": "ok", //'"#);
    assert!(stdout.contains("values differ"), "{stdout}");
    assert!(stdout.contains(r#"expected: "{\"status\":\"ok\",\"page\""#), "{stdout}");
    assert!(stdout.contains(r#"actual:   "{\"page\""#), "{stdout}");
    assert!(stdout.contains("first difference at byte 2"), "{stdout}");
    // A number's lexeme changed: the same f64, not the same value for STC (lossless).
    let stdout = value("sed s/9.90/9.9/");
    assert!(stdout.contains("values differ"), "{stdout}");
    assert!(stdout.contains(r#""price\":9.90"#) && stdout.contains(r#""price\":9.9,"#), "{stdout}");
    // Output the reference decoder rejects.
    let stdout = value("sh -c 'cat >/dev/null; echo \"([2]: 1\"'");
    assert!(
        stdout.contains("the reference decoder (version 1, max depth 128) rejects it: count_mismatch at byte 2"),
        "{stdout}"
    );
    // A failing encoder.
    let stdout = value("sh -c 'cat >/dev/null; exit 3'");
    assert!(stdout.contains("actual:   exit status 3"), "{stdout}");
}

#[test]
fn a_broken_decoder_fails_with_a_diff_naming_the_case() {
    // The oracle, with every `1` of its output turned into `2`.
    let broken = format!("sh -c '{} decode | sed s/1/2/g'", oracle_program());
    let out = runner(&["--decoder", &broken, "--filter", "::spec-3-1-spaces-in-header"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.starts_with("FAIL decode::"), "{stdout}");
    assert!(stdout.lines().next().unwrap().ends_with("::spec-3-1-spaces-in-header"), "{stdout}");
    assert!(stdout.contains("expected: \"[1,2]\""), "{stdout}");
    assert!(stdout.contains("actual:   \"[2,2]\""), "{stdout}");
    assert!(stdout.contains("first difference at byte 1"), "{stdout}");
    assert!(stdout.contains("1 cases: 0 passed, 1 failed, 0 skipped"), "{stdout}");
}

#[test]
fn a_decoder_that_accepts_everything_fails_every_invalid_case() {
    // `cat` "decodes" by echoing: right for inputs already in canonical form, wrong for the rest.
    let out = runner(&with_filters(vec!["--decoder", "cat"], &INVALID_NUMBERS));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    let summary = summary_line(&stdout);
    assert!(summary.contains(" 0 passed, "), "{summary}");
    assert!(stdout.contains("actual:   exit status 0, output"), "{stdout}");
    // Encoder categories are skipped, and the reason is printed.
    let out = runner(&["--decoder", "cat", "--filter", "json-invalid::"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "nothing ran: {stdout}");
    assert!(stdout.contains(": json-invalid cases need --encoder"), "{stdout}");
    assert!(stdout.contains("no case ran"), "{stdout}");
}

#[test]
fn error_kinds_and_offsets_are_checked_when_printed_and_required_when_strict() {
    // Rejects everything, always claiming "unexpected_char at byte 0".
    let liar = "sh -c 'cat >/dev/null; echo \"stc-error: unexpected_char 0\" >&2; exit 1'";
    let silent = "sh -c 'cat >/dev/null; exit 1'";
    let out = runner(&with_filters(vec!["--decoder", liar], &INVALID_NUMBERS));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("actual:   error unexpected_char at byte 0"), "{stdout}");
    let out = runner(&with_filters(vec!["--decoder", liar, "--errors", "exit"], &INVALID_NUMBERS));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = runner(&with_filters(vec!["--decoder", silent], &INVALID_NUMBERS));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = runner(&with_filters(vec!["--decoder", silent, "--errors", "strict"], &INVALID_NUMBERS));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("no `stc-error: KIND OFFSET` line on stderr"), "{stdout}");
}

#[test]
fn a_crash_is_not_a_rejection_and_a_hang_times_out() {
    let crash = "sh -c 'cat >/dev/null; kill -SEGV $$'";
    let out = runner(&["--decoder", crash, "--filter", "::leading-plus"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("killed by a signal"), "{stdout}");

    // A program that never answers, and a child of it that keeps the pipes open.
    let hang = "sh -c 'sleep 60 & sleep 60'";
    let out = runner(&["--decoder", hang, "--timeout", "0.5", "--filter", "::bare-keyword-keys"]);
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
    // A seed copied into the cases directory instead of blessed: refused, not run as one case.
    let seed = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds/invalid/truncated.json"))
        .unwrap();
    std::fs::create_dir_all(dir.join("invalid")).unwrap();
    std::fs::remove_file(dir.join("x.json")).unwrap();
    std::fs::write(dir.join("invalid/truncated.json"), seed).unwrap();
    let out = runner(&["--decoder", "cat", "--cases", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("case \"stc-prefix\" is a seed"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_text_only_program_skips_the_byte_cases_and_says_why() {
    let args = oracle_args(&["--filter", "utf8::", "--filter", "offsets::", "--text-only", "--verbose"]);
    let out = runner(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("SKIP invalid::"), "{stdout}");
    assert!(stdout.contains("input is not UTF-8 and the program takes text only (--text-only)"), "{stdout}");
    assert!(stdout.contains("PASS invalid::"), "{stdout}");
    // Exactly the byte cases are skipped: every SKIP line is one the summary counts for that reason.
    let skips = stdout.lines().filter(|l| l.starts_with("SKIP ")).count();
    assert!(skips >= 10, "{stdout}");
    assert!(stdout.contains(&format!("skipped {skips}: input is not UTF-8")), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}
