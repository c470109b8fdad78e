#!/usr/bin/env bash
# The fleet's figures for bench/REPORT.md, section "Several gateways behind a
# load balancer": throughput and p50/p99 of `stc proxy` and `stc mcp-proxy
# --listen` alone, behind HAProxy with one process, and with two
# (stc-cli/tests/fleet/figures.rs); stash and retrieve latency on one Redis
# server against a Redis Cluster, and the time a failover stalls writes
# (stc-stash/examples/cluster_latency.rs). Release builds; needs haproxy,
# redis-server and redis-cli (scripts/prereqs/20-redis.sh, 70-fleet.sh) and
# target/mcp2-venv (scripts/prereqs/30-mcp.sh). Prints Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
for prereq in scripts/prereqs/20-redis.sh scripts/prereqs/30-mcp.sh scripts/prereqs/70-fleet.sh; do
  bash "$prereq" >&2
done
echo "## Several gateways behind a load balancer"
echo
echo "\`bash bench/fleet.sh\` at $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d), $(nproc) cores; load generator, HAProxy, gateways and upstreams share the machine."
echo
RUST_LOG=warn cargo test --release -q -p stc-cli --test fleet figures -- --ignored --nocapture 2>/dev/null \
  | sed -n '/^`stc proxy`/,/^test result/p' | grep -v '^test result' | grep -v '^\.$'
echo
cargo run --release -q -p stc-stash --example cluster_latency
