//! `stc encode --lines`, `stc decode --lines`, `stc check --lines`: NDJSON
//! streams through the real binary, one line at a time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

use crate::support::{corpus_files, run, text};

fn stc(args: &[&str], stdin: &[u8]) -> Output {
    run(Command::new(crate::support::stc()).args(args), stdin)
}

fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    body.split(|&b| b == b'\n').collect()
}

#[test]
fn every_corpus_line_round_trips_to_its_minified_json() {
    for file in corpus_files("ndjson", 1) {
        let path = file.to_str().unwrap();
        let original = std::fs::read(&file).unwrap();
        let input_lines = lines_of(&original);
        // The minified JSON of each line, by the non-streaming command on that line alone.
        let minified: Vec<Vec<u8>> = input_lines
            .iter()
            .map(|line| {
                let out = stc(&["decode"], line);
                assert!(out.status.success(), "{path}: {}", text(&out.stderr));
                out.stdout.strip_suffix(b"\n").unwrap().to_vec()
            })
            .collect();
        for extra in [&["--profile", "compact"][..], &["--profile", "readable"], &["--gate"]] {
            let args: Vec<&str> = ["encode", "--lines", path].iter().copied().chain(extra.iter().copied()).collect();
            let enc = stc(&args, b"");
            assert!(enc.status.success(), "{path} {extra:?}: {}", text(&enc.stderr));
            assert_eq!(lines_of(&enc.stdout).len(), input_lines.len(), "{path} {extra:?}: one output line per line");
            let dec = stc(&["decode", "--lines"], &enc.stdout);
            assert!(dec.status.success(), "{path} {extra:?}: {}", text(&dec.stderr));
            let back = lines_of(&dec.stdout);
            assert_eq!(back.len(), minified.len());
            for (i, (got, want)) in back.iter().zip(&minified).enumerate() {
                assert_eq!(text(got), text(want), "{path} {extra:?}: line {}", i + 1);
                // And the same value as the input line, read by an independent JSON reader.
                let a: serde_json::Value = serde_json::from_slice(got).unwrap();
                let b: serde_json::Value = serde_json::from_slice(input_lines[i]).unwrap();
                assert_eq!(a, b, "{path}: line {}", i + 1);
            }
            if extra == ["--gate"] {
                assert!(text(&enc.stderr).contains("gate chose stc for"), "{}", text(&enc.stderr));
            }
        }
        let check = stc(&["check", "--lines", path], b"");
        assert!(check.status.success());
        assert_eq!(text(&check.stdout), format!("{path}: ok ({} lines)\n", input_lines.len()));
    }
}

