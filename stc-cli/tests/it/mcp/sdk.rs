//! `stc mcp-proxy` and `stc mcp` with the official SDKs' own clients and
//! servers, as real processes: the Python SDK 2.x client (`auto` mode, which
//! speaks 2026-07-28 with `server/discover`, and `legacy` mode, which sends
//! `initialize`), the Python SDK 1.x client, a Python SDK 2.x `MCPServer`,
//! and the TypeScript SDK's reference servers (`everything`, `memory`,
//! `filesystem`) from npm. The client is `stc-mcp/tests/fixtures/sdk_client.py`,
//! which prints what it saw as JSON. The peers are installed by
//! `scripts/prereqs/30-mcp.sh`. Every run has a time limit.

use crate::support::{root, stc, TempDir};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stc_core::{DecodeOptions, Tokenizer, Version};

const LIMIT: Duration = Duration::from_secs(90);

fn venv(var: &str, dir: &str) -> String {
    let p = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| root().join(dir).join("bin/python"));
    assert!(p.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh` first", p.display());
    p.to_string_lossy().into_owned()
}

/// Python with the SDK 1.x.
fn python1() -> String {
    venv("STC_MCP_PYTHON", "target/mcp-venv")
}

/// Python with the SDK 2.3.0.
fn python2() -> String {
    venv("STC_MCP2_PYTHON", "target/mcp2-venv")
}

fn fixture(name: &str) -> String {
    root().join("stc-mcp/tests/fixtures").join(name).to_string_lossy().into_owned()
}

fn npm_bin(name: &str) -> String {
    let dir = std::env::var_os("STC_MCP_NPM").map(PathBuf::from).unwrap_or_else(|| root().join("target/mcp-npm"));
    let p = dir.join("node_modules/.bin").join(name);
    assert!(p.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh` first", p.display());
    p.to_string_lossy().into_owned()
}

/// Runs the SDK client in `python` with `spec`; returns what it printed.
fn client(python: &str, spec: Value) -> Value {
    client_and_stderr(python, spec).0
}

/// [`client`], and the client's stderr (where the SDK passes the server's).
fn client_and_stderr(python: &str, spec: Value) -> (Value, String) {
    let mut child = Command::new(python)
        .arg(fixture("sdk_client.py"))
        .arg(spec.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the SDK client");
    let deadline = Instant::now() + LIMIT;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hang: the SDK client ran longer than {LIMIT:?} ({spec})");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (reader.join().unwrap(), err_reader.join().unwrap());
    assert!(status.success(), "the SDK client failed ({status}): {}\n{spec}", tail(&stderr));
    let v = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("client output is not JSON ({e}): {stdout}"));
    (v, stderr)
}

fn tail(text: &str) -> &str {
    &text[text.len().saturating_sub(3000)..]
}

/// `stc mcp-proxy OPTIONS -- SERVER…` as a command line.
fn proxied(options: &[&str], server: &[String]) -> Vec<String> {
    let mut c = vec![stc().to_string(), "mcp-proxy".to_string()];
    c.extend(options.iter().map(|s| s.to_string()));
    c.push("--".to_string());
    c.extend(server.iter().cloned());
    c
}

fn server2() -> Vec<String> {
    vec![python2(), fixture("fixture_server2.py")]
}

fn o200k(text: &str) -> usize {
    Tokenizer::O200kBase.count(text)
}

/// Minified JSON of an STC (version 2 reads version 1 too) or JSON text.
fn decoded(text: &str) -> String {
    stc_core::decode_with(text, &DecodeOptions::default().version(Version::V2))
        .unwrap_or_else(|e| panic!("not STC: {e}: {text:.300}"))
}

/// The JSON value of an STC or JSON text (member order does not count: the
/// SDK's client hands `structuredContent` back with its keys sorted).
fn value(text: &str) -> Value {
    serde_json::from_str(&decoded(text)).unwrap()
}

fn step(report: &Value, i: usize) -> &Value {
    &report["steps"][i]
}

