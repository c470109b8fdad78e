#!/usr/bin/env bash
# Stash benchmark: tokens of the corpus under a budget against lossless STC
# and minified JSON, stash/retrieve latency (p50/p99) per store (memory,
# SQLite, Redis), and the throughput of 8 concurrent processes on SQLite and
# Redis; plus a cross-process check with the real binary (`stc encode
# --budget` in one process, `stc retrieve` in another).
#
#   bash bench/services/stash.sh STC_BINARY OUTPUT.md
#
# The figures come from stc-stash/examples/stash_bench.rs (release build). It
# starts its own redis-server on a free loopback port (--save '' --appendonly
# no, temp dir) and stops it; its SQLite files live in a temp dir. Bounded:
# 1000 payloads per store, 8 x 500 stash+retrieve pairs per store, every step
# under `timeout`. Needs redis-server (scripts/prereqs/20-redis.sh, run here).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: bash bench/services/stash.sh STC_BINARY OUTPUT.md" >&2; exit 2; }
STC="$(realpath "$1")"
OUTPUT="$(realpath -m "$2")"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="$(realpath "${STC_CORPUS:-$ROOT/../shared/corpus}")"
cd "$ROOT"

bash scripts/prereqs/20-redis.sh >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

FILES=()
for f in "$CORPUS"/*.json; do
  [ -f "$f" ] && FILES+=("$f")
done
echo "stash.sh: stash_bench on ${#FILES[@]} corpus documents" >&2
cargo build --release --quiet -p stc-stash --example stash_bench
timeout 900 cargo run --release --quiet -p stc-stash --example stash_bench -- "${FILES[@]}" > "$WORK/bench.md"
if grep -q "redis-server not available" "$WORK/bench.md"; then
  echo "stash.sh: the Redis figures are missing (redis-server did not start)" >&2
  exit 1
fi

# Cross-process check with the binary under test: a 500-record response is cut
# under --budget by one process and every marker is resolved by another.
echo "stash.sh: stc encode --budget / stc retrieve across processes" >&2
python3 - "$WORK/records.json" <<'PY'
import json, sys
rows = [{"id": i, "login": f"user{i}", "status": "error" if i % 97 == 13 else "ok",
         "latency_ms": 10 + (i * 7919) % 50, "region": f"eu-west-{i % 3}"} for i in range(500)]
open(sys.argv[1], "w").write(json.dumps(rows, separators=(",", ":")))
PY
export STC_DATA_DIR="$WORK/data"
timeout 60 "$STC" encode --budget 1000 "$WORK/records.json" > "$WORK/cut.stc" 2> "$WORK/encode.err"
KEYS="$(grep -o 'stc retrieve [0-9a-f]\{24\}' "$WORK/cut.stc" | cut -d' ' -f3 | sort -u)"
[ -n "$KEYS" ] || { echo "stash.sh: stc encode --budget left no marker" >&2; exit 1; }
for key in $KEYS; do
  timeout 60 "$STC" retrieve "$key" > "$WORK/payload.json"
  timeout 60 "$STC" decode "$WORK/payload.json" | cmp -s - <("$STC" decode "$WORK/records.json") \
    || { echo "stash.sh: retrieved $key is not the original" >&2; exit 1; }
done
CUT_BYTES="$(wc -c < "$WORK/cut.stc")"
ORIG_BYTES="$(wc -c < "$WORK/records.json")"
ENCODE_NOTE="$(tail -n 1 "$WORK/encode.err")"

python3 - "$WORK/bench.md" "$OUTPUT" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" "$CUT_BYTES" "$ORIG_BYTES" "$ENCODE_NOTE" <<'PY'
import re, sys
bench, output, cpus, load, cut, orig, note = sys.argv[1:8]
note = re.sub(r" in sqlite \S+", " in a temporary SQLite file", note)
out = ["### Stash", ""]
out.append("Recoverable truncation (`stc-stash`): what a budget leaves out is stashed under a content key and a "
           "marker in the output says how to get it back. Figures from `stc-stash/examples/stash_bench.rs` "
           f"(release build, {cpus} CPUs shared with other jobs, load average {load} at the end; latencies are "
           "indicative). Tokens are exact o200k_base; the corpus documents plus a generated 500-record response. "
           "Documents whose bulk is a large object keyed by id are not cut (only arrays and long strings are).")
out.append("")
for line in open(bench):
    line = line.rstrip("\n")
    if line.startswith("## "):
        out.append("#### " + line[3:])
    else:
        out.append(line)
while out and out[-1] == "":
    out.pop()
out.append("")
out.append(f"Cross-process check with the binary under test: `stc encode --budget 1000` of a 500-record response "
           f"({int(orig):,} bytes of JSON) gave {int(cut):,} bytes of STC ({note.removeprefix('stc: ')}); "
           "every marker's key, passed to `stc retrieve` in another process, gave back the exact original.")
out.append("")
out.append("Commands:")
out.append("")
out.append("```")
out.append("bash bench/services/stash.sh target/release/stc OUT.md")
out.append("cargo run --release -p stc-stash --example stash_bench -- ../shared/corpus/*.json")
out.append("STC_DATA_DIR=/tmp/d stc encode --budget 1000 records.json; STC_DATA_DIR=/tmp/d stc retrieve KEY")
out.append("```")
open(output, "w").write("\n".join(out) + "\n")
PY
echo "stash.sh: wrote $OUTPUT" >&2
