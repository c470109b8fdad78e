#!/usr/bin/env bash
# `stc proxy` on loopback: added latency and throughput against a direct
# connection, peak RSS with 64 concurrent 1 MiB JSON responses, and bytes and
# tokens saved per corpus document served through the proxy.
#
#   bash bench/services/http-proxy.sh STC_BINARY OUTPUT.md
#
# Bounded: every load run stops after its request count or 120 s. Starts an
# upstream (stc-http/examples/http_bench.rs, a hyper server holding the corpus
# in memory) and the proxies itself, and stops them on exit.
# Knobs: STC_CORPUS (default ../shared/corpus), HTTP_BENCH_REQUESTS (default 3000).
set -euo pipefail

STC="$(realpath "$1")"
OUTPUT="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="$(realpath "${STC_CORPUS:-$ROOT/../shared/corpus}")"
N="${HTTP_BENCH_REQUESTS:-3000}"
C=8
DOC=twitter_timeline.json
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

(cd "$ROOT" && cargo build --release --quiet -p stc-http --example http_bench)
HB="$TARGET/release/examples/http_bench"
TMP="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

# Waits for the first line of FILE (a process's stdout), at most 30 s.
first_line() {
  for _ in $(seq 300); do
    if [ -s "$1" ]; then head -n 1 "$1"; return; fi
    sleep 0.1
  done
  echo "http-proxy.sh: no output in $1" >&2
  exit 1
}

"$HB" upstream "$CORPUS" > "$TMP/up.out" &
PIDS+=($!)
UP="127.0.0.1:$(first_line "$TMP/up.out")"

# Starts a proxy in front of the upstream; sets PROXY (address) and PROXY_PID.
start_proxy() {
  local name="$1"
  "$STC" proxy --listen 127.0.0.1:0 --upstream "http://$UP" > "$TMP/$name.out" 2> "$TMP/$name.err" &
  PROXY_PID=$!
  PIDS+=("$PROXY_PID")
  PROXY="$(first_line "$TMP/$name.out" | sed -E 's|.*listening on http://([^ ]+).*|\1|')"
}
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

ACCEPT="Accept: application/stc+json, application/json;q=0.9"
start_proxy latency
"$HB" load "http://$UP/$DOC" 200 "$C" > /dev/null
"$HB" load "http://$PROXY/$DOC" 200 "$C" "$ACCEPT" > /dev/null
"$HB" load "http://$UP/$DOC" "$N" "$C" > "$TMP/direct.json"
"$HB" load "http://$PROXY/$DOC" "$N" "$C" > "$TMP/pass.json"
"$HB" load "http://$PROXY/$DOC" "$N" "$C" "$ACCEPT" > "$TMP/stc.json"

# Peak RSS: a fresh proxy per case, 64 at a time, 256 responses of 1 MiB each.
start_proxy rss_stc
BASE_STC="$(kb "$PROXY_PID" VmRSS)"
"$HB" load "http://$PROXY/gen/1mib" 256 64 "$ACCEPT" > "$TMP/rss_stc.json"
PEAK_STC="$(kb "$PROXY_PID" VmHWM)"
start_proxy rss_pass
BASE_PASS="$(kb "$PROXY_PID" VmRSS)"
"$HB" load "http://$PROXY/gen/1mib" 256 64 > "$TMP/rss_pass.json"
PEAK_PASS="$(kb "$PROXY_PID" VmHWM)"

start_proxy corpus
"$HB" corpus "http://$PROXY" "$CORPUS" > "$TMP/corpus.jsonl"

python3 - "$TMP" "$OUTPUT" "$N" "$C" "$DOC" "$BASE_STC" "$PEAK_STC" "$BASE_PASS" "$PEAK_PASS" <<'EOF'
import json, os, sys
tmp, output, n, c, doc, base_stc, peak_stc, base_pass, peak_pass = sys.argv[1:]
load = lambda name: json.load(open(os.path.join(tmp, name + ".json")))
direct, passthrough, stc = load("direct"), load("pass"), load("stc")
rss_stc, rss_pass = load("rss_stc"), load("rss_pass")
out = ["### HTTP proxy (`stc proxy`)", ""]
out.append(f"Loopback, {n} GETs of `{doc}` per row, {c} at a time, keep-alive; upstream is a hyper server "
           "holding the corpus in memory; load generator, upstream and proxy share the machine's 2 cores. "
           "Added latency = proxy p50/p99 minus direct p50/p99.")
