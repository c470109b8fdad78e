//! Several gateways behind a real load balancer: HAProxy (Debian's package,
//! installed by scripts/prereqs/70-fleet.sh) in front of two `stc proxy`
//! processes and two `stc mcp-proxy --listen` processes, with one Redis
//! stash shared by the MCP gateways. Every process is started here and
//! killed on drop; everything listens on 127.0.0.1; load is bounded in
//! count and time.
//!
//! What it shows: requests spread over the processes; `kill -9` of one
//! process under load fails only requests that were in flight (none once
//! the load balancer's health check has seen it go); a rolling restart with
//! SIGTERM fails no request; a marker shown by one MCP gateway is retrieved
//! through the other. `figures` (ignored: not a check) measures the cost of
//! the extra hop for bench/REPORT.md.

mod figures;
mod harness;
mod http;
mod mcp;
