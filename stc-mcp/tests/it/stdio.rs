//! The stdio proxy as a library: `proxy::run_with` between in-process
//! pipes (`tokio::io::duplex`) and a real child process.

use std::time::Duration;

use super::peers::{table_json, tool_response};
use serde_json::Value;
use stc_core::Version;
use stc_mcp::proxy::StashOptions;
use stc_mcp::stash::StoreSpec;
use stc_mcp::{ProxyExit, ProxyOptions};
use stc_stash::{MarkerSecret, PlanOptions, ToolName, TruncateOptions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// `proxy::run_with` on a task, its client side as two pipe ends.
struct Piped {
    to_proxy: Option<WriteHalf<DuplexStream>>,
    from_proxy: BufReader<ReadHalf<DuplexStream>>,
    task: tokio::task::JoinHandle<Result<ProxyExit, stc_mcp::ProxyError>>,
}

impl Piped {
    fn start(options: ProxyOptions) -> Piped {
        let (client, proxy) = tokio::io::duplex(1 << 20);
        let (proxy_in, proxy_out) = tokio::io::split(proxy);
        let task = tokio::spawn(stc_mcp::proxy::run_with(options, proxy_in, proxy_out));
        let (from_proxy, to_proxy) = tokio::io::split(client);
        Piped { to_proxy: Some(to_proxy), from_proxy: BufReader::new(from_proxy), task }
    }

    /// Sends one line and returns the next line that comes back (without its newline).
    async fn echo(&mut self, line: &str) -> String {
        self.send(line).await;
        self.recv().await
    }

    async fn send(&mut self, line: &str) {
        let to = self.to_proxy.as_mut().unwrap();
        to.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        to.flush().await.unwrap();
    }

    /// The next line from the proxy (without its newline).
    async fn recv(&mut self) -> String {
        let mut back = String::new();
        let n = tokio::time::timeout(Duration::from_secs(30), self.from_proxy.read_line(&mut back))
            .await
            .expect("no line back within 30 s")
            .unwrap();
        assert!(n > 0, "the proxy closed its output");
        back.truncate(back.trim_end_matches(['\r', '\n']).len());
        back
    }

    /// Closes the client's side (EOF on the proxy's input); how the proxy ended.
    async fn close(mut self) -> ProxyExit {
        // EOF for the proxy's input (dropping one half of a split pipe is not).
        let mut to = self.to_proxy.take().unwrap();
        to.shutdown().await.unwrap();
        tokio::time::timeout(Duration::from_secs(30), self.task).await.expect("the proxy did not end").unwrap().unwrap()
    }
}

fn written_key(text: &str) -> String {
    let at = text.find("with key=").expect("a retrieve instruction") + "with key=".len();
    text[at..].chars().take_while(|c| c.is_ascii_hexdigit() || *c == '.').collect()
}

fn canonical(text: &str) -> String {
    stc_core::decode_with(text, &stc_core::DecodeOptions::default().version(Version::V2))
        .unwrap_or_else(|e| panic!("not STC: {e}: {text:.200}"))
}

/// Framing and pass-through, with `cat` as the server (every line comes
/// back through the proxy's server side): lines that are not JSON-RPC pass
/// byte for byte, tracked `tools/call` responses become STC (ids matched by
/// value, answered once), untracked and error responses, too-deep and
/// oversize lines pass unchanged, batches are treated per element, the
/// `initialize` result gets the primer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_framing_passthrough_batches_ids_and_oversize_lines() {
    let mut options = ProxyOptions::new("cat", Vec::new());
    options.max_message_bytes = 4000;
    options.engine.rewrite.version = Version::V2;
    let mut raw = Piped::start(options);
    let table = table_json(30);
    let call = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t"}}}}"#);

    // Lines that are not JSON-RPC, and messages the proxy does not change, come back byte for byte.
    for line in [
        "not JSON at all {",
        r#"{ "jsonrpc" : "2.0", "method" : "notifications/progress", "params" : {"p": 1.0e0} }"#,
        "[1, 2, 3]",
        "",
    ] {
        assert_eq!(raw.echo(line).await, line);
    }

    // A tracked tools/call (string id): its response text becomes STC, keyed by an equivalent id spelling.
    assert_eq!(raw.echo(&call(r#""a""#)).await, call(r#""a""#));
    let back = raw.echo(&tool_response(r#""\u0061""#, &table)).await;
    let v: Value = serde_json::from_str(&back).unwrap();
    let stc = v["result"]["content"][0]["text"].as_str().unwrap();
    assert!(stc.starts_with("([30]{id,name,v}:"), "{back:.200}");
    assert_eq!(canonical(stc), table);
    assert!(back.starts_with(r#"{"jsonrpc":"2.0","id":"\u0061","result":"#));
    // Answered once: a second response with the same id is not tracked any more.
    let again = tool_response(r#""a""#, &table);
    assert_eq!(raw.echo(&again).await, again);

    // Responses nobody asked for, error responses, deep nesting and oversize lines pass unchanged.
    let untracked = tool_response("99", &table);
    assert_eq!(raw.echo(&untracked).await, untracked);
    raw.echo(&call("9")).await;
    let error = r#"{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"[{\"a\":1}]"}}"#;
    assert_eq!(raw.echo(error).await, error);
    raw.echo(&call("10")).await;
    // Deeper than the parser's limit (128): not parsed as JSON, so left as it is.
    let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let deep_response = tool_response("10", &deep);
    assert!(deep_response.len() < 4000);
    assert_eq!(raw.echo(&deep_response).await, deep_response);
    // Longer than --max-message-bytes: forwarded in parts, not inspected.
    raw.echo(&call("11")).await;
    let big = tool_response("11", &table_json(200));
    assert!(big.len() > 4000);
    assert_eq!(raw.echo(&big).await, big);

    // A batch: each tracked element is treated on its own.
    let batch_call = format!("[{},{}]", call("20"), r#"{"jsonrpc":"2.0","id":21,"method":"tools/list"}"#);
    assert_eq!(raw.echo(&batch_call).await, batch_call);
    let list = r#"{"jsonrpc":"2.0","id":21,"result":{"tools":[]}}"#;
    let batch = format!("[{}, {list}]", tool_response("20", &table));
    let back = raw.echo(&batch).await;
    let v: Value = serde_json::from_str(&back).unwrap();
    assert_eq!(canonical(v[0]["result"]["content"][0]["text"].as_str().unwrap()), table);
    assert!(v[0]["result"]["content"][0]["text"].as_str().unwrap().starts_with("([30]{"));
    assert!(back.ends_with(&format!(", {list}]")));

    // The initialize response gets the primer, even when the server sends no instructions.
    raw.echo(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}"#).await;
    let back = raw.echo(r#"{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-06-18"}}"#).await;
    let v: Value = serde_json::from_str(&back).unwrap();
    assert_eq!(v["result"]["instructions"], stc_mcp::STC_PRIMER_V2);
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");

    let exit = raw.close().await;
    assert!(exit.client_closed && exit.child_status.is_some_and(|s| s.success()), "{exit:?}");
}

/// A server that ignores the end of its input is killed after the grace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_kills_a_server_that_ignores_the_end_of_its_input() {
    let mut options = ProxyOptions::new("sleep", vec!["600".into()]);
    options.shutdown_grace = Duration::from_millis(200);
    let raw = Piped::start(options);
    let started = std::time::Instant::now();
    let exit = raw.close().await;
    // Killed after the grace: no status of its own, the client had closed first.
    assert!(exit.client_closed, "{exit:?}");
    assert!(exit.child_status.is_some_and(|s| !s.success()), "{exit:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}

/// With truncation on, the retrieve tool is added to `tools/list`, a long
/// array is cut with a marker naming it, and a retrieve call inside a batch
/// is answered by the proxy itself while the rest of the batch goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_answers_retrieve_calls_itself_also_inside_a_batch() {
    let mut options = ProxyOptions::new("cat", Vec::new());
    options.engine.rewrite.version = Version::V2;
    options.engine.stash = Some(StashOptions {
        store: StoreSpec::Memory,
        truncate: TruncateOptions {
            plan: PlanOptions::with_array_budget(4),
            tokenizer: stc_core::Tokenizer::O200kBase,
            version: Version::V2,
            ..TruncateOptions::default()
        },
        tool: ToolName::new("get_more").unwrap(),
        secret: MarkerSecret::from_material(b"a test secret of 32 bytes or so.").unwrap(),
        auto_budget: false,
    });
    let mut raw = Piped::start(options);
    // tools/list (echoed by cat, then its "response" written by the test): the tool is appended.
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
    raw.recv().await;
    raw.send(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#).await;
    let list: Value = serde_json::from_str(&raw.recv().await).unwrap();
    assert_eq!(list["result"]["tools"][1]["name"], "get_more");
    // A tool result with 100 rows is cut to 4, the marker names get_more.
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#).await;
    raw.recv().await;
    let table = table_json(100);
    raw.send(&tool_response("2", &table)).await;
    let back: Value = serde_json::from_str(&raw.recv().await).unwrap();
    let text = back["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("items[4]{id,name,v}:"), "{text}");
    let key = written_key(text);
    assert!(key.starts_with(&stc_stash::references_in(text)[0].to_string()));
    // A batch of a retrieve call and a ping: the proxy answers the first, cat echoes only the ping.
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{{"name":"get_more","arguments":{{"key":"{key}"}}}}}},{{"jsonrpc":"2.0","id":"p","method":"ping"}}]"#
    );
    raw.send(&batch).await;
    let first: Value = serde_json::from_str(&raw.recv().await).unwrap();
    assert_eq!(first["id"], "r");
    assert_eq!(first["result"]["content"][0]["text"], table.as_str());
    let echoed = raw.recv().await;
    assert_eq!(echoed, r#"[{"jsonrpc":"2.0","id":"p","method":"ping"}]"#);
    let exit = raw.close().await;
    assert!(exit.child_status.is_some_and(|s| s.success()), "{exit:?}");
}