out.append("")
out.append("| path | requests | errors | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms |")
out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for label, r in [("direct to upstream", direct), ("proxy, client did not ask (pass-through)", passthrough),
                 ("proxy, `Accept: application/stc+json` (sent as STC)", stc)]:
    added = "" if r is direct else f"{r['p50_ms'] - direct['p50_ms']:+.3f} | {r['p99_ms'] - direct['p99_ms']:+.3f}"
    if r is direct:
        added = "– | –"
    out.append(f"| {label} | {r['requests']} | {r['errors']} | {r['rps']:.0f} | {r['p50_ms']:.3f} | {r['p99_ms']:.3f} | {added} |")
out.append("")
mb = lambda kb: f"{int(kb) / 1024:.1f} MiB"
out.append("Peak RSS of the proxy (`VmHWM`), 64 concurrent clients, 256 responses of 1 MiB of JSON records each:")
out.append("")
out.append("| case | RSS after start | peak RSS | req/s | errors |")
out.append("| --- | ---: | ---: | ---: | ---: |")
out.append(f"| encoded to STC (each body buffered, parsed, encoded) | {mb(base_stc)} | {mb(peak_stc)} | {rss_stc['rps']:.1f} | {rss_stc['errors']} |")
out.append(f"| pass-through (streamed) | {mb(base_pass)} | {mb(peak_pass)} | {rss_pass['rps']:.1f} | {rss_pass['errors']} |")
out.append("")
rows = [json.loads(l) for l in open(os.path.join(tmp, "corpus.jsonl"))]
out.append("Each corpus document through the proxy with `Accept: application/stc+json, application/json;q=0.9` "
           "(default gate: estimate tokenizer, 5% margin); tokens counted by the client with exact o200k_base "
           "on the upstream's bytes and on the bytes received:")
out.append("")
out.append("| document | sent as | bytes upstream | bytes sent | bytes saved | tokens upstream | tokens sent | tokens saved |")
out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
tot = [0, 0, 0, 0]
for r in rows:
    pct = lambda a, b: f"{(1 - b / a) * 100:.1f}%" if a else "–"
    out.append(f"| {r['name']} | {'STC' if r['stc'] else 'JSON (gate)'} | {r['bytes_in']} | {r['bytes_out']} | "
               f"{pct(r['bytes_in'], r['bytes_out'])} | {r['tokens_in']} | {r['tokens_out']} | {pct(r['tokens_in'], r['tokens_out'])} |")
    for i, k in enumerate(["bytes_in", "bytes_out", "tokens_in", "tokens_out"]):
        tot[i] += r[k]
out.append(f"| **total** | | {tot[0]} | {tot[1]} | {(1 - tot[1] / tot[0]) * 100:.1f}% | {tot[2]} | {tot[3]} | {(1 - tot[3] / tot[2]) * 100:.1f}% |")
out.append("")
out.append("Commands: `bash bench/services/http-proxy.sh target/release/stc OUT.md`, which runs "
           f"`http_bench upstream CORPUS`, `stc proxy --listen 127.0.0.1:0 --upstream http://UPSTREAM`, "
           f"`http_bench load URL {n} {c} [HEADER]` (latency), `http_bench load URL/gen/1mib 256 64 [HEADER]` (RSS, "
           "read from /proc/PID/status) and `http_bench corpus PROXY CORPUS` "
           "(`stc-http/examples/http_bench.rs`, release build).")
out.append("")
with open(output, "w") as f:
    f.write("\n".join(out))
EOF
echo "http-proxy.sh: wrote $OUTPUT" >&2
