//! The Streamable HTTP options of `stc mcp-proxy` (`--listen`, `--upstream`):
//! a thin front-end of `stc_mcp::http`.
//!
//! `--upstream URL` (without `--listen`) runs the stdio proxy with this same
//! binary as its child (`stc mcp-proxy --bridge URL`, hidden), the bridge that
//! speaks HTTP to the remote server; extra headers reach the bridge through
//! its environment, never its command line. With `--listen` too, the bridges
//! run in-process, one per HTTP session.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use stc_mcp::http::listen::ListenOptions;
use stc_mcp::http::upstream::UpstreamOptions;
use stc_mcp::{ProxyExit, ProxyOptions};

/// Environment variable that carries `--upstream-header`s to the bridge (JSON `[[name, value], …]`).
const HEADERS_ENV: &str = "STC_MCP_BRIDGE_HEADERS";

#[derive(clap::Args)]
pub struct McpHttpArgs {
    /// Serve MCP's Streamable HTTP at http://ADDR/mcp (and /metrics) instead of stdio.
    #[arg(long, value_name = "ADDR", env = "STC_MCP_PROXY_LISTEN")]
    listen: Option<SocketAddr>,
    /// Allow a --listen address that is not loopback (and any Host header).
    #[arg(long, env = "STC_MCP_PROXY_ALLOW_REMOTE", value_parser = clap::builder::BoolishValueParser::new())]
    allow_remote: bool,
    /// An Origin accepted besides loopback ones, e.g. https://app.example (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN", env = "STC_MCP_PROXY_ALLOW_ORIGINS", value_delimiter = ',')]
    allow_origins: Vec<String>,
    /// Largest HTTP request body accepted with --listen, in bytes.
    #[arg(long, default_value_t = 4 * 1024 * 1024, value_name = "BYTES", env = "STC_MCP_PROXY_MAX_BODY")]
    max_body: usize,
    /// Seconds an HTTP request may wait for the server's answer.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS", value_parser = crate::args::seconds, env = "STC_MCP_PROXY_REQUEST_TIMEOUT")]
    request_timeout: f64,
    /// Wrap a remote MCP server (Streamable HTTP, http:// or https://) instead of a command.
    #[arg(long, value_name = "URL", env = "STC_MCP_PROXY_UPSTREAM")]
    pub upstream: Option<String>,
    /// A PEM file of CA certificates to trust for an https:// upstream, on top of the system's roots.
    #[arg(long, value_name = "FILE", env = "STC_MCP_PROXY_UPSTREAM_CA")]
    upstream_ca: Option<PathBuf>,
    /// A header sent with every request to the upstream, `Name: value` (repeatable;
    /// e.g. Authorization). Never logged.
    #[arg(
        long = "upstream-header",
        value_name = "HEADER",
        env = "STC_MCP_PROXY_UPSTREAM_HEADERS",
        value_delimiter = '\n',
        hide_env_values = true
    )]
    upstream_headers: Vec<String>,
    /// Seconds to wait for the upstream's answer, and between two chunks of it.
    #[arg(long, default_value_t = 300.0, value_name = "SECONDS", value_parser = crate::args::seconds, env = "STC_MCP_PROXY_UPSTREAM_TIMEOUT")]
    upstream_timeout: f64,
    /// Internal: run the stdio-to-HTTP bridge for this URL.
    #[arg(long, hide = true, value_name = "URL")]
    pub bridge: Option<String>,
}

/// The flag's seconds (checked by `args::seconds` when parsed) as a duration.
fn seconds(name: &str, s: f64) -> Result<Duration, String> {
    stc_core::Seconds::try_from(s).map(stc_core::Seconds::duration).map_err(|e| format!("{name}: {e}"))
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| "--upstream-header must be `Name: value`".to_string())?;
    let (name, value) = (name.trim(), value.trim());
    http_ok(name, value)?;
    Ok((name.to_string(), value.to_string()))
}

fn http_ok(name: &str, value: &str) -> Result<(), String> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(format!("--upstream-header: {name:?} is not a header name"));
    }
    if value.bytes().any(|b| b < 0x20 && b != b'\t' || b == 0x7f) {
        // The value is never echoed.
        return Err(format!("--upstream-header {name}: the value has control characters"));
    }
    Ok(())
}

/// `--bridge URL`: runs the bridge and returns its exit code.
pub fn run_bridge(args: &McpHttpArgs, max_message_bytes: usize) -> Option<ExitCode> {
    let url = args.bridge.as_ref()?;
    let fail = |m: String| {
        eprintln!("stc mcp-proxy: {m}");
        Some(ExitCode::FAILURE)
    };
    let url = match url.parse() {
        Ok(u) => u,
        Err(e) => return fail(format!("--upstream {url:?}: {e}")),
    };
    let mut options = UpstreamOptions::new(url);
    options.ca = args.upstream_ca.clone();
    options.max_message_bytes = max_message_bytes;
    match seconds("--upstream-timeout", args.upstream_timeout) {
        Ok(t) => options.body_timeout = t,
        Err(e) => return fail(e),
    }
    if let Some(json) = std::env::var_os(HEADERS_ENV) {
        let pairs: Vec<(String, String)> = serde_json::from_str(&json.to_string_lossy()).unwrap_or_default();
        for (n, v) in pairs {
            if let (Ok(n), Ok(v)) = (http::HeaderName::from_bytes(n.as_bytes()), http::HeaderValue::from_str(&v)) {
                let mut v = v;
                v.set_sensitive(true);
                options.headers.push((n, v));
            }
        }
    }
    let bridged = crate::runtime::block_on_detached(stc_mcp::http::upstream::run(options))
        .map_err(|e| format!("cannot start the runtime: {e}"))
        .and_then(|r| r.map_err(|e| e.to_string()));
    Some(match bridged {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc mcp-proxy: {e}");
            ExitCode::FAILURE
        }
    })
}

