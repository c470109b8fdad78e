//! `/metrics` of `stc mcp-proxy --listen`, in the Prometheus text format
//! (OpenMetrics, through `prometheus-client`): per tool, the calls answered
//! over HTTP, the bytes of their responses as sent (after the proxy's
//! rewrite), and the time from the POST to the response.
//!
//! Beside them, the engine's totals ([`crate::rewrite::RewriteStats`]: text
//! blocks rewritten, their bytes before and after, blocks truncated) and its
//! savings ledger per tool ([`crate::engine::LedgerSnapshot`]: calls, tokens
//! in and out by the ledger's tokenizer, truncations, retrieves).

use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabel {
    method: String,
}

/// The counters, and the registry that renders them.
pub struct Metrics {
    registry: Registry,
    calls: Family<ToolLabel, Counter>,
    bytes: Family<ToolLabel, Counter>,
    errors: Family<ToolLabel, Counter>,
    requests: Family<MethodLabel, Counter>,
    seconds: Histogram,
    engine: [Gauge; 4],
    ledger: [Family<ToolLabel, Gauge>; 6],
    render_lock: Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("stc_mcp_proxy");
        let calls = Family::<ToolLabel, Counter>::default();
        let bytes = Family::<ToolLabel, Counter>::default();
        let errors = Family::<ToolLabel, Counter>::default();
        let requests = Family::<MethodLabel, Counter>::default();
        let seconds = Histogram::new([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0]);
        registry.register("tool_calls", "tools/call requests answered over HTTP, by tool", calls.clone());
        registry.register(
            "tool_response_bytes",
            "Bytes of tools/call responses as sent to HTTP clients (after the rewrite), by tool",
            bytes.clone(),
        );
        registry.register("tool_errors", "tools/call answered with a JSON-RPC error, by tool", errors.clone());
        registry.register(
            "requests",
            "JSON-RPC requests answered over HTTP, tools/call counted as one method",
            requests.clone(),
        );
        registry.register("request_seconds", "Time from a POST to its response", seconds.clone());
        let engine: [Gauge; 4] = Default::default();
        let names = [
            ("rewritten_blocks", "Text blocks the engine replaced by STC"),
            ("rewritten_bytes_before", "Bytes of the text blocks replaced"),
            ("rewritten_bytes_after", "Bytes of the STC that replaced them"),
            ("truncated_blocks", "Text blocks cut with the stash"),
        ];
        for ((name, help), gauge) in names.into_iter().zip(&engine) {
            registry.register(name, help, gauge.clone());
        }
        let ledger: [Family<ToolLabel, Gauge>; 6] = Default::default();
        let names = [
            ("ledger_calls", "The engine's ledger: tools/call results settled, by tool"),
            ("ledger_tokens_in", "The engine's ledger: tokens of the results as the server sent them, by tool"),
            ("ledger_tokens_out", "The engine's ledger: tokens of the results as sent to the client, by tool"),
            ("ledger_blocks_rewritten", "The engine's ledger: text blocks rewritten, by tool"),
            ("ledger_truncations", "The engine's ledger: results cut with the stash, by tool"),
            ("ledger_retrieves", "The engine's ledger: retrieve calls answered, by tool"),
        ];
        for ((name, help), family) in names.into_iter().zip(&ledger) {
            registry.register(name, help, family.clone());
        }
        Metrics { registry, calls, bytes, errors, requests, seconds, engine, ledger, render_lock: Mutex::new(()) }
    }
}

impl Metrics {
    /// Counts one answered request (`tool` for a `tools/call`).
    pub fn record(&self, tool: Option<&str>, response: &str, elapsed: Duration) {
        self.seconds.observe(elapsed.as_secs_f64());
        let method = if tool.is_some() { "tools/call" } else { "other" };
        self.requests.get_or_create(&MethodLabel { method: method.to_string() }).inc();
        if let Some(tool) = tool {
            let label = ToolLabel { tool: tool.chars().take(128).collect() };
            self.calls.get_or_create(&label).inc();
            self.bytes.get_or_create(&label).inc_by(response.len() as u64);
            if response.contains("\"error\":{") && !response.contains("\"result\":") {
                self.errors.get_or_create(&label).inc();
            }
        }
    }

    /// The text exposition, with the engine's totals `stats`.
    pub fn render(&self, stats: &crate::rewrite::RewriteStats, ledger: &crate::engine::LedgerSnapshot) -> String {
        let _g = self.render_lock.lock();
        for (tool, c) in &ledger.tools {
            let label = ToolLabel { tool: tool.chars().take(128).collect() };
            let values = [c.calls, c.tokens_in, c.tokens_out, c.blocks_rewritten, c.truncations, c.retrieves];
            for (family, v) in self.ledger.iter().zip(values) {
                family.get_or_create(&label).set(i64::try_from(v).unwrap_or(i64::MAX));
            }
        }
        let values = [stats.blocks, stats.bytes_before, stats.bytes_after, stats.truncated];
        for (gauge, v) in self.engine.iter().zip(values) {
            gauge.set(i64::try_from(v).unwrap_or(i64::MAX));
        }
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}
