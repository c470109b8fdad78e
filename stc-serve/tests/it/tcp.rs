//! The service over real loopback sockets: every action and error code,
//! concurrency, limits, bad lines, shutdown and reload.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};
use stc_serve::{base54, Config, Error, Server};
use tokio::io::AsyncWriteExt;

use super::{config, Client};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stc-serve-tcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn error_code(reply: &Value) -> &str {
    assert_eq!(reply["ok"], false, "{reply}");
    assert!(reply.get("detail").is_some(), "{reply}");
    reply["error"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_action_works_and_reports_honest_savings() {
    let server = Server::start(config()).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;

    assert_eq!(c.ok(json!({"action": "ping"})).await, json!({"message": "pong"}));
    let with_id = c.call(json!({"action": "ping", "id": 7})).await;
    assert_eq!(with_id["id"], 7);

    // prompt: id generated, flags stripped, base64 of the text, context "user: …".
    let p = c
        .ok(json!({"action": "prompt", "text": "Summarize this. **show savings**", "encoding": "utf-8", "language": "en"}))
        .await;
    let id = p["conversation_id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(p["encoded_prompt_b64"], b64("Summarize this."));
    assert_eq!(p["context_b64"], b64("user: Summarize this."));
    assert_eq!(p["savings_request"], json!({"show_savings": true, "show_total": false}));
    assert_eq!(p["tokenizer"], "o200k_base");
    let pt = &p["prompt_tokens"];
    assert_eq!(pt["saved"].as_i64().unwrap(), pt["raw"].as_i64().unwrap() - pt["encoded"].as_i64().unwrap());
    // base64 of a short English sentence costs more tokens than the sentence: said, not hidden.
    assert!(pt["saved"].as_i64().unwrap() < 0, "{pt}");
    assert!(p["savings_note"].as_str().unwrap().contains("more tokens"), "{p}");

    // response: base54 in, text out, the savings object because of the flag.
    let payload = base54::encode("model response".as_bytes());
    assert_eq!(payload, "3eZqDMDdyZBd4ihiB45a"); // Python: int.from_bytes(b, "big") in base 54
    let r = c.ok(json!({"action": "response", "conversation_id": id, "payload_b54": payload})).await;
    assert_eq!(r["decoded_text"], "model response");
    assert_eq!(r["response_b54"], payload);
    assert_eq!(r["context_b64"], b64("user: Summarize this.\nassistant: model response"));
    let s = &r["savings"];
    assert_eq!(s["prompt"], *pt);
    assert_eq!(s["response"], r["response_tokens"]);
    assert_eq!(s["context"], r["context_tokens"]);
    let combined: i64 = ["prompt", "response", "context"].iter().map(|k| s[k]["saved"].as_i64().unwrap()).sum();
    assert_eq!(s["combined_saved"], combined);
    assert_eq!(s["totals"]["combined_saved"], combined);
    assert!(s.get("all_conversations").is_none(), "only with **show total**");
    let tagline = r["tagline"].as_str().unwrap();
    assert!(tagline.starts_with(&format!(
        "Token savings (prompt/response/context/combined): {}/{}/{}/{combined}.",
        s["prompt"]["saved"], s["response"]["saved"], s["context"]["saved"]
    )));
    assert_eq!(r["decoded_text_with_tagline"], format!("model response\n{tagline}"));

    // Flags apply to the next response only; show total adds the running totals.
    c.ok(json!({"action": "prompt", "conversation_id": id, "text": "Again"})).await;
    let r2 = c.ok(json!({"action": "response", "conversation_id": id, "payload_b54": base54::encode(b"ok")})).await;
    assert!(r2.get("savings").is_none() && r2.get("tagline").is_none(), "{r2}");
    c.ok(json!({"action": "prompt", "conversation_id": id, "text": "**SHOW TOTAL** third"})).await;
    let r3 = c.ok(json!({"action": "response", "conversation_id": id, "payload_b54": base54::encode(b"done")})).await;
    let totals = &r3["savings"]["totals"];
    assert!(r3["tagline"].as_str().unwrap().contains(&format!(
        "Token totals (prompt/response/context/combined): {}/{}/{}/{}.",
        totals["prompt"]["saved"], totals["response"]["saved"], totals["context"]["saved"], totals["combined_saved"]
    )));
    assert_eq!(r3["savings"]["all_conversations"], *totals, "one conversation so far");
    let t_combined =
        ["prompt", "response", "context"].iter().map(|k| totals[k]["saved"].as_i64().unwrap()).sum::<i64>();
    assert_eq!(totals["combined_saved"], t_combined);

    // Flags wait for the next response, across prompts.
    c.ok(json!({"action": "prompt", "conversation_id": "flags", "text": "**show savings**"})).await;
    c.ok(json!({"action": "prompt", "conversation_id": "flags", "text": "plain"})).await;
    let rf = c.ok(json!({"action": "response", "conversation_id": "flags", "payload_b54": base54::encode(b"x")})).await;
    assert!(rf["tagline"].as_str().unwrap().starts_with("Token savings"), "{rf}");
    assert_eq!(c.ok(json!({"action": "context_get", "conversation_id": "flags"})).await["turns"], 2);
    c.ok(json!({"action": "context_reset", "conversation_id": "flags"})).await;

    // Reusing the stored encoding; other encodings per conversation.
    let latin = c.ok(json!({"action": "prompt", "conversation_id": "fr-1", "text": "déjà", "encoding": "latin-1", "language": "fr"})).await;
    assert_eq!(latin["encoded_prompt_b64"], base64::engine::general_purpose::STANDARD.encode([0x64, 0xe9, 0x6a, 0xe0]));
    let lr = c
        .ok(json!({"action": "response", "conversation_id": "fr-1", "payload_b54": base54::encode(&[0x6f, 0xf9])}))
        .await;
    assert_eq!(
        (lr["decoded_text"].as_str(), lr["encoding"].as_str(), lr["language"].as_str()),
        (Some("où"), Some("latin-1"), Some("fr"))
    );

    // context_get, one and all.
    let one = c.ok(json!({"action": "context_get", "conversation_id": id})).await;
    assert_eq!(one["context_b64"], b64("user: Summarize this.\nassistant: model response\nuser: Again\nassistant: ok\nuser: third\nassistant: done"));
    assert_eq!(one["turns"], 6);
    let all = c.ok(json!({"action": "context_get"})).await;
    assert_eq!(all["count"], 2);
    let ids: Vec<&str> =
        all["conversations"].as_array().unwrap().iter().map(|c| c["conversation_id"].as_str().unwrap()).collect();
    assert!(ids.contains(&id.as_str()) && ids.contains(&"fr-1"));

    // context_reset.
    assert_eq!(c.ok(json!({"action": "context_reset", "conversation_id": "fr-1"})).await["reset"], true);
    let gone = c.call(json!({"action": "context_get", "conversation_id": "fr-1"})).await;
    assert_eq!(error_code(&gone), "unknown_conversation_id");

    // encode / decode with stc-core on a corpus document.
    let doc = std::fs::read_to_string("../../shared/corpus/github_events.json")
        .or_else(|_| std::fs::read_to_string("/work/shared/corpus/github_events.json"))
        .unwrap();
    let e = c.ok(json!({"action": "encode", "json": doc})).await;
    assert_eq!(e["tokenizer"], "o200k_base");
    let stc = e["stc"].as_str().unwrap();
    match e["chosen"].as_str().unwrap() {
        "stc" => assert!(e["stc_tokens"].as_u64() < e["json_tokens"].as_u64(), "{}", e["stc_tokens"]),
        "json" => assert_eq!(serde_json::from_str::<Value>(stc).unwrap(), serde_json::from_str::<Value>(&doc).unwrap()),
        other => panic!("chosen {other}"),
    }
    let d = c.ok(json!({"action": "decode", "stc": stc})).await;
    let original: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(serde_json::from_str::<Value>(d["json"].as_str().unwrap()).unwrap(), original);
    let table = json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}, {"id": 4, "name": "d"}])
        .to_string();
    let t = c.ok(json!({"action": "encode", "json": table, "profile": "readable", "min_saving": 0})).await;
    assert_eq!(t["chosen"], "stc");
    assert!(t["saved"].as_i64().unwrap() > 0, "{t}");
    assert_eq!(t["saved"].as_i64().unwrap(), t["json_tokens"].as_i64().unwrap() - t["stc_tokens"].as_i64().unwrap());

    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_code_and_the_connection_stays_usable() {
    let cfg = Config { max_context_bytes: 200, max_payload_chars: 40, max_conversations: 2, ..config() };
    let server = Server::start(cfg).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    c.ok(json!({"action": "prompt", "conversation_id": "ascii-1", "text": "hi", "encoding": "ascii"})).await;
    let cases: Vec<(&[u8], &str)> = vec![
        (b"{\"action\": \"ping\"", "invalid_json"),
        (b"\xff\xfe", "invalid_json"),
        (b"[1,2]", "invalid_request"),
        (b"\"ping\"", "invalid_request"),
        (b"{}", "missing_action"),
        (b"{\"action\": 5}", "invalid_field"),
        (b"{\"action\": \"fly\"}", "unknown_action"),
        (b"{\"action\": \"prompt\"}", "missing_text"),
        (b"{\"action\": \"prompt\", \"text\": 5}", "invalid_field"),
        (b"{\"action\": \"prompt\", \"text\": \"x\", \"encoding\": \"ebcdic\"}", "unsupported_encoding"),
        (b"{\"action\": \"prompt\", \"text\": \"caf\xc3\xa9\", \"encoding\": \"ascii\"}", "unencodable_text"),
        (b"{\"action\": \"prompt\", \"conversation_id\": \"ascii-1\", \"text\": \"x\", \"encoding\": \"utf-8\"}", "encoding_mismatch"),
        (b"{\"action\": \"prompt\", \"conversation_id\": \"ascii-1\", \"text\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", "context_full"),
        (b"{\"action\": \"prompt\", \"conversation_id\": 12, \"text\": \"x\"}", "invalid_field"),
        (b"{\"action\": \"response\", \"payload_b54\": \"2\"}", "missing_conversation_id"),
        (b"{\"action\": \"response\", \"conversation_id\": \"ascii-1\"}", "missing_payload_b54"),
        (b"{\"action\": \"response\", \"conversation_id\": \"ascii-1\", \"payload_b64\": \"aGk=\"}", "missing_payload_b54"),
        (b"{\"action\": \"response\", \"conversation_id\": \"ascii-1\", \"payload_b54\": \"3eZqO\"}", "invalid_base54"),
        (b"{\"action\": \"response\", \"conversation_id\": \"ascii-1\", \"payload_b54\": \"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"}", "payload_too_large"),
        (b"{\"action\": \"response\", \"conversation_id\": \"nobody\", \"payload_b54\": \"2\"}", "unknown_conversation_id"),
        (b"{\"action\": \"response\", \"conversation_id\": \"ascii-1\", \"payload_b54\": \"5g\"}", "undecodable_payload"),
        (b"{\"action\": \"context_get\", \"conversation_id\": \"nobody\"}", "unknown_conversation_id"),
        (b"{\"action\": \"context_reset\"}", "missing_conversation_id"),
        (b"{\"action\": \"context_reset\", \"conversation_id\": \"nobody\"}", "unknown_conversation_id"),
        (b"{\"action\": \"encode\"}", "missing_json"),
        (b"{\"action\": \"encode\", \"json\": \"[1,\"}", "invalid_json_input"),
        (b"{\"action\": \"encode\", \"json\": \"[1]\", \"profile\": \"fancy\"}", "invalid_field"),
        (b"{\"action\": \"encode\", \"json\": \"[1]\", \"min_saving\": 2}", "invalid_field"),
        (b"{\"action\": \"decode\"}", "missing_stc"),
        (b"{\"action\": \"decode\", \"stc\": \"[2]: 1\"}", "invalid_stc"),
        (b"{\"action\": \"prompt\", \"conversation_id\": \"second\", \"text\": \"x\"}", ""),
        (b"{\"action\": \"prompt\", \"conversation_id\": \"third\", \"text\": \"x\"}", "too_many_conversations"),
        (b"{\"action\": \"prompt\", \"conversation_id\": \"second\", \"text\": \"again\"}", ""),
    ];
    for (line, code) in cases {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        c.send(&bytes).await;
        let reply = c.recv().await;
        if code.is_empty() {
            assert_eq!(reply["ok"], true, "{} -> {reply}", String::from_utf8_lossy(line));
            continue;
        }
        assert_eq!(error_code(&reply), code, "{} -> {reply}", String::from_utf8_lossy(line));
        assert_eq!(c.ok(json!({"action": "ping"})).await["message"], "pong");
    }
    // Codec errors say what and where.
    let e = c.call(json!({"action": "encode", "json": "{\"a\": [1,\n 2,,]}"})).await;
    assert_eq!(e["detail"]["kind"], "unexpected_char");
    assert_eq!((e["detail"]["line"].as_u64(), e["detail"]["column"].as_u64()), (Some(2), Some(4)), "{e}");
    let d = c.call(json!({"action": "decode", "stc": "[3]: 1,2"})).await;
    assert!(d["detail"]["message"].as_str().unwrap().contains("line 1"), "{d}");
    // invalid_base54 names the character and where it is.
    let b = c.call(json!({"action": "response", "conversation_id": "ascii-1", "payload_b54": "21 0"})).await;
    assert!(b["detail"].as_str().unwrap().contains("position 2"), "{b}");
    // The conversation was not changed by the failed requests.
    let ctx = c.ok(json!({"action": "context_get", "conversation_id": "ascii-1"})).await;
    assert_eq!(ctx["context_b64"], b64("user: hi"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversize_malformed_and_half_written_lines() {
    let cfg = Config { max_line_bytes: 1000, ..config() };
    let server = Server::start(cfg).await.unwrap();
    let addr = server.local_addr();
    let mut c = Client::connect(addr).await;

    // Oversize: reported at once, the rest of the line dropped, the next line served.
    let mut big = br#"{"action":"prompt","text":""#.to_vec();
    big.extend(std::iter::repeat_n(b'x', 5000));
    c.send(&big).await;
    assert_eq!(error_code(&c.recv().await), "line_too_long");
    c.send(&[b'y'; 3000]).await;
    c.send(b"\"}\n{\"action\":\"ping\"}\n").await;
    assert_eq!(c.recv().await["result"]["message"], "pong");
    // Exactly at the limit is fine.
    let mut exact = br#"{"action":"ping","pad":""#.to_vec();
    exact.resize(1000 - 2, b' ');
    exact.extend(b"\"}\n");
    c.send(&exact).await;
    assert_eq!(c.recv().await["ok"], true);

    // Blank lines are skipped, CRLF accepted, garbage answered and survived.
    c.send(b"\n  \r\n{\"action\":\"ping\"}\r\n\x00\x01garbage\n{\"action\":\"ping\"}\n").await;
    assert_eq!(c.recv().await["ok"], true);
    assert_eq!(error_code(&c.recv().await), "invalid_json");
    assert_eq!(c.recv().await["ok"], true);

    // Half-written line, then the client stops writing: not executed.
    let mut h = Client::connect(addr).await;
    h.send(b"{\"action\":\"ping\"}\n{\"action\":\"prompt\",\"conversation_id\":\"half\",\"te").await;
    h.write.shutdown().await.unwrap();
    assert_eq!(h.recv().await["ok"], true);
    let reply = h.recv().await;
    assert_eq!(error_code(&reply), "incomplete_line");
    h.assert_eof().await;
    let gone = c.call(json!({"action": "context_get", "conversation_id": "half"})).await;
    assert_eq!(error_code(&gone), "unknown_conversation_id");

    // A complete JSON object without the final newline is executed.
    let mut f = Client::connect(addr).await;
    f.send(br#"{"action":"prompt","conversation_id":"final","text":"last words"}"#).await;
    f.write.shutdown().await.unwrap();
    assert_eq!(f.recv().await["result"]["conversation_id"], "final");
    f.assert_eof().await;

    // A client that disconnects mid-line does not disturb anyone.
    let mut d = Client::connect(addr).await;
    d.send(b"{\"action\":\"pro").await;
    drop(d);
    assert_eq!(c.ok(json!({"action": "context_get", "conversation_id": "final"})).await["turns"], 1);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_clients() {
    let server = Server::start(config()).await.unwrap();
    let addr = server.local_addr();
    let mut tasks = Vec::new();
    for i in 0..50 {
        tasks.push(tokio::spawn(async move {
            let mut c = Client::connect(addr).await;
            let id = format!("client-{i}");
            for round in 0..4 {
                let text = format!("prompt {round} from {i}");
                let p = c.ok(json!({"action": "prompt", "conversation_id": id, "text": text})).await;
                assert_eq!(p["encoded_prompt_b64"], b64(&text));
                let answer = format!("answer {round} to {i} ✓");
                let r = c
                    .ok(json!({"action": "response", "conversation_id": id, "payload_b54": base54::encode(answer.as_bytes())}))
                    .await;
                assert_eq!(r["decoded_text"], answer);
            }
            let ctx = c.ok(json!({"action": "context_get", "conversation_id": id})).await;
            assert_eq!(ctx["turns"], 8);
            let text = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(ctx["context_b64"].as_str().unwrap()).unwrap()).unwrap();
            assert!(text.ends_with(&format!("assistant: answer 3 to {i} ✓")), "{text}");
            assert_eq!(text.matches(&format!(" from {i}\n")).count(), 4, "no other client's turns: {text}");
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut c = Client::connect(addr).await;
    let all = c.ok(json!({"action": "context_get"})).await;
    assert_eq!(all["count"], 50);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_limit_and_idle_timeout() {
    let cfg = Config { max_connections: 2, ..config() };
    let server = Server::start(cfg).await.unwrap();
    let addr = server.local_addr();
    let mut a = Client::connect(addr).await;
    let mut b = Client::connect(addr).await;
    a.ok(json!({"action": "ping"})).await;
    b.ok(json!({"action": "ping"})).await;
    let mut extra = Client::connect(addr).await;
    let refused = extra.recv().await;
    assert_eq!(error_code(&refused), "too_many_connections");
    extra.assert_eof().await;
    a.ok(json!({"action": "ping"})).await;
    // A closed connection frees its place (the server notices the close asynchronously).
    drop(b);
    let mut served = false;
    for _ in 0..500 {
        let mut c = Client::connect(addr).await;
        let reply = c.call(json!({"action": "ping"})).await;
        if reply["ok"] == true {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(served, "the freed place was never given to a new connection");
    server.shutdown().await.unwrap();

    let cfg = Config { idle_timeout: Duration::from_millis(300), ..config() };
    let server = Server::start(cfg).await.unwrap();
    // A client that connects and says nothing is told why, then closed.
    let mut quiet = Client::connect(server.local_addr()).await;
    let reply = quiet.recv().await;
    assert_eq!(error_code(&reply), "idle_timeout");
    quiet.assert_eof().await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_saves_and_start_reloads() {
    let dir = temp_dir("reload");
    let file = dir.join("memory").join("ctx.json");
    // A save interval far beyond the test: only the shutdown can write the file.
    let cfg = Config { context_file: Some(file.clone()), save_interval: Duration::from_secs(3600), ..config() };
    let server = Server::start(cfg.clone()).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    let p = c.ok(json!({"action": "prompt", "text": "remember me **show total**", "encoding": "utf-16"})).await;
    let id = p["conversation_id"].as_str().unwrap().to_owned();
    let payload = base54::encode(&stc_serve::charset::Charset::Utf16.encode("bien sûr").unwrap());
    c.ok(json!({"action": "response", "conversation_id": id, "payload_b54": payload})).await;
    let before = c.ok(json!({"action": "context_get", "conversation_id": id})).await;
    server.shutdown().await.unwrap();
    c.assert_eof().await;
    assert!(file.exists());

    let server = Server::start(cfg).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    let after = c.ok(json!({"action": "context_get", "conversation_id": id})).await;
    assert_eq!(after, before);
    assert_eq!(after["encoding"], "utf-16");
    let all = c.ok(json!({"action": "context_get"})).await;
    assert_eq!(all["totals"]["combined_saved"], before_totals(&all));
    server.shutdown().await.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

fn before_totals(all: &Value) -> i64 {
    let t = &all["totals"];
    ["prompt", "response", "context"].iter().map(|k| t[k]["saved"].as_i64().unwrap()).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_context_file_and_remote_address_are_refused() {
    let dir = temp_dir("corrupt");
    let file = dir.join("ctx.json");
    std::fs::write(&file, b"{\"format\":\"stc-serve-context\",\"version\":1,\"conversations\":{\"a\":").unwrap();
    let err = Server::start(Config { context_file: Some(file.clone()), ..config() }).await.err().unwrap();
    assert!(matches!(err, Error::Load(_)), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("ctx.json") && msg.contains("line 1") && msg.contains("move it aside"), "{msg}");
    // The file is left as it was, for the user to inspect.
    assert!(std::fs::read(&file).unwrap().ends_with(b"\"a\":"));

    let zero = Config { save_interval: Duration::ZERO, ..config() };
    assert!(matches!(Server::start(zero).await, Err(Error::Config(_))));
    let remote = Config { addr: "0.0.0.0:0".parse().unwrap(), ..config() };
    let err = Server::start(remote).await.err().unwrap();
    assert!(matches!(err, Error::RemoteRefused(_)), "{err}");
    assert!(err.to_string().contains("--allow-remote"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A client written in Python from the seed and the README (its own base54),
/// run as a real process against the service.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_written_from_the_seed() {
    let server = Server::start(config()).await.unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/seed_client.py");
    let port = server.local_addr().port().to_string();
    let out = tokio::task::spawn_blocking(move || std::process::Command::new("python3").arg(script).arg(port).output())
        .await
        .unwrap()
        .expect("python3 (scripts/prereqs/40-serve.sh installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "seed_client: ok");
    server.shutdown().await.unwrap();
}
