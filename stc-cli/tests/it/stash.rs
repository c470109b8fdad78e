//! `stc encode --budget/--truncate-arrays-at` and `stc retrieve`, as separate
//! processes sharing a stash (SQLite file or a real redis-server).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::support::{run, text, Redis, TempDir};
use stc_stash::{references_in, Clock, Key, ManualClock, SqliteStore, StashStore, StoreConfig};

/// Runs `stc` with STC_DATA_DIR set to `data` (and no other stash variables).
fn stc(data: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(crate::support::stc());
    cmd.args(args).env("STC_DATA_DIR", data).env_remove("STC_STASH_DB").env_remove("STC_REDIS_URL");
    run(&mut cmd, stdin)
}

fn records(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            let status = if i == 123 { "error" } else { "ok" };
            format!(r#"{{"id": {i}, "name": "user{i}", "status": "{status}", "latency_ms": {}}}"#, 10 + i % 9)
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The canonical minified JSON of `json` (what the stash holds).
fn minified(data: &Path, json: &str) -> Vec<u8> {
    let mut out = stc(data, &["decode"], json.as_bytes()).stdout;
    assert_eq!(out.pop(), Some(b'\n'));
    out
}

fn encode_then_retrieve(data: &Path, store_args: &[&str]) {
    let json = records(500);
    let mut args = vec!["encode", "--truncate-arrays-at", "32"];
    args.extend_from_slice(store_args);
    let enc = stc(data, &args, json.as_bytes());
    assert!(enc.status.success(), "{}", text(&enc.stderr));
    let out = text(&enc.stdout);
    assert!(out.len() * 5 < json.len(), "budget-sized output: {} bytes", out.len());
    let keys = references_in(&out);
    assert_eq!(keys.len(), 1, "{out}");
    assert!(out.contains(&format!("If needed, run in shell: stc retrieve {}", keys[0])));
    // The output is valid STC that decodes.
    assert!(stc(data, &["check"], out.as_bytes()).status.success());
    let mut args = vec!["retrieve", keys[0].as_str()];
    args.extend_from_slice(store_args);
    let got = stc(data, &args, b"");
    assert!(got.status.success(), "{}", text(&got.stderr));
    assert_eq!(got.stdout, minified(data, &json), "the original, byte for byte");
    // Issue 24: the retrieve used to exempt this content from cutting for every
    // process for 7 days. Only the retrieve output itself is exempt: the same
    // document read again, and the retrieved text passed on, are cut as before.
    let mut args = vec!["encode", "--truncate-arrays-at", "32"];
    args.extend_from_slice(store_args);
    let again = stc(data, &args, json.as_bytes());
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), out, "the same cut, the same marker");
    let again = stc(data, &args, &got.stdout);
    assert_eq!(text(&again.stdout), out);
    let mut args = vec!["encode", "--budget", "200"];
    args.extend_from_slice(store_args);
    let again = stc(data, &args, &got.stdout);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(references_in(&text(&again.stdout)), keys);
}

