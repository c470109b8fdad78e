#!/usr/bin/env bash
# Requests per second and latency of `stc serve` (the seed-003 TCP line
# service) under a bounded load on loopback.
#
#   bash bench/services/tcp.sh STC_BINARY OUTPUT.md
#
# Starts `stc serve --tcp 127.0.0.1:0 --no-persist`, runs the load generator
# stc-serve/examples/loadgen.rs (release build) with a fixed request count per
# mix, stops the service, and writes one Markdown section to OUTPUT.md.
set -euo pipefail

STC="${1:?usage: tcp.sh STC_BINARY OUTPUT.md}"
OUTPUT="${2:?usage: tcp.sh STC_BINARY OUTPUT.md}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="${STC_CORPUS:-$ROOT/../shared/corpus}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
STC="$(cd "$(dirname "$STC")" && pwd)/$(basename "$STC")"
OUTPUT="$(cd "$(dirname "$OUTPUT")" && pwd)/$(basename "$OUTPUT")"

(cd "$ROOT" && cargo build --release --quiet -p stc-serve --example loadgen)
LOADGEN="$TARGET/release/examples/loadgen"

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2> /dev/null || true; wait "$SERVER_PID" 2> /dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$STC" serve --tcp 127.0.0.1:0 --no-persist --max-connections 64 > "$WORK/stdout" 2> "$WORK/stderr" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  grep -q '^listening on ' "$WORK/stdout" 2> /dev/null && break
  kill -0 "$SERVER_PID" 2> /dev/null || { cat "$WORK/stderr" >&2; exit 1; }
  sleep 0.1
done
ADDR="$(sed -n 's/^listening on //p' "$WORK/stdout")"
[ -n "$ADDR" ] || { echo "tcp.sh: stc serve did not start" >&2; exit 1; }

DOC="$CORPUS/github_events.json"
run() { # label, loadgen arguments...
  local label="$1"
  shift
  local line
  line="$(timeout 300 "$LOADGEN" "$ADDR" "$@")"
  echo "$line" >&2
  local rps p50 p99 max req
  req="$(sed -E 's/.* requests=([0-9]+).*/\1/' <<< "$line")"
  rps="$(sed -E 's/.* rps=([0-9]+).*/\1/' <<< "$line")"
  p50="$(sed -E 's/.* p50_us=([0-9]+).*/\1/' <<< "$line")"
  p99="$(sed -E 's/.* p99_us=([0-9]+).*/\1/' <<< "$line")"
  max="$(sed -E 's/.* max_us=([0-9]+).*/\1/' <<< "$line")"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$2" "$req" "$rps" \
    "$(awk -v v="$p50" 'BEGIN{printf "%.2f", v/1000}')" "$(awk -v v="$p99" 'BEGIN{printf "%.2f", v/1000}')" \
    "$(awk -v v="$max" 'BEGIN{printf "%.2f", v/1000}')" >> "$WORK/rows"
}

: > "$WORK/rows"
LOAD="$(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || echo unknown)"
run '`ping`' ping 1 5000
run '`ping`' ping 50 50000
run '`prompt` + `response` (o200k_base counts, base64/base54)' chat 1 4000
run '`prompt` + `response` (o200k_base counts, base64/base54)' chat 50 20000
run "\`encode\` of github_events.json ($(wc -c < "$DOC") bytes, gated, o200k_base)" encode 1 100 "$DOC"
run "\`encode\` of github_events.json ($(wc -c < "$DOC") bytes, gated, o200k_base)" encode 8 400 "$DOC"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || true
SERVER_PID=""

{
  echo "### TCP line service (\`stc serve --tcp\`)"
  echo
  echo "One request in flight per connection; every reply is checked. Loopback, $(nproc) cores shared by client"
  echo "and server (load average before the run: $LOAD)."
  echo
  echo "| requests | connections | count | req/s | p50 ms | p99 ms | max ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  cat "$WORK/rows"
  echo
  echo "Commands:"
  echo
  echo '```'
  echo "stc serve --tcp 127.0.0.1:0 --no-persist --max-connections 64"
  echo "cargo build --release -p stc-serve --example loadgen"
  echo "loadgen ADDR ping 1 5000;  loadgen ADDR ping 50 50000"
  echo "loadgen ADDR chat 1 4000;  loadgen ADDR chat 50 20000"
  echo "loadgen ADDR encode 1 100 \$CORPUS/github_events.json;  loadgen ADDR encode 8 400 \$CORPUS/github_events.json"
  echo '```'
} > "$OUTPUT"