fn has_marker(block: &Value) -> bool {
    block["_meta"]["dev.stc/format"].as_str().is_some_and(|f| f.starts_with("application/stc+json; version="))
}

fn assert_primer(report: &Value, own: &str) {
    let instructions = report["instructions"].as_str().unwrap_or_default();
    assert!(instructions.starts_with(own), "{instructions}");
    assert!(instructions.contains(stc_mcp::STC_PRIMER), "no primer: {instructions}");
}

const OWN2: &str = "Fixture server (SDK 2.x) for stc mcp-proxy tests.";

#[test]
fn sdk2_client_in_auto_and_legacy_mode_gets_the_primer_and_stc_from_an_sdk2_server() {
    for (mode, protocol) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let spec = json!({
            "command": proxied(&[], &server2()), "mode": mode, "name": "sdk-test-client",
            "steps": [["list"], ["call", "obj", {"n": 30}], ["call", "rows", {"n": 3}]]
        });
        let r = client(&python2(), spec);
        assert_eq!(r["protocol"], protocol, "{mode}");
        assert_primer(&r, OWN2);
        // A client not in the table: outputSchema and structuredContent stay.
        let tools = step(&r, 0)["tools"].as_array().unwrap();
        assert!(tools.iter().all(|t| t["outputSchema"].is_object()), "{mode}: {tools:?}");
        let obj = step(&r, 1);
        let block = &obj["content"][0];
        let text = block["text"].as_str().unwrap();
        assert!(text.starts_with("{count:30,items[30]{id,name,email,score,active}:"), "{mode}: {text}");
        assert!(has_marker(block), "{mode}: {block}");
        assert_eq!(value(text), obj["structuredContent"], "{mode}");
        // A list result's per-element blocks become one block of their array.
        let rows = step(&r, 2);
        assert_eq!(rows["content"].as_array().unwrap().len(), 1, "{mode}: {rows}");
        assert_eq!(rows["content"][0]["_meta"]["dev.stc/mergedBlocks"], 3, "{mode}");
        assert_eq!(value(rows["texts"][0].as_str().unwrap()), rows["structuredContent"]["result"], "{mode}");
    }
}

