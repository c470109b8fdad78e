//! STC version 2 through the services, from the outside: the real `stc`
//! binary spawned per test. `stc proxy --max-stc-version` in front of
//! stc-http's test upstream (a separate Python process), hit with reqwest;
//! `stc mcp` tools with `version`, and `stc mcp-proxy --stc-version 2` around
//! the Python SDK fixture server, both driven by a real MCP client (rmcp).
//! Every STC text is decoded with the version stated and compared with the
//! JSON it came from. Every wait has a limit.

use std::path::Path;
use std::process::Command;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use stc_core::{DecodeOptions, ErrorKind, Version};

use crate::samples::optional_records;
use crate::support::{call, connect, fixture, only_text, python, stc, upstream, within, Client, Proc, TempDir, LIMIT};

fn decode(text: &str, version: Version) -> Result<String, stc_core::Error> {
    stc_core::decode_with(text, &DecodeOptions::default().version(version))
}

/// Minified JSON of a JSON text, exact lexemes.
fn canonical(json: &str) -> String {
    stc_core::decode(json).unwrap_or_else(|e| panic!("not JSON: {e}: {json:.200}"))
}

fn table_json(rows: usize) -> String {
    let rows: Vec<String> = (0..rows).map(|i| format!(r#"{{"id":{i},"name":"user{i}","v":{i}.50}}"#)).collect();
    format!(r#"{{"items":[{}]}}"#, rows.join(","))
}

// ---------------------------------------------------------------- stc proxy

/// `stc proxy` on a free port in front of the upstream on `port`.
fn proxy(port: u16, extra: &[&str]) -> (Proc, String) {
    crate::support::proxy(&format!("http://127.0.0.1:{port}"), extra)
}

/// The version an STC response states (Content-Type parameter, else
/// X-STC-Version, else 1); disagreeing or unknown versions are errors.
fn stated_version(h: &reqwest::header::HeaderMap) -> Result<Version, String> {
    let content_type = h.get("content-type").ok_or("no Content-Type")?.to_str().unwrap();
    let param =
        content_type.split(';').skip(1).filter_map(|p| p.split_once('=')).find_map(|(k, v)| {
            k.trim().eq_ignore_ascii_case("version").then(|| v.trim().trim_matches('"').to_string())
        });
    let header = h.get("x-stc-version").map(|v| v.to_str().unwrap().to_string());
    let parse = |s: &str| s.parse::<Version>().map_err(|e| e.to_string());
    match (param, header) {
        (Some(p), Some(x)) if p != x => Err(format!("Content-Type says {p}, X-STC-Version says {x}")),
        (Some(p), _) => parse(&p),
        (None, Some(x)) => parse(&x),
        (None, None) => Ok(Version::V1),
    }
}

async fn get(addr: &str, path: &str, accept: &str) -> (reqwest::header::HeaderMap, String) {
    let client = reqwest::Client::builder().no_gzip().no_brotli().timeout(LIMIT).build().unwrap();
    let r = client.get(format!("http://{addr}{path}")).header("accept", accept).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let h = r.headers().clone();
    (h, r.text().await.unwrap())
}

#[tokio::test]
async fn proxy_sends_version_2_to_clients_that_ask_and_caps_it_with_max_stc_version() {
    let (_up, port) = upstream();
    let direct = reqwest::get(format!("http://127.0.0.1:{port}/table")).await.unwrap().text().await.unwrap();
    let original = canonical(&direct);
    let cases = [
        // (proxy options, Accept, the version expected)
        (&[][..], "application/stc+json", Version::V1),
        (&[][..], "application/stc+json; version=2, application/json;q=0.9", Version::V2),
        (&[][..], "application/stc+json; version=7", Version::V1),
        (&["--max-stc-version", "2"][..], "application/stc+json;version=\"2\"", Version::V2),
        (&["--max-stc-version", "1"][..], "application/stc+json; version=2", Version::V1),
        (&["--max-stc-version", "1"][..], "application/stc+json", Version::V1),
    ];
    for (options, accept, version) in cases {
        let (_p, addr) = proxy(port, options);
        let (h, body) = get(&addr, "/table", accept).await;
        let case = format!("{options:?} {accept}");
        let expected_type = match version {
            Version::V1 => "application/stc+json".to_string(),
            v => format!("application/stc+json; version={v}"),
        };
        assert_eq!(h["content-type"], expected_type.as_str(), "{case}");
        assert_eq!(h["x-stc-version"], version.name(), "{case}");
        assert_eq!(h["vary"], "Origin, Accept, Accept-Encoding", "{case}");
        assert_eq!(stated_version(&h), Ok(version), "{case}");
        assert_eq!(decode(&body, version).unwrap(), original, "{case}");
    }
}

#[test]
fn proxy_refuses_an_unknown_max_stc_version() {
    for bad in ["3", "0", "v2", ""] {
        let out = Command::new(stc())
            .args(["proxy", "--upstream", "http://127.0.0.1:9", "--max-stc-version", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--max-stc-version") && err.contains("expected one of: 1, 2"), "{bad:?}: {err}");
    }
}

// ---------------------------------------------------------------- MCP

async fn stc_mcp() -> Client {
    let mut cmd = tokio::process::Command::new(stc());
    cmd.args(["mcp", "--store", "memory"]);
    connect(cmd).await
}

/// `stc mcp-proxy OPTIONS -- fixture`, the fixture's `corpus` tool reading `corpus`.
async fn fixture_proxied(options: &[&str], corpus: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(stc());
    cmd.arg("mcp-proxy").args(options).arg("--").arg(python()).arg(fixture()).env("STC_CORPUS_DIR", corpus);
    connect(cmd).await
}

#[tokio::test]
async fn mcp_tools_take_a_version() {
    let client = stc_mcp().await;
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    for name in ["stc_encode", "stc_decode", "stc_estimate"] {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let version = &tool.input_schema["properties"]["version"];
        assert_eq!((version["minimum"].as_f64(), version["maximum"].as_f64()), (Some(1.0), Some(2.0)), "{name}");
    }
    let mut documents = vec![table_json(30), optional_records(40)];
    if let Ok(events) = std::fs::read_to_string("/work/shared/corpus/github_events.json") {
        documents.push(events);
    }
    for json in &documents {
        // Without a version the tools write and read version 2 (`stc mcp --stc-version`, default 2).
        for (arg, version) in [(None, Version::V2), (Some(1), Version::V1), (Some(2), Version::V2)] {
            let mut args = json!({"json": json, "gate": false});
            if let Some(v) = arg {
                args["version"] = json!(v);
            }
            let r = call(&client, "stc_encode", args).await;
            assert_eq!(r.is_error, Some(false), "{r:?}");
            let s = r.structured_content.clone().unwrap();
            assert_eq!(s["version"], json!(version.as_u8()));
            let text = only_text(&r);
            assert_eq!(decode(&text, version).unwrap(), canonical(json), "{arg:?}");
            // stc_decode with the same version gives the JSON back.
            let mut args = json!({"stc": text});
            if let Some(v) = arg {
                args["version"] = json!(v);
            }
            let back = call(&client, "stc_decode", args).await;
            assert_eq!(only_text(&back), canonical(json), "{arg:?}");
            // A version 2 decode reads version 1 text.
            let back = call(&client, "stc_decode", json!({"stc": text, "version": 2})).await;
            assert_eq!(only_text(&back), canonical(json));
        }
        let e = call(&client, "stc_estimate", json!({"json": json, "version": 2})).await;
        assert_eq!(e.is_error, Some(false), "{e:?}");
    }
    // Unknown versions are tool errors with the core's message; wrong types are tool errors too.
    for tool in ["stc_encode", "stc_decode", "stc_estimate"] {
        let args = |version: Value| {
            let input = if tool == "stc_decode" { "stc" } else { "json" };
            json!({input: "[1]", "version": version})
        };
        let r = call(&client, tool, args(json!(3))).await;
        assert_eq!(r.is_error, Some(true), "{tool}: {r:?}");
        assert!(only_text(&r).contains(r#"unknown version "3" (expected one of: 1, 2)"#), "{tool}: {r:?}");
        for bad in [json!(0), json!("2"), json!(-1), json!(2.5), json!(null)] {
            let r = call(&client, tool, args(bad.clone())).await;
            if bad.is_null() {
                assert_eq!(r.is_error, Some(false), "{tool}: null is the default: {r:?}");
            } else {
                assert_eq!(r.is_error, Some(true), "{tool} {bad}: {r:?}");
            }
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn mcp_encode_with_version_2_and_a_budget_keeps_its_markers_retrievable() {
    let client = stc_mcp().await;
    let json = optional_records(500);
    let r = call(&client, "stc_encode", json!({"json": json, "budget": 400, "version": 2})).await;
    let s = r.structured_content.clone().unwrap();
    assert_eq!((s["truncated"].clone(), s["version"].clone()), (json!(true), json!(2)), "{r:?}");
    let text = only_text(&r);
    decode(&text, Version::V2).unwrap();
    let keys = stc_stash::references_in(&text);
    assert_eq!(keys.len(), 1, "{text:.300}");
    assert_eq!(s["stash_keys"], json!([keys[0].to_string()]));
    let back = call(&client, "stc_retrieve", json!({"key": keys[0].to_string()})).await;
    assert_eq!(only_text(&back), canonical(&json));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn mcp_proxy_writes_version_2_and_says_so_in_the_primer() {
    let corpus = TempDir::new("proxy");
    std::fs::write(corpus.0.join("optional.json"), optional_records(60)).unwrap();
    // Version 2 is the default; --stc-version 1 opts out.
    let v1 = fixture_proxied(&["--stc-version", "1"], &corpus.0).await;
    let v2 = fixture_proxied(&[], &corpus.0).await;
    let i1 = v1.peer_info().unwrap().instructions.clone().unwrap();
    let i2 = v2.peer_info().unwrap().instructions.clone().unwrap();
    assert!(i1.ends_with(stc_mcp::STC_PRIMER) && !i1.contains(stc_mcp::STC_PRIMER_V2), "{i1}");
    assert!(i2.ends_with(stc_mcp::STC_PRIMER_V2), "{i2}");
    for (tool, args, original) in
        [("table", json!({"rows": 40}), None), ("corpus", json!({"name": "optional.json"}), Some(optional_records(60)))]
    {
        let a = call(&v1, tool, args.clone()).await;
        let b = call(&v2, tool, args).await;
        let (t1, t2) = (only_text(&a), only_text(&b));
        let original = original.unwrap_or_else(|| canonical(&t1));
        assert_eq!(decode(&t1, Version::V1).unwrap(), canonical(&original), "{tool} v1");
        assert_eq!(decode(&t2, Version::V2).unwrap(), canonical(&original), "{tool} v2");
    }
    v1.cancel().await.unwrap();
    v2.cancel().await.unwrap();
}

#[tokio::test]
async fn mcp_proxy_version_2_with_a_budget_gives_markers_its_retrieve_tool_answers() {
    let corpus = TempDir::new("budget");
    let original = optional_records(500);
    std::fs::write(corpus.0.join("big.json"), &original).unwrap();
    let client = fixture_proxied(&["--stc-version", "2", "--budget", "500", "--store", "memory"], &corpus.0).await;
    within("tools/list", client.list_all_tools()).await.unwrap(); // arms the retrieve tool
    let r = call(&client, "corpus", json!({"name": "big.json"})).await;
    let text = only_text(&r);
    decode(&text, Version::V2).unwrap();
    assert!(stc_core::Tokenizer::O200kBase.count(&text) <= 500, "{text:.300}");
    let keys = stc_stash::references_in(&text);
    assert_eq!(keys.len(), 1, "{text:.300}");
    // The marker writes the key sealed for this client (KEY.TAG); the tool wants it so.
    let sealed = format!("{}.", keys[0]);
    let at = text.find(&sealed).unwrap();
    let sealed = &text[at..at + 24 + 1 + 16];
    let back = call(&client, "stc_retrieve", json!({"key": sealed})).await;
    assert_eq!(back.is_error, Some(false), "{back:?}");
    assert_eq!(only_text(&back), canonical(&original));
    client.cancel().await.unwrap();
}

#[test]
fn mcp_proxy_refuses_an_unknown_stc_version() {
    let out = Command::new(stc()).args(["mcp-proxy", "--stc-version", "3", "--", "cat"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--stc-version") && err.contains(r#"unknown version "3" (expected one of: 1, 2)"#), "{err}");
}

/// The v2 encoder (stc-core 431ba80) uses a version 2 construct where it pays.
#[tokio::test]
async fn version_2_constructs_reach_the_clients_where_they_pay() {
    // stc mcp
    let client = stc_mcp().await;
    let json = optional_records(40);
    let v1 = call(&client, "stc_encode", json!({"json": json, "version": 1})).await;
    let v2 = call(&client, "stc_encode", json!({"json": json, "version": 2})).await;
    let text = only_text(&v2);
    assert!(text.contains('~'), "no absent cell: {text:.200}");
    let tokens = |r: &CallToolResult| r.structured_content.as_ref().unwrap()["stc_tokens"].as_u64().unwrap();
    assert!(tokens(&v2) < tokens(&v1));
    assert_eq!(decode(&text, Version::V1).unwrap_err().kind(), ErrorKind::NewerVersion);
    let r = call(&client, "stc_decode", json!({"stc": text, "version": 1})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(only_text(&r).contains("newer_version"), "{r:?}");
    client.cancel().await.unwrap();
    // stc mcp-proxy --stc-version 2
    let corpus = TempDir::new("constructs");
    std::fs::write(corpus.0.join("optional.json"), optional_records(60)).unwrap();
    let proxied = fixture_proxied(&["--stc-version", "2"], &corpus.0).await;
    let text = only_text(&call(&proxied, "corpus", json!({"name": "optional.json"})).await);
    assert!(text.contains('~'), "no absent cell: {text:.200}");
    proxied.cancel().await.unwrap();
    // stc proxy
    let (_up, port) = upstream();
    let (_p, addr) = proxy(port, &[]);
    let (h, body) = get(&addr, "/optional", "application/stc+json; version=2").await;
    assert_eq!(stated_version(&h), Ok(Version::V2));
    assert!(body.contains('~'), "no absent cell: {body:.200}");
    decode(&body, Version::V2).unwrap();
}
