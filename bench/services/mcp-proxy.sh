#!/usr/bin/env bash
# MCP proxy benchmark: per-call overhead of `stc mcp-proxy` (p50/p99, the same
# tool calls made directly and through the proxy, also with --budget) and the
# o200k_base tokens saved on corpus documents served as MCP tool results:
# default gated output, o200k_base gate, --keep-json-text, and --budget 1000
# (stash truncation; every marker retrieved through the proxy's tool).
#
#   bash bench/services/mcp-proxy.sh STC_BINARY OUTPUT.md
#
# The MCP server is stc-mcp/tests/fixtures/fixture_server.py (official Python
# SDK, FastMCP); the client is stc-mcp/bench/mcp_client.py (raw JSON-RPC lines
# over pipes). Loopback pipes only, MCP_BENCH_CALLS calls per case (default
# 300), every step under `timeout`. Needs scripts/prereqs/30-mcp.sh (run here).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: bash bench/services/mcp-proxy.sh STC_BINARY OUTPUT.md" >&2; exit 2; }
STC="$(realpath "$1")"
OUTPUT="$(realpath -m "$2")"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="$(realpath "${STC_CORPUS:-$ROOT/../shared/corpus}")"
CALLS="${MCP_BENCH_CALLS:-300}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"

bash scripts/prereqs/30-mcp.sh >/dev/null
PY="${STC_MCP_PYTHON:-$ROOT/target/mcp-venv/bin/python}"
FIX=stc-mcp/tests/fixtures/fixture_server.py
CLIENT=stc-mcp/bench/mcp_client.py
cargo build --release --quiet -p stc-mcp --example count_tokens
COUNT="$TARGET/release/examples/count_tokens"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
BUDGET="${MCP_BENCH_BUDGET:-1000}"
# The stash of the --budget runs lives in the temp dir, never the user's data dir.
export STC_DATA_DIR="$WORK/data"
echo "mcp-proxy.sh: latency, $CALLS calls per case" >&2
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-direct.json" -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy.json" -- "$STC" mcp-proxy -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy-o200k.json" -- "$STC" mcp-proxy --tokenizer o200k_base -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy-budget.json" -- "$STC" mcp-proxy --budget "$BUDGET" -- "$PY" "$FIX"

