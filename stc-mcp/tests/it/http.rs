//! `stc mcp-proxy --listen` as a library: Streamable HTTP around a stdio
//! server and in front of a remote one, hostile HTTP, readiness.

use serde_json::Value;

use super::*;

#[test]
fn listen_serves_sdk2_and_sdk1_clients_at_once_with_stc_results_and_progress() {
    let proxy = listen_around_the_fixture(|_, _| {});
    let url = proxy.url.clone();
    let runs = [
        (python2(), strings(&["sdk2", "legacy", &url, "table", "slow", "tools"]), None),
        (python2(), strings(&["sdk2", "auto", &url, "table", "slow"]), None),
        (python1(), strings(&["sdk1", &url, "table", "slow", "tools"]), None),
        (python2(), strings(&["sdk2", "legacy", &url, "table", "slow", "tools"]), Some("claude-code")),
        (python2(), strings(&["sdk2", "auto", &url, "table", "slow"]), Some("claude-code")),
    ];
    // Five clients at once on one child: their ids and progress tokens (the
    // SDKs number both from 0 or 1) would collide without the remapping.
    let handles: Vec<_> = runs
        .into_iter()
        .map(|(py, args, name)| std::thread::spawn(move || (client_as(py, &args, name), name.is_some())))
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let ((steps, err), claude) = h.join().unwrap();
        // Each client's own identity decides the structuredContent policy (engine
        // session per HTTP session; per-request _meta when sessionless): a host
        // that reads only structuredContent gets it dropped, the others keep it.
        let table = steps.get("table").unwrap_or_else(|| panic!("client {i}: no table step: {steps:?}\n{err}"));
        assert_eq!(table["structured"], !claude, "client {i}: {steps:?}");
        assert!(!steps.contains_key("session"), "client {i}: {steps:?} {err}");
        assert_stc_table(&steps["table"], 30);
        assert_stc_table(&steps["slow"], 20);
        assert_eq!(steps["slow"]["progress"], serde_json::json!([1.0, 2.0, 3.0]), "client {i}");
        if i == 0 || i == 2 || i == 3 {
            // Handshake clients get the primer after the server's own instructions.
            let instructions = steps["connect"]["instructions"].as_str().unwrap();
            assert!(
                instructions.starts_with("Fixture server for the HTTP tests.\n\nSome tool results are written in STC")
            );
            assert!(steps["tools"]["tools"].as_array().unwrap().iter().any(|t| t == "table"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_answers_hostile_http_with_clear_errors_and_keeps_serving() {
    let proxy = listen_around_the_fixture(|p, o| {
        o.max_body = 4000;
        p.max_message_bytes = 200_000;
    });
    let url = proxy.url.clone();
    let json = [("accept", "application/json, text/event-stream")];
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

    // DNS rebinding: a foreign Origin or Host.
    let (s, _, _) = post(&url, &[json[0], ("origin", "http://evil.example")], init).await;
    assert_eq!(s, 403);
    let (s, _, _) = post(&url, &[json[0], ("host", "evil.example")], init).await;
    assert_eq!(s, 403);
    // Not JSON, a batch, a bad id, an oversize body, an unknown session.
    let (s, _, b) = post(&url, &json, "{not json").await;
    assert_eq!((s, code(&b)), (400, -32700), "{b}");
    let (s, _, b) = post(&url, &json, format!("[{init}]")).await;
    assert_eq!((s, code(&b)), (400, -32600), "{b}");
    let (s, _, b) = post(&url, &json, r#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#).await;
    assert_eq!((s, code(&b)), (400, -32600), "{b}");
    let (s, _, b) = post(&url, &json, "x".repeat(5000)).await;
    assert_eq!(s, 413, "{b}");
    let (s, _, _) = post(&url, &[json[0], ("mcp-session-id", "nope")], init).await;
    assert_eq!(s, 404);
    let r = reqwest::Client::new().put(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);

    // Then a real session: initialize (JSON only), initialized, a call as JSON and as SSE.
    let (s, h, b) = post(&url, &[("accept", "application/json")], init).await;
    assert_eq!(s, 200, "{b}");
    let session = h["mcp-session-id"].to_str().unwrap().to_string();
    assert_eq!(session.len(), 32);
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(v["id"], 1);
    assert!(v["result"]["instructions"].as_str().unwrap().contains("written in STC"));
    let with =
        |accept: &'static str| [("accept", accept), ("mcp-session-id", Box::leak(session.clone().into_boxed_str()))];
    let (s, _, _) =
        post(&url, &with("application/json"), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(s, 202);
    let call = |id: &str, tool: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#)
    };
    let (s, h, b) = post(&url, &with("application/json"), call("\"a-1\"", "table")).await;
    assert_eq!((s, h["content-type"].to_str().unwrap()), (200, "application/json"), "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(v["id"], "a-1", "the client's own id comes back");
    assert!(v["result"]["content"][0]["text"].as_str().unwrap().starts_with("([40]{id,name,price,status}:"), "{b}");
    let (s, h, b) = post(&url, &with("application/json, text/event-stream"), call("7", "table")).await;
    assert_eq!((s, h["content-type"].to_str().unwrap()), (200, "text/event-stream"));
    let data = b.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
    let v: Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["id"], 7);
    assert!(v["result"]["content"][0]["text"].as_str().unwrap().starts_with("([40]{"), "{b}");
    // A result over --max-message-bytes: an error for that request only.
    let (s, _, b) = post(&url, &with("application/json"), call("8", "big")).await;
    assert_eq!(s, 200);
    assert!(b.contains("larger than 200000 bytes"), "{b}");
    // Still serving after all that.
    let (s, _, b) = post(&url, &with("application/json"), call("9", "table")).await;
    assert_eq!(s, 200);
    assert!(b.contains("[40]{id,name,price,status}:"), "{b}");
    // Metrics in Prometheus text format.
    let metrics = reqwest::get(url.replace("/mcp", "/metrics")).await.unwrap().text().await.unwrap();
    assert!(metrics.contains("stc_mcp_proxy_tool_calls_total{tool=\"table\"} 3"), "{metrics}");
    assert!(metrics.contains("stc_mcp_proxy_tool_calls_total{tool=\"big\"} 1"), "{metrics}");
    assert!(metrics.contains("# TYPE stc_mcp_proxy_request_seconds histogram"), "{metrics}");
    assert!(metrics.contains("stc_mcp_proxy_rewritten_blocks 3"), "{metrics}");
    assert!(metrics.contains("stc_mcp_proxy_ledger_calls{tool=\"table\"} 3"), "{metrics}");
    assert!(metrics.contains("stc_mcp_proxy_ledger_tokens_out{tool=\"table\"}"), "{metrics}");
    // DELETE ends the session; it is unknown afterwards.
    let r = reqwest::Client::new().delete(&url).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (s, _, _) = post(&url, &with("application/json"), call("10", "table")).await;
    assert_eq!(s, 404);
}

#[test]
fn listen_with_upstream_serves_http_clients_from_a_remote_server_with_their_credentials() {
    let (_server, upstream) = http_server();
    let proxy = listen_upstream(&upstream);
    let url = proxy.url.clone();
    for mode in ["legacy", "auto"] {
        let (steps, err) = client(python2(), &strings(&["sdk2", mode, &url, "table", "slow"]));
        assert!(!steps.contains_key("session"), "{mode}: {steps:?} {err}");
        assert_stc_table(&steps["table"], 30);
        assert_eq!(steps["slow"]["progress"], serde_json::json!([1.0, 2.0, 3.0]), "{mode}");
        assert!(steps["connect"]["instructions"].as_str().unwrap().contains("written in STC"), "{mode}");
    }
    let (steps, err) = client(python1(), &strings(&["sdk1", &url, "table"]));
    assert!(!steps.contains_key("session"), "{steps:?} {err}");
    assert_stc_table(&steps["table"], 30);

    // The client's Authorization reaches the remote server, per session.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
        let auth = ("authorization", "Bearer per-client-secret");
        let (s, h, b) = post(&url, &[("accept", "application/json"), auth], init).await;
        assert_eq!(s, 200, "{b}");
        let session = h["mcp-session-id"].to_str().unwrap().to_string();
        let with = [("accept", "application/json"), auth, ("mcp-session-id", session.as_str())];
        let (s, _, _) = post(&url, &with, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        assert_eq!(s, 202);
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_auth","arguments":{}}}"#;
        let (s, _, b) = post(&url, &with, call).await;
        assert_eq!(s, 200);
        let v: Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["result"]["content"][0]["text"], "Bearer per-client-secret", "{b}");
    });
}

/// With `--upstream`, `/readyz` is 503 with a reason while the upstream
/// refuses connections, 200 once it accepts them; `/healthz` is 200 throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_readyz_follows_the_upstream() {
    // A port nothing listens on (bound, then closed).
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let proxy = listen_upstream(&format!("http://127.0.0.1:{free}/mcp"));
    let url = proxy.url.clone();
    let base = url.trim_end_matches("/mcp").to_string();
    assert_eq!(get(&format!("{base}/healthz")).await.0, 200);
    let (s, v) = get(&format!("{base}/readyz")).await;
    assert_eq!(s, 503, "{v}");
    assert_eq!(v["ready"], false);
    assert!(v["reason"].as_str().unwrap().starts_with("the upstream is unreachable"), "{v}");
    // HEAD is answered too, without a body.
    let r = reqwest::Client::new().head(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 503);

    let (_server, upstream) = http_server();
    let proxy = listen_upstream(&upstream);
    let url = proxy.url.clone();
    let base = url.trim_end_matches("/mcp").to_string();
    assert_eq!(get(&format!("{base}/readyz")).await, (200, serde_json::json!({"ready": true})));
}