#[test]
fn sdk1_client_gets_the_primer_and_stc_from_an_sdk2_server() {
    let spec = json!({
        "command": proxied(&[], &server2()), "name": "sdk-test-client",
        "steps": [["list"], ["call", "obj", {"n": 30}]]
    });
    let r = client(&python1(), spec);
    assert!(r["sdk"].as_str().unwrap().starts_with("1."));
    assert_primer(&r, OWN2);
    let text = step(&r, 1)["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("{count:30,items[30]{"), "{text}");
    assert_eq!(value(text), step(&r, 1)["structuredContent"]);
}

/// A client that identifies as Claude Code and, like Claude Code, shows its
/// model `structuredContent` when a result has it: direct, it sees JSON;
/// through the proxy it sees STC, the same data, in fewer o200k tokens.
#[test]
fn a_claude_code_shaped_client_sees_stc_instead_of_json() {
    let steps =
        json!([["list"], ["call", "rows", {"n": 40}], ["call", "typed", {"n": 40}], ["call", "obj", {"n": 40}]]);
    let direct = client(&python2(), json!({"command": server2(), "name": "claude-code", "steps": steps}));
    let through =
        client(&python2(), json!({"command": proxied(&[], &server2()), "name": "claude-code", "steps": steps}));
    let tools = step(&through, 0)["tools"].as_array().unwrap();
    assert!(tools.iter().all(|t| t["outputSchema"].is_null()), "outputSchema must go: {tools:?}");
    for i in 1..=3 {
        let (d, t) = (step(&direct, i), step(&through, i));
        assert!(d["structuredContent"].is_object());
        assert!(t["structuredContent"].is_null(), "{t}");
        let texts = t["texts"].as_array().unwrap();
        assert_eq!(texts.len(), 1, "one text block: {t}");
        assert!(has_marker(&t["content"][0]), "{t}");
        let (before, after) = (d["model_view"].as_str().unwrap(), t["model_view"].as_str().unwrap());
        // The same data: the STC decodes to what the host showed before.
        assert_eq!(value(after), value(before));
        let (b, a) = (o200k(before), o200k(after));
        assert!(a * 10 < b * 8, "step {i}: {a} o200k tokens through the proxy against {b} direct");
    }
    // --structured keep: what the host shows is untouched.
    let kept = client(
        &python2(),
        json!({"command": proxied(&["--structured", "keep"], &server2()), "name": "claude-code", "steps": steps}),
    );
    for i in 1..=3 {
        assert_eq!(step(&kept, i)["model_view"], step(&direct, i)["model_view"]);
    }
    assert!(step(&kept, 0)["tools"].as_array().unwrap().iter().all(|t| t["outputSchema"].is_object()));
    // --structured text: any client gets it; the legacy handshake too (clientInfo from initialize).
    let forced = client(
        &python2(),
        json!({"command": proxied(&["--structured", "text"], &server2()), "mode": "legacy", "name": "other", "steps": steps}),
    );
    assert!(step(&forced, 3)["structuredContent"].is_null());
    let vscode = client(
        &python1(),
        json!({"command": proxied(&[], &server2()), "name": "Visual Studio Code", "steps": [["list"], ["call", "obj", {"n": 5}]]}),
    );
    assert!(step(&vscode, 1)["structuredContent"].is_null());
    assert!(step(&vscode, 0)["tools"].as_array().unwrap().iter().all(|t| t["outputSchema"].is_null()));
}

/// The server's cache hint on `tools/list` (ttlMs 60000, public) still
/// works through the proxy: the 2.x client asks the server once for two lists.
#[test]
fn cacheable_tool_lists_stay_cacheable() {
    let dir = TempDir::new("cache");
    for (name, budget) in [("sdk-test-client", None), ("claude-code", Some("2000"))] {
        let log = dir.path(&format!("{name}.log"));
        let server = vec![
            "sh".to_string(),
            "-c".to_string(),
            format!("tee -a '{log}' | '{}' '{}'", python2(), fixture("fixture_server2.py")),
        ];
        let mut options = vec![];
        if let Some(b) = budget {
            options = vec!["--budget", b, "--store", "memory"];
        }
        let spec = json!({
            "command": proxied(&options, &server), "mode": "auto", "name": name, "cache": true,
            "steps": [["list"], ["list"]]
        });
        let r = client(&python2(), spec);
        assert_eq!(step(&r, 0), step(&r, 1));
        let names: Vec<&str> =
            step(&r, 0)["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names.contains(&"stc_retrieve"), budget.is_some(), "{names:?}");
        let sent = std::fs::read_to_string(&log).unwrap();
        assert_eq!(sent.matches("\"tools/list\"").count(), 1, "{name}: {sent}");
    }
}

#[test]
fn typescript_reference_servers_behind_the_proxy() {
    let dir = TempDir::new("ts");
    let records: Vec<Value> = (0..30)
        .map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"], "price": i as f64 + 0.5}))
        .collect();
    let file = dir.path("data.json");
    std::fs::write(&file, serde_json::to_string_pretty(&records).unwrap()).unwrap();
    let memory = dir.path("memory.jsonl");
    let entities: Vec<Value> = (0..12)
        .map(|i| json!({"name": format!("entity{i}"), "entityType": "person", "observations": [format!("fact {i}")]}))
        .collect();
    let servers: Vec<(&str, Vec<String>, Value, usize)> = vec![
        (
            "filesystem",
            vec![npm_bin("mcp-server-filesystem"), dir.0.to_string_lossy().into_owned()],
            json!([["list"], ["call", "read_text_file", {"path": file}]]),
            1,
        ),
        (
            "memory",
            vec![npm_bin("mcp-server-memory")],
            json!([["list"], ["call", "create_entities", {"entities": entities}], ["call", "read_graph", {}]]),
            2,
        ),
        (
            "everything",
            vec![npm_bin("mcp-server-everything")],
            json!([["list"], ["call", "get-structured-content", {"location": "Chicago"}]]),
            1,
        ),
    ];
    for (name, server, steps, at) in servers {
        for client_name in ["sdk-test-client", "claude-code"] {
            let spec = json!({
                "command": proxied(&[], &server), "mode": "auto", "name": client_name,
                "env": {"MEMORY_FILE_PATH": memory, "PATH": std::env::var("PATH").unwrap_or_default()},
                "steps": steps
            });
            let r = client(&python2(), spec);
            let own = r["instructions"].as_str().unwrap_or_default();
            assert!(own.contains(stc_mcp::STC_PRIMER), "{name}: no primer: {own}");
            let result = step(&r, at);
            assert_eq!(result["isError"], false, "{name}: {result}");
            let text = result["texts"][0].as_str().unwrap();
            if client_name == "claude-code" {
                assert!(result["structuredContent"].is_null(), "{name}: {result}");
                assert!(step(&r, 0)["tools"].as_array().unwrap().iter().all(|t| t["outputSchema"].is_null()));
            }
            if name != "everything" {
                // Tables of records: STC, marked.
                assert!(has_marker(&result["content"][0]), "{name}/{client_name}: {result}");
                assert!(text.contains("]{"), "{name}/{client_name}: {text}");
            }
            let _ = std::fs::remove_file(&memory);
        }
    }
}

#[test]
fn stc_mcp_answers_the_sdk2_client_in_both_modes() {
    let dir = TempDir::new("server");
    let rows: Vec<Value> = (0..20).map(|i| json!({"id": i, "name": format!("user{i}")})).collect();
    for mode in ["auto", "legacy"] {
        let spec = json!({
            "command": [stc(), "mcp"], "mode": mode, "env": {"STC_DATA_DIR": dir.0},
            "steps": [["list"], ["call", "stc_encode", {"json": serde_json::to_string(&rows).unwrap()}]]
        });
        let r = client(&python2(), spec);
        assert!(r["instructions"].as_str().unwrap().contains(stc_mcp::STC_PRIMER), "{mode}");
        let text = step(&r, 1)["texts"][0].as_str().unwrap();
        assert!(text.starts_with("([20]{id,name}:"), "{mode}: {text}");
    }
}

/// The ledger: per tool, calls and o200k tokens in and out, truncations and
/// retrieves, as JSON lines in the --stats file and one line on stderr.
#[test]
fn the_ledger_counts_per_tool_in_the_stats_file_and_on_stderr() {
    let dir = TempDir::new("ledger");
    let stats = dir.path("stats.jsonl");
    let options = ["--tokenizer", "o200k_base", "--stats", stats.as_str(), "--budget", "300", "--store", "memory"];
    let spec = json!({
        "command": proxied(&options, &server2()), "name": "claude-code",
        "steps": [["list"], ["call", "obj", {"n": 40}], ["call", "rows", {"n": 3}], ["call", "obj", {"n": 200}]]
    });
    let (r, stderr) = client_and_stderr(&python2(), spec);
    // The third call is cut by the budget.
    let cut = step(&r, 3)["texts"][0].as_str().unwrap().to_string();
    assert!(cut.contains("stc_stash"), "{cut}");
    let lines: Vec<Value> =
        std::fs::read_to_string(&stats).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let calls: Vec<&Value> = lines.iter().filter(|l| l["event"] == "call").collect();
    assert_eq!(calls.len(), 3, "{lines:?}");
    assert!(calls.iter().all(|c| c["tokenizer"] == "o200k_base"));
    let first = calls[0];
    assert_eq!(first["tool"], "obj");
    // tokens_in: the text block and structuredContent the server sent; out: the one STC block.
    let direct =
        client(&python2(), json!({"command": server2(), "name": "claude-code", "steps": [["call", "obj", {"n": 40}]]}));
    let d = step(&direct, 0);
    let expected_in =
        o200k(d["texts"][0].as_str().unwrap()) + o200k(&serde_json::to_string(&d["structuredContent"]).unwrap());
    let in_tokens = first["tokens_in"].as_u64().unwrap() as usize;
    // structuredContent as the server wrote it and as the client re-serialized it may differ in spacing/key order.
    assert!(in_tokens.abs_diff(expected_in) * 20 < expected_in, "{in_tokens} against {expected_in}");
    assert_eq!(first["tokens_out"].as_u64().unwrap() as usize, o200k(step(&r, 1)["texts"][0].as_str().unwrap()));
    assert_eq!(calls[2]["truncations"], 1);
    let summary = &lines.last().unwrap()["ledger"];
    assert_eq!(summary["tools"]["obj"]["calls"], 2);
    assert_eq!(summary["tools"]["rows"]["calls"], 1);
    assert_eq!(summary["total"]["calls"], 3);
    assert!(summary["total"]["tokens_out"].as_u64() < summary["total"]["tokens_in"].as_u64());
    assert!(stderr.contains("stc mcp-proxy: 3 tool calls, "), "{}", tail(&stderr));
}

/// The Python SDK sends a `list[dict]` (or a list of models) as one text
/// block per element; through the proxy they become one block holding the
/// array (a table), in fewer o200k tokens than the blocks one by one.
#[test]
fn list_results_of_many_json_blocks_become_one_stc_array() {
    let steps = json!([["call", "rows", {"n": 40}], ["call", "typed", {"n": 40}]]);
    let merged = client(&python2(), json!({"command": proxied(&[], &server2()), "steps": steps}));
    let apart =
        client(&python2(), json!({"command": proxied(&["--merge-blocks", "false"], &server2()), "steps": steps}));
    let direct = client(&python2(), json!({"command": server2(), "steps": steps}));
    let d_texts = |i: usize| -> Vec<String> {
        step(&direct, i)["texts"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
    };
    for i in 0..2 {
        let (m, a) = (step(&merged, i), step(&apart, i));
        assert_eq!(a["texts"].as_array().unwrap().len(), 40);
        assert_eq!(m["texts"].as_array().unwrap().len(), 1, "{m}");
        let block = &m["content"][0];
        assert_eq!(block["_meta"]["dev.stc/mergedBlocks"], 40);
        assert!(has_marker(block));
        let text = block["text"].as_str().unwrap();
        assert!(text.starts_with("([40]{"), "{text}");
        // Element i is block i, and the data is the structured content's.
        assert_eq!(value(text), m["structuredContent"]["result"]);
        let one_by_one: usize = a["texts"].as_array().unwrap().iter().map(|t| o200k(t.as_str().unwrap())).sum();
        let direct: usize = d_texts(i).iter().map(|t| o200k(t)).sum();
        eprintln!("list result {i}: o200k direct {direct}, blocks one by one {one_by_one}, merged {}", o200k(text));
        assert!(o200k(text) * 10 < one_by_one * 8, "{} against {one_by_one}", o200k(text));
    }
}

/// 2026-07-28's multi-round `tools/call`: the server's `input_required`
/// result reaches the client byte for byte (checked on both sides of the
/// proxy with `tee`), the client retries with the request state, and the
/// final result comes back as STC.
#[test]
fn input_required_results_pass_untouched_and_the_final_result_is_stc() {
    let dir = TempDir::new("input-required");
    let (server_log, client_log) = (dir.path("server.out"), dir.path("client.out"));
    let inner = format!("'{}' '{}' | tee '{server_log}'", python2(), fixture("fixture_server2.py"));
    let outer = format!("'{}' mcp-proxy --quiet -- sh -c \"{inner}\" | tee '{client_log}'", stc());
    let spec = json!({"command": ["sh", "-c", outer], "mode": "auto", "steps": [["call", "later", {"n": 30}]]});
    let r = client(&python2(), spec);
    let text = step(&r, 0)["texts"][0].as_str().unwrap();
    assert!(text.starts_with("{count:30,items[30]{"), "{text}");
    let interim = |log: &str| -> String {
        let all = std::fs::read_to_string(log).unwrap();
        all.lines()
            .find(|l| l.contains("\"input_required\""))
            .unwrap_or_else(|| panic!("no input_required in {all}"))
            .to_string()
    };
    assert_eq!(interim(&server_log), interim(&client_log));
}
