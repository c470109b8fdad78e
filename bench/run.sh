#!/usr/bin/env bash
# Regenerates bench/REPORT.md and bench/tokens.svg from scratch.
#
#   bench/run.sh                   everything (about 25 minutes on 2 cores, plus the bindings' first builds)
#   bench/run.sh --no-criterion    skip the criterion run of stc-core/benches/codec.rs
#   bench/run.sh --quick           for trying the scripts: no criterion, no 200 MB memory input,
#                                  shorter speed runs (the figures are then rougher)
#   bench/run.sh --no-build        measure the bindings as they are built now (by their test.sh
#                                  or an earlier run) instead of building them first
#
# Needs: cargo, node + npm, python3, GNU time (/usr/bin/time). The corpus is read
# in place from ../shared/corpus next to the repository (override: STC_CORPUS).
# Scratch output goes to bench/out/ (gitignored); npm packages to bench/toon/node_modules.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
CORPUS="${STC_CORPUS:-$ROOT/../shared/corpus}"
OUT="$BENCH/out"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BENCH_TARGET="${CARGO_TARGET_DIR:-$BENCH/stc-bench/target}"
CRITERION=1
BIG_MB=200
SPEED_MS=300
BUILD=1
for arg in "$@"; do
  case "$arg" in
    --no-criterion) CRITERION=0 ;;
    --quick) CRITERION=0; BIG_MB=0; SPEED_MS=50 ;;
    --no-build) BUILD=0 ;;
    *) echo "usage: bench/run.sh [--no-criterion] [--quick] [--no-build]" >&2; exit 2 ;;
  esac
