#!/usr/bin/env python3
"""A/B of two builds of the `stc` package against orjson (issue 13 candidates).

Each build is a directory holding an `stc` package with its extension (copy
`python/stc` there and put `target/release/lib_stc.so` in it as
`_stc.abi3.so`, or as `_stc.so` for a build with `--no-default-features`).
Every round runs each build in its own interpreter; each document is timed
in CPU time of the thread (`time.thread_time`, so that other processes on a
loaded machine count less than with wall-clock time), best of 5 loops,
against orjson in the same process. A benchmark, not a test.

    python bindings-python/bench/ab.py loads BEFORE_DIR AFTER_DIR [--rounds 2]
    python bindings-python/bench/ab.py dumps BEFORE_DIR AFTER_DIR

Prints, per build, the geometric mean and the worst per-document ratio of
stc to orjson, and the geometric mean of after/before stc times.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def child(op: str, corpus: Path) -> None:
    import orjson

    import stc

    out = {}
    for p in sorted(corpus.iterdir()):
        if p.suffix not in (".json", ".ndjson"):
            continue
        raw = p.read_text(encoding="utf-8")
        texts = [line for line in raw.splitlines() if line.strip()] if p.suffix == ".ndjson" else [raw]
        js = [stc.decode(t) for t in texts]
        st = [stc.encode(t) for t in texts]
        data = [json.loads(t) for t in texts]
        if op == "loads":
            a = lambda st=st: [stc.loads(t) for t in st]  # noqa: E731
            b = lambda js=js: [orjson.loads(t) for t in js]  # noqa: E731
        else:
            a = lambda data=data: [stc.dumps(d) for d in data]  # noqa: E731
            b = lambda data=data: [orjson.dumps(d) for d in data]  # noqa: E731

        def best(fn, n):  # type: ignore[no-untyped-def]
            gc.disable()
            t = time.thread_time()
            for _ in range(n):
                fn()
            r = (time.thread_time() - t) / n
            gc.enable()
            return r

        t0 = time.thread_time()
        a()
        n = max(1, int(0.04 / max(time.thread_time() - t0, 1e-6)))
        ta = tb = 1e9
        for _ in range(5):
            ta = min(ta, best(a, n))
            tb = min(tb, best(b, n))
        out[p.name] = (ta, tb)
    print(json.dumps(out))


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op", choices=["loads", "dumps"])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.op, args.corpus)
        return 0
    runs: dict[str, list[dict[str, list[float]]]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for name, build in (("before", args.before), ("after", args.after)):
            env = {**os.environ, "PYTHONPATH": str(build.resolve())}
            cmd = [
                sys.executable,
                __file__,
                args.op,
                str(args.before),
                str(args.after),
                "--child",
                "--corpus",
                str(args.corpus),
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
            runs[name].append(json.loads(proc.stdout))
    best = {name: {d: (min(r[d][0] for r in rs), min(r[d][1] for r in rs)) for d in rs[0]} for name, rs in runs.items()}
    for name, docs in best.items():
        ratios = {d: s / o for d, (s, o) in docs.items()}
        worst = max(ratios, key=lambda d: ratios[d])
        print(
            f"{name}: stc.{args.op}/orjson.{args.op} geometric mean {geomean(list(ratios.values())):.2f}, "
            f"worst {ratios[worst]:.2f} ({worst})"
        )
        print("   " + " ".join(f"{d.rsplit('.', 1)[0]}:{r:.2f}" for d, r in ratios.items()))
    speed = geomean([best["after"][d][0] / best["before"][d][0] for d in best["before"]])
    print(f"after/before stc time, geometric mean: {speed:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
