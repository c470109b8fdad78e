#!/usr/bin/env python3
"""Peak RSS of `TOOL encode FILE` and `TOOL decode FILE.stc` against input size.

Usage: python3 bench/rss.py TOOL MEMORY_JSON OUT_DIR   (writes OUT_DIR/rss.json)

TOOL is `target/release/stc` (the CLI) or, when the CLI is not built,
`stc-bench` (same stc-core calls). Measured with GNU time's `-v`.
"""
import json
import os
import re
import subprocess
import sys


def peak_kb(argv, stdout):
    r = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=stdout, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"rss.py: {' '.join(argv)} failed: {r.stderr.strip().splitlines()[-1:]}")
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))


def main():
    tool, memory_json, out_dir = sys.argv[1:4]
    with open(memory_json) as f:
        inputs = json.load(f)
    mem_dir = os.path.join(out_dir, "mem")
    os.makedirs(mem_dir, exist_ok=True)
    rows = []
    for path in inputs:
        name = os.path.basename(path)
        stc_path = os.path.join(mem_dir, name + ".stc")
        with open(stc_path, "w") as f:
            encode_kb = peak_kb([tool, "encode", path], f)
        decode_kb = peak_kb([tool, "decode", stc_path], subprocess.DEVNULL)
        rows.append({"name": name, "json_bytes": os.path.getsize(path), "stc_bytes": os.path.getsize(stc_path),
                     "encode_kb": encode_kb, "decode_kb": decode_kb})
        print(f"rss.py: {name}: encode {encode_kb} kB, decode {decode_kb} kB", file=sys.stderr)
    tiny = os.path.join(mem_dir, "tiny.json")
    with open(tiny, "w") as f:
        f.write("{}")
    baseline = peak_kb([tool, "encode", tiny], subprocess.DEVNULL)
    with open(os.path.join(out_dir, "rss.json"), "w") as f:
        json.dump({"tool": tool, "baseline_kb": baseline, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