done
[ -d "$CORPUS" ] || { echo "run.sh: no corpus at $CORPUS (set STC_CORPUS)" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
: > "$OUT/commands.txt"
# Runs a command from the repository root and records it for the report header.
run() {
  echo "$*" >> "$OUT/commands.txt"
  (cd "$ROOT" && "$@")
}
step() { echo "== $* ($(date -u +%H:%M:%S))" >&2; }
START=$(date +%s)

step "datasets"
run python3 bench/gen.py "$CORPUS" bench/out --big-mb "$BIG_MB"

step "TOON (npm @toon-format/toon)"
run npm ci --prefix bench/toon --no-audit --no-fund --silent
run node bench/toon/toon.mjs bench/out/manifest.json bench/out/toon

step "stc-bench (tokens, Rust speed)"
# The encoder with the old rules (commit 59b8d1c) comes from git history, built beside the current one.
run bash bench/v1rules.sh
# v2 before issue 25's safety and planner rules (commit 7a534d7), and the current core with the width rule off.
run bash bench/v1rules.sh 7a534d7 stc-core-v2before
run bash bench/v1rules.sh nowidth stc-core-v2nowidth
# STC v2 rows only when stc-core has the `Version` knob; otherwise the report says "not built yet".
FEATURES=()
if grep -q 'pub enum Version' "$ROOT/stc-core/src/options.rs"; then FEATURES=(--features v2); fi
run cargo build --release --quiet --manifest-path bench/stc-bench/Cargo.toml "${FEATURES[@]}"
STC_BENCH="$BENCH_TARGET/release/stc-bench"
run "$STC_BENCH" tokens bench/out/manifest.json bench/out/toon bench/out/tokens.json
run "$STC_BENCH" techniques bench/out/manifest.json bench/out/techniques.json
run "$STC_BENCH" speed bench/out/manifest.json bench/out/speed_rust.json "$SPEED_MS"

if [ "$CRITERION" = 1 ]; then
  step "criterion"
  rm -rf "$TARGET/criterion"
  run cargo bench --quiet -p stc-core --bench codec
  run python3 bench/report.py criterion "$TARGET/criterion" bench/out/criterion.json
else
  echo '{"docs": [], "reason": "skipped (bench/run.sh --no-criterion or --quick)"}' > "$OUT/criterion.json"
fi

step "bindings"
# Each binding is built in release mode with its bench peers (bench/build-bindings.sh;
# a failed build leaves OUT/KEY.skip), then measured by its own bench script; the
# report says why a binding was not measured.
if [ "$BUILD" = 1 ]; then
  run bash bench/build-bindings.sh bench/out
fi
binding() { # key, interpreter, script, extra arguments
  local key="$1" interp="$2" script="$3"
  shift 3
  if [ -f "$OUT/$key.skip" ]; then
    return 0
  elif [ ! -f "$ROOT/$script" ]; then
    echo "$script does not exist" > "$OUT/$key.skip"
  elif ! command -v "$interp" > /dev/null 2>&1 && [ ! -x "$ROOT/$interp" ]; then
    echo "$interp not found (package not built)" > "$OUT/$key.skip"
  elif ! run "$interp" "$script" --json "bench/out/$key.json" "$@" > "$OUT/$key.log" 2>&1; then
    rm -f "$OUT/$key.json"
    echo "\`$interp $script\` failed: $( (grep -m1 -E 'Error|error' "$OUT/$key.log" || tail -n 1 "$OUT/$key.log") | cut -c1-300)" > "$OUT/$key.skip"
  fi
}
PY=bindings-python/.venv/bin/python
# Fewer repeats than the script's default keeps the whole run near 15 minutes.
binding python "$PY" bindings-python/bench/bench.py --repeat 3 --min-time 0.1
binding node node bindings-node/bench/bench.mjs
binding wasm node bindings-wasm/bench/bench.mjs

step "memory (peak RSS)"
if run cargo build --release --quiet -p stc-cli && [ -x "$TARGET/release/stc" ]; then
  TOOL="$TARGET/release/stc"
else
  echo "run.sh: the stc CLI did not build; measuring peak RSS with stc-bench (same stc-core calls)" >&2
  TOOL="$STC_BENCH"
fi
run python3 bench/rss.py "$TOOL" bench/out/memory.json bench/out --nodes "$STC_BENCH"

step "footprint (wheel, Node addon, wasm, CLI)"
run python3 bench/footprint.py "$ROOT" bench/out

step "services (HTTP proxy, MCP proxy, TCP service)"
# Each bench/services/NAME.sh measures one service on loopback, bounded in
# count and time, and writes bench/out/services/NAME.md: a report section.
mkdir -p "$OUT/services"
for svc in "$BENCH"/services/*.sh; do
  [ -e "$svc" ] || continue
  name="$(basename "$svc" .sh)"
  if ! run bash "bench/services/$name.sh" "$TOOL" "bench/out/services/$name.md" > "$OUT/services/$name.log" 2>&1; then
    printf '### %s\n\nNot measured: `bench/services/%s.sh` failed: %s\n' "$name" "$name" \
      "$(tail -n 1 "$OUT/services/$name.log" | cut -c1-300)" > "$OUT/services/$name.md"
  fi
done

step "report"
python3 - "$OUT" "$START" "$ROOT" <<'EOF'
import json, os, platform, subprocess, sys, time
out, start, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception as e:
        return f"? ({e})"
cpu = sh("lscpu | sed -n 's/^Model name: *//p'")
ram = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
header = {
    "date (UTC)": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    "commit": sh(f"git -C {root} rev-parse --short HEAD") + (" (stc-core/stc-cli/bench with uncommitted changes)" if sh(f"git -C {root} status --porcelain -- stc-core stc-cli bench/stc-bench") else ""),
    "machine": f"{cpu}, {os.cpu_count()} CPUs, {ram} GiB RAM, shared with other jobs",
    "OS": f"{platform.platform()}",
    "Rust": sh("rustc --version"),
    "Node": sh("node --version"),
    "Python": platform.python_version(),
    "wall time of this run": f"{(time.time() - start) / 60:.1f} min",
}
with open(os.path.join(out, "commands.txt")) as f:
    commands = [line.rstrip() for line in f if line.strip()]
with open(os.path.join(out, "env.json"), "w") as f:
    json.dump({"header": header, "commands": ["bench/run.sh  # which ran:"] + ["  " + c for c in commands]}, f, indent=1)
EOF
python3 "$BENCH/report.py" "$OUT" "$BENCH"
step "done in $(( ($(date +%s) - START) / 60 )) min: bench/REPORT.md, bench/tokens.svg"
