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
