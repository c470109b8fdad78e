#!/usr/bin/env bash
# MCP proxy benchmark: per-call overhead of `stc mcp-proxy` over stdio (p50/p99,
# the same tool calls made directly and through the proxy, also with --budget)
# and over Streamable HTTP (--listen around a stdio server, --listen --upstream
# in front of the Python SDK 2.x server under uvicorn); the o200k_base tokens
# saved on corpus documents served as MCP tool results: default gated output
# (STC version 2), --stc-version 1, o200k_base gate, --keep-json-text, and
# --budget 1000 (stash truncation; every marker retrieved through the proxy's
# tool); and the tokens a model is shown per reference-server call, for a
# text-reading and a structured-reading host (stc-mcp/bench/hosts.py), with the
# saving of --merge-blocks on the SDK's typed list tools.
#
#   bash bench/services/mcp-proxy.sh STC_BINARY OUTPUT.md
#
# The stdio MCP server is stc-mcp/tests/fixtures/fixture_server.py (official
# Python SDK, FastMCP); the client is stc-mcp/bench/mcp_client.py (raw JSON-RPC
# lines over pipes). HTTP: stc-mcp/bench/http_cases.py (the 2.x fixture
# http_server.py, timed by http_overhead.py). Loopback only, MCP_BENCH_CALLS
# calls per case (default 300), every step under `timeout`; a failing step
# names itself on stderr. Needs scripts/prereqs/30-mcp.sh (run here).
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
PY2="$ROOT/target/mcp2-venv/bin/python"
FIX=stc-mcp/tests/fixtures/fixture_server.py
CLIENT=stc-mcp/bench/mcp_client.py
cargo build --release --quiet -p stc-mcp --example count_tokens
COUNT="$TARGET/release/examples/count_tokens"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A failing step says which one it was (set -e alone ends the script silently).
trap 'echo "mcp-proxy.sh: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
BUDGET="${MCP_BENCH_BUDGET:-1000}"
# The stash of the --budget runs lives in the temp dir, never the user's data dir.
export STC_DATA_DIR="$WORK/data"
echo "mcp-proxy.sh: latency, $CALLS calls per case" >&2
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-direct.json" -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy.json" -- "$STC" mcp-proxy -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy-o200k.json" -- "$STC" mcp-proxy --tokenizer o200k_base -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" latency "$CALLS" "$WORK/lat-proxy-budget.json" -- "$STC" mcp-proxy --budget "$BUDGET" -- "$PY" "$FIX"

echo "mcp-proxy.sh: Streamable HTTP latency, $CALLS calls per case" >&2
timeout 600 python3 stc-mcp/bench/http_cases.py "$STC" "$PY2" "$CALLS" "$WORK/lat-http.json"