fn corpus(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Issue 24: `--budget 1000` gave 1,753 o200k tokens on 12 Twitter statuses
/// (and 2,205 on a 3D mesh), with exit status 0. The budget now holds in exact
/// o200k tokens; where it cannot (citm_catalog's bulk is objects keyed by id,
/// which are never cut), the output is still written, stderr says by how
/// much it is over, and the exit status is 3.
#[test]
fn a_budget_holds_in_o200k_or_the_overrun_is_reported_with_exit_status_3() {
    let data = TempDir::new("stash");
    let twitter: serde_json::Value = serde_json::from_slice(&corpus("twitter.json")).unwrap();
    let statuses = serde_json::to_vec(&twitter["statuses"].as_array().unwrap()[..12]).unwrap();
    let o200k = stc_core::Tokenizer::O200kBase;
    for (name, json) in [("12 statuses", statuses), ("mesh", corpus("mesh.json"))] {
        let out = stc(&data.0, &["encode", "--budget", "1000"], &json);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let body = text(&out.stdout);
        let tokens = o200k.count(body.trim_end());
        assert!(tokens <= 1000, "{name}: {tokens} o200k tokens");
        assert!(tokens > 500, "{name}: not cut more than needed ({tokens} tokens)");
        assert!(text(&out.stderr).contains(&format!("to {tokens} (o200k_base")), "{}", text(&out.stderr));
        // With --gate the text written (STC or JSON) is what is checked.
        let gated = stc(&data.0, &["encode", "--gate", "--budget", "1000"], &json);
        assert!(gated.status.success() || gated.status.code() == Some(3), "{name}");
        let tokens = o200k.count(text(&gated.stdout).trim_end());
        assert_eq!(gated.status.code() == Some(3), tokens > 1000, "{name}: {tokens}");
    }
    let out = stc(&data.0, &["encode", "--budget", "1000"], &corpus("citm_catalog.json"));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let body = text(&out.stdout);
    let tokens = o200k.count(body.trim_end());
    let expected =
        format!("budget not met: the output has {tokens} o200k_base tokens, {} over the budget of 1000", tokens - 1000);
    assert!(text(&out.stderr).contains(&expected), "{}", text(&out.stderr));
    assert!(stc(&data.0, &["check"], body.as_bytes()).status.success(), "the output is still valid STC");
    // Nothing to cut at all, over the budget: reported too.
    let object = format!("{{{}}}", (0..300).map(|i| format!(r#""k{i}":{i}"#)).collect::<Vec<_>>().join(","));
    let out = stc(&data.0, &["encode", "--budget", "100"], object.as_bytes());
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("budget not met"), "{}", text(&out.stderr));
}

#[test]
fn sqlite_encode_then_retrieve_in_another_process() {
    let data = TempDir::new("stash");
    encode_then_retrieve(&data.0, &[]);
    assert!(data.0.join("stash.db").is_file(), "the default database is DATA_DIR/stash.db");
    let alt = data.0.join("alt/other.db");
    encode_then_retrieve(&data.0, &["--stash-db", alt.to_str().unwrap()]);
    assert!(alt.is_file());
}

#[test]
fn redis_encode_then_retrieve_in_another_process() {
    let redis = Redis::start();
    let data = TempDir::new("stash");
    encode_then_retrieve(&data.0, &["--store", "redis", "--redis-url", &redis.url]);
    assert!(!data.0.join("stash.db").exists(), "the Redis store writes no SQLite file");
}

#[test]
fn malformed_keys_fail_before_any_store_read() {
    let data = TempDir::new("stash");
    let good = Key::of(b"x").to_string();
    let upper = good.to_uppercase();
    let long = "a".repeat(10_000);
    for key in [
        "",
        &good[..23],
        &format!("{good}0"),
        &upper,
        "'; DROP TABLE stash; --0000",
        &format!("<<stc:{good}>>"),
        &format!("{good}\n"),
        &long,
        "../../../../etc/passwd000",
    ] {
        let out = stc(&data.0, &["retrieve", "--", key], b"");
        assert_eq!(out.status.code(), Some(1), "key {key:?}");
        let err = text(&out.stderr);
        assert!(err.contains("invalid key") && err.contains("retrying will not help"), "{err}");
        assert!(err.len() < 400, "hostile input is not echoed in full");
        assert!(out.stdout.is_empty());
    }
    assert!(!data.0.join("stash.db").exists(), "no store was opened");
}

#[test]
fn unknown_and_expired_keys_exit_1_and_say_retrying_will_not_help() {
    let data = TempDir::new("stash");
    let db = data.0.join("stash.db");
    let out = stc(&data.0, &["retrieve", Key::of(b"nothing").as_str()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("does not exist"), "{}", text(&out.stderr));
    assert!(!db.exists(), "a retrieve does not create the database");
    // An entry written 8 days ago has outlived the 7-day TTL.
    let eight_days_ago = ManualClock::new(stc_stash::SystemClock.now_ms() - 8 * 86_400_000);
    let store = SqliteStore::open_with(
        &db,
        StoreConfig { clock: std::sync::Arc::new(eight_days_ago), ..StoreConfig::default() },
    )
    .unwrap();
    let old = store.stash(b"[\"old\"]").unwrap();
    drop(store);
    let out = stc(&data.0, &["retrieve", old.key.as_str()], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("has expired") && err.contains("retrying will not help"), "{err}");
    assert!(out.stdout.is_empty());
    let out = stc(&data.0, &["retrieve", Key::of(b"nothing").as_str()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no entry"), "{}", text(&out.stderr));
}

#[test]
fn unreachable_redis_says_retrying_may_help() {
    let data = TempDir::new("stash");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("redis://127.0.0.1:{port}/");
    let out = stc(&data.0, &["retrieve", Key::of(b"x").as_str(), "--store", "redis", "--redis-url", &url], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("retrying may help"), "{}", text(&out.stderr));
}

#[test]
fn stash_db_path_policy() {
    let data = TempDir::new("stash");
    let key = Key::of(b"x").to_string();
    for (path, why) in [("/etc/stash.db", "inside your home"), ("relative.db", "absolute"), ("/tmp/a/../b.db", "'..'")]
    {
        let out = stc(&data.0, &["retrieve", &key, "--stash-db", path], b"");
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains(why), "{path}: {}", text(&out.stderr));
    }
    let target = data.0.join("real.db");
    std::fs::write(&target, b"").unwrap();
    std::os::unix::fs::symlink(&target, data.0.join("link.db")).unwrap();
    let link = data.0.join("link.db");
    let out =
        stc(&data.0, &["encode", "--budget", "10", "--stash-db", link.to_str().unwrap()], records(100).as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("symlink"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    // An invalid STC_DATA_DIR is an error, not a silent fall-back to the home directory.
    let out = stc(Path::new("relative/dir"), &["retrieve", &key], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("STC_DATA_DIR"), "{}", text(&out.stderr));
}

#[test]
fn no_stash_is_explicitly_lossy_and_writes_nothing() {
    let data = TempDir::new("stash");
    let out = stc(&data.0, &["encode", "--truncate-arrays-at", "8", "--no-stash"], records(100).as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("recoverable:false"), "{}", text(&out.stdout));
    assert!(references_in(&text(&out.stdout)).is_empty());
    assert!(!data.0.join("stash.db").exists());
}

#[test]
fn tool_recovery_and_invalid_tool_names() {
    let data = TempDir::new("stash");
    let out =
        stc(&data.0, &["encode", "--truncate-arrays-at", "8", "--retrieve-tool", "stash_get"], records(100).as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let key = references_in(&text(&out.stdout))[0];
    assert!(text(&out.stdout).contains(&format!("call tool stash_get with key={key}")));
    let out =
        stc(&data.0, &["encode", "--truncate-arrays-at", "8", "--retrieve-tool", "rm -rf"], records(100).as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("invalid tool name"), "{}", text(&out.stderr));
}

#[test]
fn encode_without_stash_options_is_unchanged_and_invalid_json_is_located() {
    let data = TempDir::new("stash");
    let json = records(100);
    let plain = stc(&data.0, &["encode"], json.as_bytes());
    assert!(references_in(&text(&plain.stdout)).is_empty());
    assert!(!data.0.join("stash.db").exists());
    let bad = stc(&data.0, &["encode", "--budget", "10"], b"[1,\n 2");
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).starts_with("<stdin>:2:"), "{}", text(&bad.stderr));
}

#[test]
fn concurrent_encoders_and_retrievers_share_one_database() {
    let data = TempDir::new("stash");
    let json = records(300);
    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_stc"))
            .args(args)
            .env("STC_DATA_DIR", &data.0)
            .env_remove("STC_STASH_DB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<Child> = (0..6)
        .map(|_| {
            let mut c = spawn(&["encode", "--truncate-arrays-at", "16"]);
            c.stdin.take().unwrap().write_all(json.as_bytes()).unwrap();
            c
        })
        .collect();
    let outputs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    for o in &outputs {
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(o.stdout, outputs[0].stdout, "deterministic output, same key");
    }
    let key = references_in(&text(&outputs[0].stdout))[0];
    let expected = minified(&data.0, &json);
    let readers: Vec<Child> = (0..6).map(|_| spawn(&["retrieve", key.as_str()])).collect();
    for r in readers {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(o.stdout, expected);
    }
}

/// `--budget` with `--stc-version 2` counts the budget in version 2: records
/// with an optional key are cheaper as a v2 table (`~` cells), so the same
/// budget keeps more of them than in version 1, and the text reads as v2.
#[test]
fn a_v2_budget_is_counted_in_version_2() {
    let data = TempDir::new("stash");
    let items: Vec<String> = (0..400)
        .map(|i| {
            if i % 2 == 0 {
                format!(r#"{{"id": {i}, "name": "user{i}", "note": "n{i}"}}"#)
            } else {
                format!(r#"{{"id": {i}, "name": "user{i}"}}"#)
            }
        })
        .collect();
    let json = format!("[{}]", items.join(", "));
    let kept = |version: &str| {
        let out = stc(&data.0, &["encode", "--stc-version", version, "--budget", "400"], json.as_bytes());
        assert!(out.status.success(), "v{version}: {}", text(&out.stderr));
        let body = text(&out.stdout);
        assert_eq!(references_in(&body).len(), 1, "v{version}: one marker: {body}");
        let check = stc(&data.0, &["check", "--stc-version", version], body.as_bytes());
        assert!(check.status.success(), "v{version}: {}", text(&check.stderr));
        body.matches("user").count()
    };
    let (v1, v2) = (kept("1"), kept("2"));
    assert!(v2 > v1, "the v2 budget keeps more records ({v2}) than the v1 one ({v1})");
}
