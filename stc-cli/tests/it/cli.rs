//! The `stc` binary as a user runs it: exit status, stdout, stderr.

use std::process::{Command, Output};

use crate::support::{corpus, run, text};

fn stc(args: &[&str], stdin: &[u8]) -> Output {
    run(Command::new(crate::support::stc()).args(args), stdin)
}

#[test]
fn encode_and_decode_round_trip_twitter() {
    let path = corpus("twitter.json");
    let path = path.to_str().unwrap();
    for profile in ["compact", "readable"] {
        let enc = stc(&["encode", "--profile", profile, path], b"");
        assert!(enc.status.success(), "{}", text(&enc.stderr));
        let dec = stc(&["decode"], &enc.stdout);
        assert!(dec.status.success(), "{}", text(&dec.stderr));
        let direct = stc(&["decode", path], b"");
        assert_eq!(dec.stdout, direct.stdout, "profile {profile}");
        let original: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let back: serde_json::Value = serde_json::from_slice(&dec.stdout).unwrap();
        assert_eq!(back, original);
    }
}

#[test]
fn readable_profile_spacing_and_tables() {
    let out =
        stc(&["encode", "--profile", "readable"], br#"{"tags": ["api", "gateway", "mcp"], "scores": [95, 87, 91]}"#);
    // Arrays of scalars take the cheaper form: plain JSON arrays here (ADR-066 wrote `tags[3]: …`).
    assert_eq!(text(&out.stdout), "{tags: [\"api\", \"gateway\", \"mcp\"], scores: [95, 87, 91]}\n");
    let out = stc(&["encode", "-"], br#"[{"id": 1, "name": "users"}, {"id": 2, "name": "orders"}]"#);
    assert_eq!(text(&out.stdout), "([2]{id,name}:1,\"users\"/2,\"orders\")\n");
}

#[test]
fn invalid_input_reports_file_line_column_and_nothing_on_stdout() {
    let out = stc(&["decode"], b"{a: 1,\n b 2}");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), "<stdin>:2:4: expected ':' after object key, found '2'\n");

    let dir = std::env::temp_dir().join(format!("stc-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "[1, 2,\n  NaN]").unwrap();
    let out = stc(&["encode", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), format!("{}:2:3: expected a value, found 'N'\n", bad.display()));

    // Too few values for the count: count_mismatch at the count (spec 4.3), whatever ends the body.
    let out = stc(&["check"], b"([3]: 1,2");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "<stdin>:1:3: array count 3 is larger than the rest of the input can hold\n");
    let out = stc(&["decode"], b"[\"\xff\"]");
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), "<stdin>:1:3: invalid UTF-8\n".to_string()));
    let out = stc(&["decode", dir.join("missing.stc").to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("missing.stc: "));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hostile_input_fails_cleanly() {
    let out = stc(&["decode"], "[".repeat(100_000).as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("nesting deeper than the limit of 128"));
    let out = stc(&["decode", "--max-depth", "3"], b"[[[[1]]]]");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn check_accepts_valid_stc() {
    let out = stc(&["check"], b"([2]{a}: 1 / 2)");
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "<stdin>: ok\n");
}

#[test]
fn gate_returns_json_when_stc_does_not_pay() {
    let out = stc(&["encode", "--gate"], b"[1, 2, 3]");
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "[1,2,3]\n");
    assert!(text(&out.stderr).contains("gate chose json"));
    let rows: Vec<String> = (0..30).map(|i| format!(r#"{{"id":{i},"name":"user{i}","active":true}}"#)).collect();
    let table = format!("[{}]", rows.join(","));
    let out = stc(&["encode", "--gate", "--tokenizer", "o200k_base"], table.as_bytes());
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("([30]{id,name,active}:"));
}

#[test]
fn stats_counts_tokens_with_a_real_tokenizer() {
    let path = corpus("twitter_api_response.json");
    let out = stc(&["stats", path.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("o200k_base"));
    // The minified column equals the real byte count of the minified JSON.
    let minified = stc(&["decode", path.to_str().unwrap()], b"");
    let bytes = minified.stdout.len() - 1; // without the final newline
    let line = report.lines().find(|l| l.starts_with(path.to_str().unwrap())).unwrap();
    let cols: Vec<usize> = line.split_whitespace().skip(1).map(|c| c.parse().unwrap()).collect();
    assert_eq!(cols[1], bytes);
    assert!(cols[3] < cols[1], "compact STC is smaller than minified JSON here");
}

#[test]
fn stats_measures_the_version_asked_for() {
    // A table of records with optional keys: version 2 writes absent cells
    // (and bare strings), so its compact column differs from version 1's.
    let rows: Vec<String> = (0..30)
        .map(|i| if i % 3 == 0 { format!(r#"{{"id":{i}}}"#) } else { format!(r#"{{"id":{i},"name":"user"}}"#) })
        .collect();
    let json = format!("[{}]", rows.join(","));
    let compact = |version: &str| {
        let out = stc(&["stats", "--stc-version", version], json.as_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        let line = report.lines().find(|l| l.starts_with("<stdin>")).unwrap().to_string();
        line.split_whitespace().nth(4).unwrap().parse::<usize>().unwrap()
    };
    let v2 = stc(&["encode", "--stc-version", "2"], json.as_bytes());
    assert_eq!(compact("2"), v2.stdout.len() - 1, "the bytes of the version 2 text");
    assert!(compact("2") < compact("1"));
}

#[test]
fn error_format_json_gives_kind_and_byte_offset() {
    // A cut table (spec 3.12): the missing ')' at the input's length.
    let out = stc(&["decode", "--stc-version", "2", "--error-format", "json"], b"([2]{a,b}: 1,true / 2,tr");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["kind"], "unexpected_end");
    assert_eq!((err["offset"].as_u64(), err["line"].as_u64(), err["column"].as_u64()), (Some(24), Some(1), Some(25)));
    assert_eq!(err["origin"], "<stdin>");
    assert!(err["message"].as_str().unwrap().contains("')'"), "{err}");
    // A reserved mark, for check and encode too.
    let out = stc(&["check", "--stc-version", "2", "--error-format", "json"], b"{a: @ref1}");
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!((err["kind"].as_str(), err["offset"].as_u64()), (Some("newer_version"), Some(4)));
    let out = stc(&["encode", "--error-format", "json"], b"[1,");
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!((err["kind"].as_str(), err["offset"].as_u64()), (Some("unexpected_end"), Some(3)));
    // An I/O error has no kind or offset.
    let out = stc(&["decode", "--error-format", "json", "/nonexistent/x.stc"], b"");
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(err["kind"].is_null() && err["offset"].is_null(), "{err}");
    // The text format is unchanged.
    let out = stc(&["decode"], b"[1,");
    assert_eq!(text(&out.stderr), "<stdin>:1:4: expected a value, found end of input\n");
}

#[test]
fn every_command_has_help() {
    for cmd in
        [&["--help"][..], &["encode", "--help"], &["decode", "--help"], &["check", "--help"], &["stats", "--help"]]
    {
        let out = stc(cmd, b"");
        assert!(out.status.success(), "{cmd:?}");
        assert!(text(&out.stdout).contains("Usage: stc"), "{cmd:?}");
    }
}
