//! `stc decode FILE` writes its JSON in chunks as it decodes (issue 12):
//! the output must stay byte-identical to the core's one-piece `decode`, and
//! invalid input must still print `FILE:LINE:COLUMN: message` and nothing on
//! stdout, even when the error lies many chunks into the input.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{corpus_files, text};

fn stc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stc")).args(args).stdin(Stdio::null()).output().expect("run stc")
}

/// A scratch directory of this test process, removed by the caller.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stc-streaming-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `stc decode FILE` must print exactly the core's `decode` of the file and a newline.
fn assert_decodes_like_the_core(path: &Path, label: &str) {
    let stc_text = std::fs::read_to_string(path).unwrap();
    let expected = stc_core::decode(&stc_text).unwrap_or_else(|e| panic!("{label}: {e}"));
    let out = stc(&["decode", path.to_str().unwrap()]);
    assert!(out.status.success(), "{label}: {}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{label}: {}", text(&out.stderr));
    assert_eq!(out.stdout.len(), expected.len() + 1, "{label}: output length");
    assert!(out.stdout[..expected.len()] == *expected.as_bytes(), "{label}: output differs from stc_core::decode");
    assert_eq!(out.stdout.last(), Some(&b'\n'), "{label}");
}

#[test]
fn decode_output_is_byte_identical_to_the_core_on_the_corpus() {
    let dir = scratch("corpus");
    for file in corpus_files("json", 10) {
        let name = file.file_name().unwrap().to_str().unwrap().to_owned();
        let json = std::fs::read_to_string(&file).unwrap();
        // The JSON itself (every JSON text is STC) and its STC in both profiles.
        assert_decodes_like_the_core(&file, &format!("{name} as JSON"));
        for profile in [stc_core::Profile::Compact, stc_core::Profile::Readable] {
            let encoded = stc_core::encode_with(&json, &stc_core::EncodeOptions::default().profile(profile)).unwrap();
            let path = dir.join(format!("{name}.{profile}.stc"));
            std::fs::write(&path, &encoded).unwrap();
            assert_decodes_like_the_core(&path, &format!("{name} as {profile} STC"));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A document of about 2 MB whose chunk boundaries fall after every kind of
/// event: long runs of scalars in one array (a hand-over between two values
/// owes a comma), closing brackets, keys, empty containers, escaped strings.
fn many_chunks_document() -> String {
    let mut s = String::from("{\"numbers\":[");
    for i in 0..60_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&(i * 7919 % 100_003).to_string());
    }
    s.push_str("],\"rows\":[");
    for i in 0..12_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"id":{i},"name":"n\u00e9{i}\n","tags":["a","b{i}"],"empty":[],"obj":{{}},"ok":{},"x":null}}"#,
            i % 3 == 0
        ));
    }
    s.push_str("],\"nested\":[");
    for i in 0..10_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("[[{i}],[[]],{{\"k\":[{i},{{}}]}}]"));
    }
    s.push_str("]}");
    s
}

#[test]
fn decode_streams_a_document_of_many_chunks_byte_identically() {
    let dir = scratch("chunks");
    let json = many_chunks_document();
    assert!(json.len() > 1 << 20, "the document should span many 64 KiB chunks");
    let plain = dir.join("doc.json");
    std::fs::write(&plain, &json).unwrap();
    assert_decodes_like_the_core(&plain, "generated JSON");
    for profile in [stc_core::Profile::Compact, stc_core::Profile::Readable] {
        let encoded = stc_core::encode_with(&json, &stc_core::EncodeOptions::default().profile(profile)).unwrap();
        let path = dir.join(format!("doc.{profile}.stc"));
        std::fs::write(&path, encoded).unwrap();
        assert_decodes_like_the_core(&path, &format!("generated {profile} STC"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_error_many_chunks_in_prints_file_line_column_and_nothing_on_stdout() {
    let dir = scratch("error");
    let good = stc_core::encode_with(&many_chunks_document(), &stc_core::EncodeOptions::default()).unwrap();
    // Valid STC for megabytes, then a broken value on a later line.
    let bad_text = format!("([2]: {good},\n\n  [1, 2, nope])");
    let bad = dir.join("bad.stc");
    std::fs::write(&bad, &bad_text).unwrap();
    let err = stc_core::validate(&bad_text).unwrap_err();
    let (line, column) = (err.line().unwrap(), err.column().unwrap());
    assert_eq!(line, good.matches('\n').count() + 3, "the error is on the last line");
    let out = stc(&["decode", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{} bytes on stdout", out.stdout.len());
    assert_eq!(text(&out.stderr), format!("{}:{line}:{column}: {}\n", bad.display(), err.message()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reader_that_stops_early_ends_the_decode_quietly() {
    let dir = scratch("pipe");
    let path = dir.join("doc.json");
    std::fs::write(&path, many_chunks_document()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["decode", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.as_mut().unwrap().read_exact(&mut head).unwrap();
    assert_eq!(&head, b"{\"numbers\":[0,79");
    drop(child.stdout.take()); // like `| head -c 16`
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
