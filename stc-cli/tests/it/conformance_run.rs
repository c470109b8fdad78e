//! The whole conformance corpus through `stc-conformance-run` (the runner
//! any other implementation uses, here as a library) against this binary:
//! `stc decode` as the decoder, `stc encode` as the encoder. Every case must
//! pass, none may be skipped, and `stc`'s errors are checked for being
//! rejections (the CLI prints `FILE:LINE:COLUMN`, not `stc-error` lines).

use clap::Parser;
use stc_conformance::runner::{command_line, run, Args};

#[test]
fn the_stc_cli_passes_the_whole_corpus_through_the_runner() {
    let stc = command_line(&[env!("CARGO_BIN_EXE_stc")]);
    let args = Args::parse_from([
        "stc-conformance-run",
        "--decoder",
        &format!("{stc} decode --max-depth {{max_depth}} --stc-version {{version}}"),
        "--encoder",
        &format!("{stc} encode --profile {{profile}} --max-depth {{max_depth}} --stc-version {{version}}"),
    ]);
    let mut report = Vec::new();
    let summary = run(&args, &mut report).expect("the corpus runs");
    let report = String::from_utf8(report).unwrap();
    assert_eq!(summary.failed, 0, "{report}");
    assert_eq!(summary.skipped, 0, "{report}");
    assert!(summary.passed > 1000, "{report}");
    assert_eq!(summary.exit_code(), 0);
    assert!(report.ends_with(&format!("{0} cases: {0} passed, 0 failed, 0 skipped\n", summary.passed)), "{report}");
}

#[test]
fn a_wrong_option_is_caught_by_the_runner() {
    // The encoder ignores the case's profile: every readable-profile case fails.
    let stc = command_line(&[env!("CARGO_BIN_EXE_stc")]);
    let args = Args::parse_from([
        "stc-conformance-run",
        "--encoder",
        &format!("{stc} encode --profile compact"),
        "--filter",
        "profiles::",
    ]);
    let mut report = Vec::new();
    let summary = run(&args, &mut report).expect("the corpus runs");
    let report = String::from_utf8(report).unwrap();
    assert!(summary.failed > 0 && summary.passed > 0, "{report}");
    assert_eq!(summary.exit_code(), 1);
    assert!(report.contains("FAIL encode::"), "{report}");
    assert!(report.contains("first difference at byte"), "{report}");
}

#[test]
fn the_stc_cli_passes_the_encode_cases_by_value_and_its_version_2_output_fails_version_1_cases() {
    let stc = command_line(&[env!("CARGO_BIN_EXE_stc")]);
    let by_value = |encoder: String| {
        let args = Args::parse_from([
            "stc-conformance-run",
            "--encoder-check",
            "value",
            "--encoder",
            &encoder,
            "--filter",
            "encode::",
        ]);
        let mut report = Vec::new();
        let summary = run(&args, &mut report).expect("the corpus runs");
        (summary, String::from_utf8(report).unwrap())
    };
    // The reference encoder passes by value what it passes byte for byte.
    let (summary, report) =
        by_value(format!("{stc} encode --profile {{profile}} --max-depth {{max_depth}} --stc-version {{version}}"));
    assert_eq!((summary.failed, summary.skipped), (0, 0), "{report}");
    assert!(summary.passed > 150, "{report}");
    // Always version 2: its output for a version 1 case is checked with the
    // version 1 decoder, which rejects the v2 constructs it uses.
    let (summary, report) =
        by_value(format!("{stc} encode --profile {{profile}} --max-depth {{max_depth}} --stc-version 2"));
    assert!(summary.failed > 0 && summary.passed > 0, "{report}");
    assert_eq!(summary.exit_code(), 1);
    assert!(
        report.contains("the reference decoder (version 1, max depth 128) rejects it: newer_version at byte"),
        "{report}"
    );
}