echo "mcp-proxy.sh: corpus documents as tool results" >&2
NAMES=()
for f in "$CORPUS"/*.json "$CORPUS"/*.ndjson; do
  [ -f "$f" ] && NAMES+=("$(basename "$f")")
done
for form in direct proxy proxy-v1 proxy-o200k proxy-keep proxy-budget minified; do mkdir -p "$WORK/$form"; done
export STC_CORPUS_DIR="$CORPUS"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/direct" "${NAMES[@]}" -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy" "${NAMES[@]}" -- "$STC" mcp-proxy -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-v1" "${NAMES[@]}" -- "$STC" mcp-proxy --stc-version 1 -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-o200k" "${NAMES[@]}" -- "$STC" mcp-proxy --tokenizer o200k_base -- "$PY" "$FIX"
timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-keep" "${NAMES[@]}" -- "$STC" mcp-proxy --keep-json-text -- "$PY" "$FIX"
MCP_BENCH_RETRIEVE=stc_retrieve timeout 900 "$PY" "$CLIENT" fetch "$WORK/proxy-budget" "${NAMES[@]}" -- "$STC" mcp-proxy --budget "$BUDGET" -- "$PY" "$FIX"
for name in "${NAMES[@]}"; do
  cmp -s "$WORK/direct/$name" "$CORPUS/$name" || { echo "mcp-proxy.sh: direct $name differs from the file" >&2; exit 1; }
  if "$STC" decode "$CORPUS/$name" > "$WORK/minified/$name" 2>/dev/null; then
    # Lossless: what the client received decodes to the document's exact minified JSON.
    # (The proxy writes version 2 by default; a version-2 reader reads version 1 too.)
    for form in proxy proxy-v1 proxy-o200k proxy-keep; do
      "$STC" decode --stc-version 2 "$WORK/$form/$name" | cmp -s - "$WORK/minified/$name" \
        || { echo "mcp-proxy.sh: $form/$name does not decode to the original" >&2; exit 1; }
    done
    # --budget: valid STC; uncut documents decode to the original; every marker was retrieved as valid JSON.
    "$STC" decode --stc-version 2 "$WORK/proxy-budget/$name" > "$WORK/budget-decoded.json" \
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
    for form in proxy proxy-v1 proxy-budget; do
      cmp -s "$WORK/$form/$name" "$CORPUS/$name" || { echo "mcp-proxy.sh: $form changed $name" >&2; exit 1; }
    done
  fi
done
MARKERS="$(cd "$WORK/proxy-budget" && ls | grep -c '\.retrieved$' || true)"
for form in direct proxy proxy-v1 proxy-o200k proxy-keep proxy-budget minified; do
  (cd "$WORK/$form" && "$COUNT" $(ls | grep -v '\.retrieved$')) > "$WORK/tokens-$form.txt"
done

echo "mcp-proxy.sh: tokens a model is shown per reference-server call (stc-mcp/bench/hosts.py)" >&2
mkdir -p "$WORK/hosts"
STC_CORPUS="$CORPUS" timeout 600 python3 stc-mcp/bench/hosts.py "$STC" "$COUNT" "$WORK/hosts" > "$WORK/hosts.md"

python3 - "$WORK" "$CALLS" "$OUTPUT" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" "$BUDGET" "$MARKERS" <<'PY'
import json, sys
work, calls, output, cpus, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
budget, markers = int(sys.argv[6]), int(sys.argv[7])

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

lat = {k: json.load(open(f"{work}/lat-{k}.json")) for k in ["direct", "proxy", "proxy-o200k", "proxy-budget"]}
tok = {}
forms = ["direct", "proxy", "proxy-v1", "proxy-o200k", "proxy-keep", "proxy-budget", "minified"]
for form in forms:
    tok[form] = {}
    for line in open(f"{work}/tokens-{form}.txt"):
        n, name = line.split(" ", 1)
        tok[form][name.strip()] = int(n)

out = ["### MCP proxy (`stc mcp-proxy`)", ""]
out.append(f"Per-call latency seen by a client, {calls} sequential `tools/call` requests per case after 5 warm-up calls, "
           f"to the Python FastMCP fixture server directly and through `stc mcp-proxy` (STC version 2, the default; release build, {cpus} CPUs, "
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
http = json.load(open(f"{work}/lat-http.json"))
d = http["direct"]
out.append(f"Per-call latency over Streamable HTTP (`stc-mcp/bench/http_cases.py`): {calls} sequential `tools/call` "
           "requests of `table(rows=40)` after 20 warm-up calls, one keep-alive HTTP/1.1 connection "
           "(`stc-mcp/bench/http_overhead.py`, revision 2025-11-25, `Accept: application/json, text/event-stream`), to the "
           "Python SDK 2.x fixture server (`stc-mcp/tests/fixtures/http_server.py`) under uvicorn directly, through "
           "`stc mcp-proxy --listen 127.0.0.1:0 --upstream URL` in front of it, and through `stc mcp-proxy --listen` "
           "around the same server run over stdio (no uvicorn). Milliseconds; overhead = p50 − direct p50. The proxy "
           "writes STC version 2 (the default); the response bytes show the rewritten result.")
out.append("")
out.append("| set-up | p50 | p90 | p99 | max | overhead p50 | response bytes |")
out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for key, label in [("direct", "2.x server under uvicorn, direct"),
                   ("upstream", "`stc mcp-proxy --listen --upstream` in front of it"),
                   ("stdio", "`stc mcp-proxy --listen` around it over stdio")]:
    h = http[key]
    over = "" if key == "direct" else f"{h['p50_ms'] - d['p50_ms']:+.2f}"
    out.append(f"| {label} | {h['p50_ms']:.2f} | {h['p90_ms']:.2f} | {h['p99_ms']:.2f} | {h['max_ms']:.2f} | {over} | {h['response_bytes']:,} |")
out.append("")
out.append("Corpus documents served by the fixture's `corpus` tool as one text block each (the file as it is on disk), "
           "received directly and through the proxy (STC version 2 by default; version 1 with `--stc-version 1`); "
           "o200k_base tokens of the text the client receives. Every "
           "re-encoded text was checked to decode (`stc decode --stc-version 2`) to the document's exact minified JSON; NDJSON (not one JSON "
           "text) passes unchanged. The gate compares STC with *minified* JSON; where it keeps JSON the client "
           "gets minified JSON by default (gated output, spec §9), or the server's text unchanged with "
           f"`--keep-json-text`. With `--budget {budget}` arrays and long strings are cut first (stash, SQLite "
           f"in a temporary data directory) and then gated; all {markers} markers were fetched back through the "
           "proxy's own `stc_retrieve` tool as valid JSON, and documents without a marker decode to the original. "
           "(The fixture, FastMCP, also puts the whole text into `structuredContent`, which the proxy keeps for "
           "this client: it is named `bench`, not a host known to show the model only `structuredContent` "
           "(`--structured auto`, the default); the figures count the text block a model reads. Hosts that read "
           "`structuredContent` are in the table after this one.)")
out.append("")
out.append(f"| document | server text | minified JSON | via proxy (default: v2, estimate gate) | vs server text | vs minified | via proxy `--stc-version 1` | vs minified | via proxy (o200k_base gate) | vs minified | via proxy `--keep-json-text` | vs server text | via proxy `--budget {budget}` | vs minified |")
out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
tot = {k: 0 for k in forms}
def ch(a, b):
    return f"{(a - b) / b * 100:+.1f}%" if b else "n/a"
for name in sorted(tok["direct"]):
    d, p, o = tok["direct"][name], tok["proxy"][name], tok["proxy-o200k"][name]
    z, b, v1 = tok["proxy-keep"][name], tok["proxy-budget"][name], tok["proxy-v1"][name]
    m = tok["minified"].get(name)
    for k, v in [("direct", d), ("proxy", p), ("proxy-v1", v1), ("proxy-o200k", o), ("proxy-keep", z), ("proxy-budget", b), ("minified", m if m is not None else d)]:
        tot[k] += v
    ms = f"{m:,}" if m is not None else "(NDJSON)"
    out.append(f"| {name} | {d:,} | {ms} | {p:,} | {ch(p, d)} | {ch(p, m) if m else 'n/a'} | {v1:,} | {ch(v1, m) if m else 'n/a'} | {o:,} | {ch(o, m) if m else 'n/a'} | {z:,} | {ch(z, d)} | {b:,} | {ch(b, m) if m else 'n/a'} |")
out.append(f"| **total** | {tot['direct']:,} | {tot['minified']:,} | {tot['proxy']:,} | {ch(tot['proxy'], tot['direct'])} | "
           f"{ch(tot['proxy'], tot['minified'])} | {tot['proxy-v1']:,} | {ch(tot['proxy-v1'], tot['minified'])} | {tot['proxy-o200k']:,} | {ch(tot['proxy-o200k'], tot['minified'])} | "
           f"{tot['proxy-keep']:,} | {ch(tot['proxy-keep'], tot['direct'])} | {tot['proxy-budget']:,} | {ch(tot['proxy-budget'], tot['minified'])} |")
out.append("")
out.append("(The NDJSON file counts as its own text in the minified total.)")
out.append("")
out.append("o200k_base tokens a model is shown per call of the reference MCP servers from npm (filesystem, memory, "
           "everything) and of the Python SDK 2.x fixture (`stc-mcp/tests/fixtures/fixture_server2.py`), through the "
           "official Python SDK 2.x client (`stc-mcp/tests/fixtures/sdk_client.py`): a **text-reading** host sees every "
           "text block; a **structured-reading** host sees `structuredContent` when the result has it (as Claude Code "
           "and VS Code show it; this client names itself `claude-code`, so the proxy's default `--structured auto` "
           "drops `structuredContent` and sends the data as STC text). Direct, through `stc mcp-proxy --stc-version 1`, "
           "and through `stc mcp-proxy` (version 2, the default). Then the saving of `--merge-blocks` (on by default) on "
           "the SDK's typed list tools, which send one text block per list element (`stc-mcp/bench/hosts.py`):")
out.append("")
out.extend(open(f"{work}/hosts.md").read().rstrip().split("\n"))
out.append("")
out.append("Commands:")
out.append("")
out.append("```")
out.append("bash bench/services/mcp-proxy.sh target/release/stc OUT.md   # MCP_BENCH_CALLS=300")
out.append("python stc-mcp/bench/mcp_client.py latency 300 OUT.json -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("python stc-mcp/bench/mcp_client.py latency 300 OUT.json -- stc mcp-proxy [--tokenizer o200k_base | --budget 1000] -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("STC_CORPUS_DIR=../shared/corpus python stc-mcp/bench/mcp_client.py fetch DIR NAME... -- stc mcp-proxy [--tokenizer o200k_base | --keep-json-text] -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("STC_DATA_DIR=/tmp/d MCP_BENCH_RETRIEVE=stc_retrieve STC_CORPUS_DIR=../shared/corpus python stc-mcp/bench/mcp_client.py fetch DIR NAME... -- stc mcp-proxy --budget 1000 -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("STC_CORPUS_DIR=../shared/corpus python stc-mcp/bench/mcp_client.py fetch DIR NAME... -- stc mcp-proxy --stc-version 1 -- python stc-mcp/tests/fixtures/fixture_server.py")
out.append("target/release/examples/count_tokens DIR/*   # o200k_base, cargo build --release -p stc-mcp --example count_tokens")
out.append("python3 stc-mcp/bench/http_cases.py target/release/stc target/mcp2-venv/bin/python 300 OUT.json   # runs stc-mcp/bench/http_overhead.py URL 300 per set-up")
out.append("STC_CORPUS=../shared/corpus python3 stc-mcp/bench/hosts.py target/release/stc target/release/examples/count_tokens WORKDIR")
out.append("```")
open(output, "w").write("\n".join(out) + "\n")
PY
echo "mcp-proxy.sh: wrote $OUTPUT" >&2
