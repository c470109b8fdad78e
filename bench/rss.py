#!/usr/bin/env python3
"""Peak RSS of `TOOL encode FILE` and `TOOL decode FILE.stc` against input size (issue 12).

Usage: python3 bench/rss.py TOOL MEMORY_JSON OUT_DIR [RESULT_NAME] [--nodes STC_BENCH] [--runs N]
       (writes OUT_DIR/RESULT_NAME, default rss.json)

TOOL is `target/release/stc` (the CLI) or, when the CLI is not built,
`stc-bench` (same stc-core calls). MEMORY_JSON lists the inputs (written by
bench/gen.py: the largest corpus documents, generated employee tables and,
with `gen.py --big-mb N`, an event log of about N MB). Measured with GNU
time's `-v` (maximum resident set size). The STC text of each input is
written to OUT_DIR/mem/ and decoded from there; the decoded JSON is compared
with the input's minified form by size only (the byte-exact round trip is the
codec's tests' business), to catch a truncated output.

Targets (issue 12): encode peak RSS at most 2 x the input plus a constant,
decode at most 1.5 x the (STC) input plus a constant; the constant is the
baseline, the same tool encoding a small document that takes every path of
the encoder (a table with a column group, a keyed table, nested arrays,
quoted and bare-able strings, an escape; under 1 KB, written to
OUT_DIR/mem/small.json): what the tool holds whatever the input's size,
its code included. (Encoding `{}` touches about 0.3 MiB less code and
buffers; it is recorded as `baseline_empty_kb` and is the decoder's
constant, as before.) Each peak is the minimum
of N runs (`--runs`, default 3; inputs above 64 MiB run once): the same
command's peak varies by a few hundred KiB from run to run (page faults
around the allocator's and the loader's mappings), which on the 1.5 MB
inputs is 0.2 x. With `--nodes STC_BENCH`, each input's
number of tape nodes (`stc-bench nodes FILE`) is recorded too, for the
report's composition of the encoder's peak (input, tape at 8 bytes a node,
the rest). `stc encode` streams its output, so the STC text is not part of
its peak.
"""
import json
import os
import re
import subprocess
import sys

ENCODE_TARGET = 2.0
DECODE_TARGET = 1.5


BIG_INPUT = 64 << 20

# The baseline document: every form the encoder writes, in under 1 KB.
SMALL = {
    "rows": [{"id": i, "name": f"n{i}", "ok": i % 2 == 0, "tags": ["a", "b"], "user": {"x": i, "y": "z"}}
             for i in range(3)],
    "keyed": {"k1": {"a": 1, "b": "x, y"}, "k2": {"a": 2, "b": "v"}},
    "pairs": [[1, 2], [3, 4]],
    "text": "caf\u00e9 \\/ x",
    "f": 1.5e3,
    "n": None,
}


def peak_kb(argv, stdout, runs=1):
    """Maximum resident set size of `argv` in kB, the least of `runs` runs."""
    best = None
    for _ in range(runs):
        if hasattr(stdout, "seek"):
            stdout.seek(0)
            stdout.truncate()
        r = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=stdout, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit(f"rss.py: {' '.join(argv)} failed: {r.stderr.strip().splitlines()[-1:]}")
        kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
        best = kb if best is None else min(best, kb)
    return best


def main():
    args = sys.argv[1:]
    nodes_tool = None
    if "--nodes" in args:
        i = args.index("--nodes")
        nodes_tool = args[i + 1]
        del args[i:i + 2]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    tool, memory_json, out_dir = args[:3]
    result_name = args[3] if len(args) > 3 else "rss.json"
    with open(memory_json) as f:
        inputs = json.load(f)
    mem_dir = os.path.join(out_dir, "mem")
    os.makedirs(mem_dir, exist_ok=True)
    tiny = os.path.join(mem_dir, "tiny.json")
    with open(tiny, "w") as f:
        f.write("{}")
    small = os.path.join(mem_dir, "small.json")
    with open(small, "w") as f:
        json.dump(SMALL, f)
    baseline_empty = peak_kb([tool, "encode", tiny], subprocess.DEVNULL, runs)
    baseline = peak_kb([tool, "encode", small], subprocess.DEVNULL, runs)
    rows = []
    for path in inputs:
        name = os.path.basename(path)
        stc_path = os.path.join(mem_dir, name + ".stc")
        json_path = os.path.join(mem_dir, name + ".out.json")
        n = 1 if os.path.getsize(path) > BIG_INPUT else runs
        with open(stc_path, "w") as f:
            encode_kb = peak_kb([tool, "encode", path], f, n)
        with open(json_path, "w") as f:
            decode_kb = peak_kb([tool, "decode", stc_path], f, n)
        json_bytes, stc_bytes = os.path.getsize(path), os.path.getsize(stc_path)
        out_bytes = os.path.getsize(json_path)
        os.remove(json_path)
        enc = (encode_kb - baseline) * 1024 / json_bytes
        dec = (decode_kb - baseline_empty) * 1024 / stc_bytes
        rows.append({"name": name, "json_bytes": json_bytes, "stc_bytes": stc_bytes, "decoded_bytes": out_bytes,
                     "encode_kb": encode_kb, "decode_kb": decode_kb, "encode_ratio": enc, "decode_ratio": dec,
                     "encode_ok": enc <= ENCODE_TARGET, "decode_ok": dec <= DECODE_TARGET})
        if nodes_tool:
            r = subprocess.run([nodes_tool, "nodes", path], capture_output=True, text=True, check=True)
            rows[-1]["nodes"] = int(r.stdout)
        if name.endswith("mb.json"):
            os.remove(stc_path)  # the big input's STC text is large; nothing reads it again
        print(f"rss.py: {name}: encode {encode_kb} kB ({enc:.2f} x input), decode {decode_kb} kB ({dec:.2f} x input)",
              file=sys.stderr)
    with open(os.path.join(out_dir, result_name), "w") as f:
        json.dump({"tool": tool, "baseline_kb": baseline, "baseline_empty_kb": baseline_empty, "runs": runs,
                   "baseline_document": SMALL, "encode_target": ENCODE_TARGET,
                   "decode_target": DECODE_TARGET, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