#[test]
fn a_bad_line_in_the_middle_reports_file_line_column_after_the_lines_before_it() {
    let file = &corpus_files("ndjson", 1)[0];
    let original = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    assert!(lines.len() > 20);
    let bad = lines.len() / 2;
    // Column 3 (1-based) of line `bad + 1` is the `x`.
    lines[bad] = "[1x, 2]".to_string();
    let dir = std::env::temp_dir().join(format!("stc-lines-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.ndjson");
    std::fs::write(&broken, lines.join("\n") + "\n").unwrap();
    let path = broken.to_str().unwrap();

    let full = stc(&["encode", "--lines", file.to_str().unwrap()], b"");
    let enc = stc(&["encode", "--lines", path], b"");
    assert_eq!(enc.status.code(), Some(1));
    let err = text(&enc.stderr);
    assert!(err.starts_with(&format!("{path}:{}:3: ", bad + 1)), "{err}");
    assert!(err.ends_with("found 'x'\n") && err.lines().count() == 1, "{err}");
    // The lines before the bad one were written, exactly as a full run writes them; none after.
    let written = lines_of(&enc.stdout);
    assert_eq!(written.len(), bad);
    assert_eq!(&written[..], &lines_of(&full.stdout)[..bad]);

    // The same through stdin, for decode and check.
    let input = lines.join("\n");
    for cmd in ["decode", "check"] {
        let out = stc(&[cmd, "--lines"], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        assert!(text(&out.stderr).starts_with(&format!("<stdin>:{}:3: ", bad + 1)), "{cmd}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn column_counts_characters_within_the_line() {
    // Line 2, after "é" (2 bytes, 1 character): the bad `2` is at column 8 (byte 9).
    let out = stc(&["decode", "--lines"], "{a:1}\n{\"é\":1 2}\n{b:2}\n".as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "{\"a\":1}\n");
    let err = text(&out.stderr);
    assert!(err.starts_with("<stdin>:2:8: "), "{err}");

    // Invalid UTF-8 on line 3 of an encode stream.
    let out = stc(&["encode", "--lines"], b"1\n2\n[\"ab\xff\"]\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "1\n2\n");
    assert!(text(&out.stderr).starts_with("<stdin>:3:5: "), "{}", text(&out.stderr));
}

#[test]
fn blank_lines_pass_through_and_crlf_is_read_as_lf() {
    let out = stc(&["encode", "--lines"], b"{\"a\": [1, 2]}\r\n\r\n \t\n[{\"k\":1},{\"k\":2}]");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "{a:[1,2]}\n\n\n([2]{k}:1/2)\n");
    let back = stc(&["decode", "--lines"], &out.stdout);
    assert_eq!(text(&back.stdout), "{\"a\":[1,2]}\n\n\n[{\"k\":1},{\"k\":2}]\n");
    let empty = stc(&["decode", "--lines"], b"");
    assert!(empty.status.success());
    assert!(empty.stdout.is_empty());
}

#[test]
fn a_line_longer_than_the_limit_is_an_error() {
    let out = stc(&["decode", "--lines", "--max-line-bytes", "8"], b"[1,2,3]\n12345678\n123456789\n[4]\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "[1,2,3]\n12345678\n");
    assert_eq!(text(&out.stderr), "<stdin>:3:9: line is longer than --max-line-bytes (8 bytes)\n");
    // A long last line without a newline is caught too.
    let out = stc(&["decode", "--lines", "--max-line-bytes", "4"], b"[1]\n[1,2,3]");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "[1]\n");
}

#[test]
fn options_apply_per_line_and_truncation_is_refused() {
    let deep = "[".repeat(5) + &"]".repeat(5);
    let input = format!("[1]\n{deep}\n");
    let out = stc(&["encode", "--lines", "--max-depth", "4"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "[1]\n");
    assert!(text(&out.stderr).starts_with("<stdin>:2:5: "), "{}", text(&out.stderr));

    let out = stc(&["encode", "--lines", "--budget", "100"], b"[1]\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be used with"), "{}", text(&out.stderr));
}

/// Deterministic NDJSON line `i` of the generated stream (about 260 bytes).
fn generated_line(i: u64) -> String {
    format!(
        "{{\"ts\":\"2026-12-01T12:{:02}:{:02}.{:03}Z\",\"level\":\"{}\",\"id\":{i},\"latency_ms\":{}.{},\
         \"msg\":\"request served \\\"ok\\\" é\",\"tags\":[\"api\",\"v{}\"],\
         \"rows\":[{{\"a\":{i},\"b\":\"x\"}},{{\"a\":{},\"b\":\"y\"}}],\"extra\":null}}",
        (i / 60) % 60,
        i % 60,
        i % 1000,
        ["info", "warn", "error"][(i % 3) as usize],
        i % 977,
        i % 10,
        i % 7,
        i + 1
    )
}

/// Peak resident set (VmHWM) of a running process, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Pipes `bytes` of generated NDJSON through `stc encode --lines | stc
/// decode --lines`, checks every output line against the minified input
/// line, and returns the peak RSS (KiB) of the encoder and the decoder.
fn stream_through_pipeline(bytes: u64) -> (u64, u64, u64) {
    let exe = env!("CARGO_BIN_EXE_stc");
    let mut enc =
        Command::new(exe).args(["encode", "--lines"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut dec = Command::new(exe)
        .args(["decode", "--lines"])
        .stdin(Stdio::from(enc.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut sink = enc.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let (mut written, mut i) = (0u64, 0u64);
        let mut chunk = String::new();
        while written < bytes {
            chunk.clear();
            while chunk.len() < 1 << 16 {
                chunk.push_str(&generated_line(i));
                chunk.push('\n');
                i += 1;
            }
            sink.write_all(chunk.as_bytes()).unwrap();
            written += chunk.len() as u64;
        }
        i
    });
    // Sample peaks while the pipeline runs: VmHWM only grows, so the last
    // reading before exit is (within the last few lines) the peak.
    let (enc_pid, dec_pid) = (enc.id(), dec.id());
    let sampler_stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = sampler_stop.clone();
    let sampler = std::thread::spawn(move || {
        let (mut e, mut d) = (0, 0);
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            e = vm_hwm_kib(enc_pid).unwrap_or(e).max(e);
            d = vm_hwm_kib(dec_pid).unwrap_or(d).max(d);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        (e, d)
    });
    let mut reader = BufReader::new(dec.stdout.take().unwrap());
    let mut line = String::new();
    let mut n = 0u64;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        // Byte-exact: the generated lines are already canonical minified JSON.
        assert_eq!(line.trim_end_matches('\n'), generated_line(n), "line {}", n + 1);
        n += 1;
    }
    let lines = writer.join().unwrap();
    assert!(enc.wait().unwrap().success());
    assert!(dec.wait().unwrap().success());
    sampler_stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (e, d) = sampler.join().unwrap();
    assert_eq!(n, lines);
    (e, d, n)
}

/// Peak RSS bound of either process of the pipeline.
const RSS_BOUND_KIB: u64 = 64 * 1024;

#[test]
fn a_16_mb_stream_runs_in_bounded_memory() {
    let (enc, dec, lines) = stream_through_pipeline(16 << 20);
    eprintln!("16 MiB stream, {lines} lines: peak RSS encode {enc} KiB, decode {dec} KiB");
    assert!(enc > 0 && dec > 0, "no VmHWM sample");
    assert!(enc < RSS_BOUND_KIB && dec < RSS_BOUND_KIB, "encode {enc} KiB, decode {dec} KiB");
}

/// 200 MiB (about 1.06 million lines) through both processes: 13 s with the
/// debug binary on the shared 2-core machine (peak RSS 11040 KiB encode,
/// 10776 KiB decode on 2026-12-01); run with
/// `cargo test -p stc-cli --test it lines:: -- --ignored --nocapture`.
#[test]
#[ignore = "200 MiB through two processes: 13 s or more in a debug build; the 16 MiB test runs by default"]
fn a_200_mb_stream_runs_in_bounded_memory() {
    let (enc, dec, lines) = stream_through_pipeline(200 << 20);
    eprintln!("200 MiB stream, {lines} lines: peak RSS encode {enc} KiB, decode {dec} KiB");
    assert!(enc > 0 && dec > 0, "no VmHWM sample");
    assert!(enc < RSS_BOUND_KIB && dec < RSS_BOUND_KIB, "encode {enc} KiB, decode {dec} KiB");
}

#[test]
fn each_line_is_written_before_the_next_one_is_read() {
    // Write one line, read its answer while stdin stays open: the output is
    // flushed whenever stc would wait for input. (If it were not, the read
    // would block; the watchdog then kills stc and the read sees EOF.)
    let mut child = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["decode", "--lines"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog_done = done.clone();
    let watchdog = std::thread::spawn(move || {
        for _ in 0..600 {
            if watchdog_done.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for (input, want) in [("{a:1}\n", "{\"a\":1}\n"), ("([2]{k}:1/2)\n", "[{\"k\":1},{\"k\":2}]\n")] {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, want);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    watchdog.join().unwrap();
}
