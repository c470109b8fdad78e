#!/usr/bin/env python3
"""Where `stc.dumps` spends its time, per corpus document (issue 13).

For every document it times, against `orjson.dumps` of the same objects:
the binding's walk of the objects into stc-core's `DocumentBuilder`, the
builder's `finish`, and the core's planning and writing of STC (the three
stages of `stc.dumps`, each the best of `--loops` runs inside the extension:
`stc._stc._dumps_split`), plus `stc.dumps` as a whole (CPU time of the
thread, best of 5 loops, GC off, as `ab.py`). `amazon_cellphones.ndjson` is
the sum over its lines. A benchmark, not a test.

    PYTHONPATH=BUILD python bindings-python/bench/split.py [--loops 20]

Prints one row per document (times in ms; the stages also as multiples of
`orjson.dumps`) and the geometric means.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import time
from pathlib import Path

import orjson

import stc
from stc import _stc

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def cpu_best(fn, loops: int = 5) -> float:  # type: ignore[no-untyped-def]
    fn()
    t0 = time.thread_time()
    fn()
    n = max(1, int(0.04 / max(time.thread_time() - t0, 1e-6)))
    best = math.inf
    gc.disable()
    try:
        for _ in range(loops):
            t = time.thread_time()
            for _ in range(n):
                fn()
            best = min(best, (time.thread_time() - t) / n)
    finally:
        gc.enable()
    return best


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loops", type=int, default=20, help="runs of each stage per document (best taken)")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    rows = []
    head = f"{'document':28} {'orjson':>8} {'dumps':>8} {'walk':>8} {'finish':>8} {'write':>8}"
    print(head + "   x orjson: dumps walk finish write")
    for p in sorted(args.corpus.iterdir()):
        if p.suffix not in (".json", ".ndjson"):
            continue
        raw = p.read_text(encoding="utf-8")
        texts = [line for line in raw.splitlines() if line.strip()] if p.suffix == ".ndjson" else [raw]
        data = [json.loads(t) for t in texts]
        t_or = cpu_best(lambda data=data: [orjson.dumps(d) for d in data])
        t_st = cpu_best(lambda data=data: [stc.dumps(d) for d in data])
        stages = [0.0, 0.0, 0.0]
        for d in data:
            for i, t in enumerate(_stc._dumps_split(d, args.loops)):
                stages[i] += t
        rows.append((p.name, t_or, t_st, *stages))
        ms = [x * 1e3 for x in (t_or, t_st, *stages)]
        rel = [x / t_or for x in (t_st, *stages)]
        print(
            f"{p.name:28} " + " ".join(f"{x:8.3f}" for x in ms) + "   " + " ".join(f"{x:6.2f}" for x in rel),
            flush=True,
        )
    print(
        "geometric mean x orjson.dumps: "
        + ", ".join(
            f"{name} {geomean([r[i] / r[1] for r in rows]):.2f}"
            for name, i in (("dumps", 2), ("walk", 3), ("finish", 4), ("write", 5))
        )
    )
    share = [sum(r[i] for r in rows) / sum(r[3] + r[4] + r[5] for r in rows) for i in (3, 4, 5)]
    print("share of the three stages over all documents: " + ", ".join(f"{s:.0%}" for s in share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
