//! `--stc-version 1|2` on `encode`, `decode` and `check` (design A): the
//! core's names and message, the version passed through to the codec.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn stc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stc")).args(args).stdin(Stdio::null()).output().expect("run stc")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(name)
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

#[test]
fn version_2_round_trips_the_corpus_through_the_cli() {
    let dir = std::env::temp_dir().join(format!("stc-version-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["twitter.json", "citm_catalog.json", "github_events.json", "update-center.json", "instruments.json"] {
        let path = corpus(name);
        let json = std::fs::read_to_string(&path).unwrap();
        let enc = stc(&["encode", "--stc-version", "2", path.to_str().unwrap()]);
        assert!(enc.status.success(), "{name}: {}", text(&enc.stderr));
        // The CLI writes what the core writes for version 2.
        let options = stc_core::EncodeOptions::default().version(stc_core::Version::V2);
        let core = stc_core::encode_with(&json, &options).unwrap();
        assert!(enc.stdout == format!("{core}\n").as_bytes(), "{name}: encode differs from the core's v2");
        let stc_path = dir.join(format!("{name}.stc"));
        std::fs::write(&stc_path, &enc.stdout).unwrap();
        let check = stc(&["check", "--stc-version", "2", stc_path.to_str().unwrap()]);
        assert!(check.status.success(), "{name}: {}", text(&check.stderr));
        let dec = stc(&["decode", "--stc-version", "2", stc_path.to_str().unwrap()]);
        assert!(dec.status.success(), "{name}: {}", text(&dec.stderr));
        let minified = stc_core::decode(&json).unwrap();
        assert!(dec.stdout == format!("{minified}\n").as_bytes(), "{name}: v2 round trip differs");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_column_group_without_version_2_is_an_error_at_its_place() {
    let dir = std::env::temp_dir().join(format!("stc-version-v1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("group.stc");
    let group = "[2]{id,user{id,name},text}:\n1,5,\"bob\",\"hi\" / 2,6,\"al\",\"yo\"";
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
