//! `--stc-version 1|2` on `encode`, `decode` and `check` (design A): the
//! core's names and message, the version passed through to the codec.

use std::process::{Command, Output, Stdio};

use crate::support::{corpus, text};

fn stc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stc")).args(args).stdin(Stdio::null()).output().expect("run stc")
}

#[test]
fn an_unknown_version_is_a_usage_error_with_the_cores_message() {
    let path = corpus("twitter_api_response.json");
    let expected = "3".parse::<stc_core::Version>().unwrap_err().to_string();
    for command in ["encode", "decode", "check"] {
        let out = stc(&[command, "--stc-version", "3", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{command}");
        assert!(text(&out.stderr).contains(&expected), "{command}: {}", text(&out.stderr));
    }
}

/// `stc decode|check --stc-version 2 FILE` must give exactly what the core's
/// version-2 reader gives: the JSON, or the error at its place.
fn assert_reads_like_the_core_v2(path: &std::path::Path, label: &str) {
    let stc_text = std::fs::read_to_string(path).unwrap();
    let options = stc_core::DecodeOptions::default().version(stc_core::Version::V2);
    let core = stc_core::decode_with(&stc_text, &options);
    for command in ["decode", "check"] {
        let out = stc(&[command, "--stc-version", "2", path.to_str().unwrap()]);
        match &core {
            Ok(json) => {
                assert!(out.status.success(), "{label} {command}: {}", text(&out.stderr));
                if command == "decode" {
                    assert!(out.stdout == format!("{json}\n").as_bytes(), "{label}: decode differs from the core's v2");
                }
            }
            Err(e) => {
                assert_eq!(out.status.code(), Some(1), "{label} {command}");
                assert!(out.stdout.is_empty(), "{label} {command}");
                let (line, column) = (e.line().unwrap(), e.column().unwrap());
                let expected = format!("{}:{line}:{column}: {}\n", path.display(), e.message());
                assert_eq!(text(&out.stderr), expected, "{label} {command}");
            }
        }
    }
}

#[test]
fn version_2_is_passed_to_the_core_by_encode_decode_and_check() {
    let dir = std::env::temp_dir().join(format!("stc-version-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut differs = 0;
    for name in ["twitter.json", "citm_catalog.json", "github_events.json", "update-center.json", "instruments.json"] {
        let path = corpus(name);
        let json = std::fs::read_to_string(&path).unwrap();
        let enc = stc(&["encode", "--stc-version", "2", path.to_str().unwrap()]);
        assert!(enc.status.success(), "{name}: {}", text(&enc.stderr));
        // The CLI writes what the core writes for version 2.
        let v2 = stc_core::encode_with(&json, &stc_core::EncodeOptions::default().version(stc_core::Version::V2));
        let v2 = v2.unwrap();
        assert!(enc.stdout == format!("{v2}\n").as_bytes(), "{name}: encode differs from the core's v2");
        differs += usize::from(v2 != stc_core::encode(&json).unwrap());
        let stc_path = dir.join(format!("{name}.stc"));
        std::fs::write(&stc_path, &enc.stdout).unwrap();
        assert_reads_like_the_core_v2(&stc_path, name);
        // A version-1 text: a version-2 reader reads it too.
        let v1_path = dir.join(format!("{name}.v1.stc"));
        std::fs::write(&v1_path, stc_core::encode(&json).unwrap()).unwrap();
        assert_reads_like_the_core_v2(&v1_path, &format!("{name} (v1 text)"));
    }
    assert!(differs > 0, "version 2 changed none of the texts: the option would not be seen to pass through");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_column_group_without_version_2_is_an_error_at_its_place() {
    let dir = std::env::temp_dir().join(format!("stc-version-v1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("group.stc");
    let group = "([2]{id,user{id,name},text}:\n1,5,\"bob\",\"hi\" / 2,6,\"al\",\"yo\")";
    std::fs::write(&path, group).unwrap();
    // What the core's version-1 reader says, where it says it.
    let err = stc_core::validate(group).unwrap_err();
    for command in ["decode", "check"] {
        let out = stc(&[command, path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert!(out.stdout.is_empty(), "{command}");
        assert_eq!(
            text(&out.stderr),
            format!("{}:{}:{}: {}\n", path.display(), err.line().unwrap(), err.column().unwrap(), err.message()),
            "{command}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