/// The child to run: the command after `--`, or, with `--upstream`, this
/// binary as the bridge (checked first, so a bad URL or CA file is reported
/// before anything starts).
pub fn command(args: &McpHttpArgs, command: Vec<OsString>, max_message_bytes: usize) -> Result<Vec<OsString>, String> {
    let Some(url) = &args.upstream else {
        if args.upstream_ca.is_some() || !args.upstream_headers.is_empty() {
            return Err("--upstream-ca and --upstream-header need --upstream".into());
        }
        return Ok(command);
    };
    if !command.is_empty() {
        return Err("give either --upstream URL or a server command after --, not both".into());
    }
    let uri = url.parse().map_err(|e| format!("--upstream {url:?}: {e}"))?;
    let mut check = UpstreamOptions::new(uri);
    check.ca = args.upstream_ca.clone();
    stc_mcp::http::upstream::check(&check).map_err(|e| e.to_string())?;
    seconds("--upstream-timeout", args.upstream_timeout)?;
    let headers = args.upstream_headers.iter().map(|h| parse_header(h)).collect::<Result<Vec<_>, _>>()?;
    if !headers.is_empty() {
        // Read by the bridge at start; the proxy spawns it with this environment.
        std::env::set_var(HEADERS_ENV, serde_json::to_string(&headers).map_err(|e| e.to_string())?);
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the stc binary for the bridge: {e}"))?;
    let mut out: Vec<OsString> = vec![exe.into(), "mcp-proxy".into(), "--bridge".into(), url.into()];
    if let Some(ca) = &args.upstream_ca {
        out.push("--upstream-ca".into());
        out.push(ca.into());
    }
    out.push("--upstream-timeout".into());
    out.push(args.upstream_timeout.to_string().into());
    out.push("--max-message-bytes".into());
    out.push(max_message_bytes.to_string().into());
    Ok(out)
}

impl McpHttpArgs {
    /// Whether the proxy serves HTTP (`--listen`) rather than stdio.
    pub fn listens(&self) -> bool {
        self.listen.is_some()
    }
}

/// Runs the proxy: over stdio, or serving HTTP with `--listen` (`drain_grace`:
/// `--shutdown-grace` there, default [`ListenOptions::new`]'s).
pub fn run(args: &McpHttpArgs, proxy: ProxyOptions, drain_grace: Option<Duration>) -> Result<ProxyExit, String> {
    let Some(listen) = args.listen else {
        return crate::runtime::block_on_detached(stc_mcp::proxy::run(proxy))
            .map_err(|e| format!("cannot start the runtime: {e}"))?
            .map_err(|e| e.to_string());
    };
    let mut options = ListenOptions::new(listen);
    options.allow_remote = args.allow_remote;
    options.allowed_origins = args.allow_origins.clone();
    options.max_body = args.max_body;
    options.request_timeout = seconds("--request-timeout", args.request_timeout)?;
    options.drain_grace = drain_grace.unwrap_or(options.drain_grace);
    if let Some(url) = &args.upstream {
        // HTTP both sides: no bridge process; each HTTP session gets its own
        // upstream session, and the clients' credentials go along.
        let mut up = UpstreamOptions::new(url.parse().map_err(|e| format!("--upstream {url:?}: {e}"))?);
        up.ca = args.upstream_ca.clone();
        up.body_timeout = seconds("--upstream-timeout", args.upstream_timeout)?;
        up.max_message_bytes = proxy.max_message_bytes;
        for h in &args.upstream_headers {
            let (n, v) = parse_header(h)?;
            let n = http::HeaderName::from_bytes(n.as_bytes()).map_err(|e| e.to_string())?;
            let mut v = http::HeaderValue::from_str(&v).map_err(|_| format!("--upstream-header {n}: a bad value"))?;
            v.set_sensitive(true);
            up.headers.push((n, v));
        }
        options.upstream = Some(up);
    }
    // Detached: a readiness check stuck on an unreachable store must not hold
    // the exit once the drain is over.
    crate::runtime::block_on_detached(serve_http(proxy, options))
        .map_err(|e| format!("cannot start the runtime: {e}"))?
}

/// Serves `--listen` until SIGTERM/SIGINT or the child's end. Prints
/// `stc mcp-proxy: listening on http://ADDR/mcp` on stdout once it accepts
/// connections.
async fn serve_http(proxy: ProxyOptions, options: ListenOptions) -> Result<ProxyExit, String> {
    let shutdown = crate::runtime::shutdown_signal().map_err(|e| format!("cannot install the signal handlers: {e}"))?;
    let listener = stc_mcp::http::listen::bind(&options).await.map_err(|e| e.to_string())?;
    let announce = |addr| {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "stc mcp-proxy: listening on http://{addr}/mcp");
        let _ = out.flush();
    };
    stc_mcp::http::listen::serve(listener, proxy, options, shutdown, announce).await.map_err(|e| e.to_string())
}