echo "mcp-proxy.sh: corpus documents as tool results" >&2
NAMES=()
for f in "$CORPUS"/*.json "$CORPUS"/*.ndjson; do
  [ -f "$f" ] && NAMES+=("$(basename "$f")")
done
for form in direct proxy proxy-o200k proxy-keep proxy-budget minified; do mkdir -p "$WORK/$form"; done
export STC_CORPUS_DIR="$CORPUS"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/direct" "${NAMES[@]}" -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy" "${NAMES[@]}" -- "$STC" mcp-proxy -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-o200k" "${NAMES[@]}" -- "$STC" mcp-proxy --tokenizer o200k_base -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-keep" "${NAMES[@]}" -- "$STC" mcp-proxy --keep-json-text -- "$PY" "$FIX"
MCP_BENCH_RETRIEVE=stc_retrieve timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-budget" "${NAMES[@]}" -- "$STC" mcp-proxy --budget "$BUDGET" -- "$PY" "$FIX"
for name in "${NAMES[@]}"; do
  cmp -s "$WORK/direct/$name" "$CORPUS/$name" || { echo "mcp-proxy.sh: direct $name differs from the file" >&2; exit 1; }
  if "$STC" decode "$CORPUS/$name" > "$WORK/minified/$name" 2>/dev/null; then
    # Lossless: what the client received decodes to the document's exact minified JSON.
    for form in proxy proxy-o200k proxy-keep; do
      "$STC" decode "$WORK/$form/$name" | cmp -s - "$WORK/minified/$name" \
        || { echo "mcp-proxy.sh: $form/$name does not decode to the original" >&2; exit 1; }
    done
    # --budget: valid STC; uncut documents decode to the original; every marker was retrieved as valid JSON.
    "$STC" decode "$WORK/proxy-budget/$name" > "$WORK/budget-decoded.json" \
      || { echo "mcp-proxy.sh: proxy-budget/$name is not valid STC" >&2; exit 1; }
    if ! ls "$WORK/proxy-budget/$name".*.retrieved >/dev/null 2>&1; then
      cmp -s "$WORK/budget-decoded.json" "$WORK/minified/$name" \
        || { echo "mcp-proxy.sh: proxy-budget/$name has no marker but differs from the original" >&2; exit 1; }
    fi
    for r in "$WORK/proxy-budget/$name".*.retrieved; do
      [ -f "$r" ] || continue
      "$STC" decode "$r" > /dev/null || { echo "mcp-proxy.sh: $r is not JSON" >&2; exit 1; }
    done
  else
    # Not one JSON document (NDJSON): the proxy must leave it as it is.
    rm -f "$WORK/minified/$name"
    for form in proxy proxy-budget; do
      cmp -s "$WORK/$form/$name" "$CORPUS/$name" || { echo "mcp-proxy.sh: $form changed $name" >&2; exit 1; }
    done
  fi
done
MARKERS="$(cd "$WORK/proxy-budget" && ls | grep -c '\.retrieved$' || true)"
for form in direct proxy proxy-o200k proxy-keep proxy-budget minified; do
  (cd "$WORK/$form" && "$COUNT" $(ls | grep -v '\.retrieved$')) > "$WORK/tokens-$form.txt"
done

python3 - "$WORK" "$CALLS" "$OUTPUT" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" "$BUDGET" "$MARKERS" <<'PY'
import json, sys
work, calls, output, cpus, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
budget, markers = int(sys.argv[6]), int(sys.argv[7])

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

lat = {k: json.load(open(f"{work}/lat-{k}.json")) for k in ["direct", "proxy", "proxy-o200k", "proxy-budget"]}
tok = {}
forms = ["direct", "proxy", "proxy-o200k", "proxy-keep", "proxy-budget", "minified"]
for form in forms:
    tok[form] = {}
    for line in open(f"{work}/tokens-{form}.txt"):
        n, name = line.split(" ", 1)
        tok[form][name.strip()] = int(n)

out = ["### MCP proxy (`stc mcp-proxy`)", ""]
out.append(f"Per-call latency seen by a client, {calls} sequential `tools/call` requests per case after 5 warm-up calls, "
           f"to the Python FastMCP fixture server directly and through `stc mcp-proxy` (release build, {cpus} CPUs, "
           f"load average {load} at the end, pipes only). Microseconds; overhead = proxy p50 − direct p50; "
           "p99 is sensitive to other load on the machine. With `--budget`, the 1000-row table is cut on every "
           "call and its payload stashed (a refresh of the same SQLite entry in a temporary data directory).")
out.append("")
out.append(f"| tool call | direct p50 / p99 | proxy p50 / p99 (estimate gate) | overhead p50 | proxy p50 / p99 (o200k_base gate) | overhead p50 | proxy `--budget {budget}` p50 / p99 | overhead p50 |")
out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in lat["direct"]:
    d, p, o, b = lat["direct"][case], lat["proxy"][case], lat["proxy-o200k"][case], lat["proxy-budget"][case]
    out.append(f"| {case} | {pct(d,50):,.0f} / {pct(d,99):,.0f} | {pct(p,50):,.0f} / {pct(p,99):,.0f} | "
               f"{pct(p,50)-pct(d,50):+,.0f} | {pct(o,50):,.0f} / {pct(o,99):,.0f} | {pct(o,50)-pct(d,50):+,.0f} | "
               f"{pct(b,50):,.0f} / {pct(b,99):,.0f} | {pct(b,50)-pct(d,50):+,.0f} |")
out.append("")
out.append("Corpus documents served by the fixture's `corpus` tool as one text block each (the file as it is on disk), "
           "received directly and through the proxy; o200k_base tokens of the text the client receives. Every "
           "re-encoded text was checked to decode to the document's exact minified JSON; NDJSON (not one JSON "
           "text) passes unchanged. The gate compares STC with *minified* JSON; where it keeps JSON the client "
           "gets minified JSON by default (gated output, spec §9), or the server's text unchanged with "
           f"`--keep-json-text`. With `--budget {budget}` arrays and long strings are cut first (stash, SQLite "
           f"in a temporary data directory) and then gated; all {markers} markers were fetched back through the "
           "proxy's own `stc_retrieve` tool as valid JSON, and documents without a marker decode to the original. "
           "(The fixture, FastMCP, also puts the whole text into `structuredContent`, which the proxy never "
           "touches; the figures count the text block a model reads.)")
out.append("")
out.append(f"| document | server text | minified JSON | via proxy (default: estimate gate) | vs server text | vs minified | via proxy (o200k_base gate) | vs minified | via proxy `--keep-json-text` | vs server text | via proxy `--budget {budget}` | vs minified |")
out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
tot = {k: 0 for k in forms}
def ch(a, b):
    return f"{(a - b) / b * 100:+.1f}%" if b else "n/a"
for name in sorted(tok["direct"]):
    d, p, o = tok["direct"][name], tok["proxy"][name], tok["proxy-o200k"][name]
    z, b = tok["proxy-keep"][name], tok["proxy-budget"][name]
    m = tok["minified"].get(name)
    for k, v in [("direct", d), ("proxy", p), ("proxy-o200k", o), ("proxy-keep", z), ("proxy-budget", b), ("minified", m if m is not None else d)]:
        tot[k] += v
    ms = f"{m:,}" if m is not None else "(NDJSON)"
    out.append(f"| {name} | {d:,} | {ms} | {p:,} | {ch(p, d)} | {ch(p, m) if m else 'n/a'} | {o:,} | {ch(o, m) if m else 'n/a'} | {z:,} | {ch(z, d)} | {b:,} | {ch(b, m) if m else 'n/a'} |")
out.append(f"| **total** | {tot['direct']:,} | {tot['minified']:,} | {tot['proxy']:,} | {ch(tot['proxy'], tot['direct'])} | "
           f"{ch(tot['proxy'], tot['minified'])} | {tot['proxy-o200k']:,} | {ch(tot['proxy-o200k'], tot['minified'])} | "
           f"{tot['proxy-keep']:,} | {ch(tot['proxy-keep'], tot['direct'])} | {tot['proxy-budget']:,} | {ch(tot['proxy-budget'], tot['minified'])} |")
out.append("")
out.append("(The NDJSON file counts as its own text in the minified total.) Commands:")
out.append("")
out.append("```")
out.append("bash bench/services/mcp-proxy.sh target/release/stc OUT.md   # MCP_BENCH_CALLS=300")
out.append("python stc-mcp/bench/mcp_client.py latency 300 OUT.json -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("python stc-mcp/bench/mcp_client.py latency 300 OUT.json -- stc mcp-proxy [--tokenizer o200k_base | --budget 1000] -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("STC_CORPUS_DIR=../shared/corpus python stc-mcp/bench/mcp_client.py fetch DIR NAME... -- stc mcp-proxy [--tokenizer o200k_base | --keep-json-text] -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("STC_DATA_DIR=/tmp/d MCP_BENCH_RETRIEVE=stc_retrieve STC_CORPUS_DIR=../shared/corpus python stc-mcp/bench/mcp_client.py fetch DIR NAME... -- stc mcp-proxy --budget 1000 -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("target/release/examples/count_tokens DIR/*   # o200k_base, cargo build --release -p stc-mcp --example count_tokens")
out.append("```")
open(output, "w").write("\n".join(out) + "\n")
PY
echo "mcp-proxy.sh: wrote $OUTPUT" >&2
