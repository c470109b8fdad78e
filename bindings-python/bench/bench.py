#!/usr/bin/env python3
"""Speed of the `stc` Python module on the shared corpus, against its peers.

A benchmark script, not a test: it asserts nothing about time. For every
document of the corpus (`../shared/corpus` beside the repository, or --corpus)
it times, in seconds per call (the best of --repeat calibrated loops, the loops
of all operations interleaved so that machine load hits them alike):

  loads   stc.loads(STC text)  vs json.loads / orjson.loads(minified JSON),
          toon_format.decode(TOON text); also stc.loads(minified JSON) and
          stc.loads(STC as bytes) (no str -> UTF-8 conversion)
  dumps   stc.dumps(obj)       vs json.dumps(obj, compact separators),
          orjson.dumps(obj), toon_format.encode(obj)
  text    stc.decode(STC text) vs ADR-066's regex decoder on the same data in
          the ADR's own (readable) spacing; stc.encode(JSON text)

and checks that every peer gives the data back (the ADR decoder does not: the
script counts the documents it mis-decodes). `amazon_cellphones.ndjson` is
timed as a loop over its lines.

    python bindings-python/bench/bench.py [--json out.json] [--repeat 5]

Peers come from bench/requirements.txt (orjson, toon_format); a missing one is
reported and left out.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import stc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import adr_decoder  # noqa: E402

try:
    import orjson
except ImportError:  # reported in the output
    orjson = None
try:
    import toon_format
except ImportError:  # reported in the output
    toon_format = None

DEFAULT_CORPUS = HERE.parents[2] / "shared" / "corpus"

# (operation id, group, description) in report order.
OPS = [
    ("stc.loads", "loads", "stc.loads(STC text)"),
    ("json.loads", "loads", "json.loads(minified JSON)"),
    ("orjson.loads", "loads", "orjson.loads(minified JSON)"),
    ("toon.decode", "loads", "toon_format.decode(TOON text)"),
    ("stc.loads_json", "loads", "stc.loads(minified JSON)"),
    ("stc.loads_bytes", "loads", "stc.loads(STC text as UTF-8 bytes)"),
    ("stc.dumps", "dumps", "stc.dumps(obj)"),
    ("json.dumps", "dumps", "json.dumps(obj, separators=(',', ':'))"),
    ("orjson.dumps", "dumps", "orjson.dumps(obj)"),
    ("toon.encode", "dumps", "toon_format.encode(obj)"),
    ("stc.decode", "text", "stc.decode(STC text) -> JSON text"),
    ("adr.decode_stc", "text", "ADR-066 regex decode_stc(readable STC) -> JSON text"),
    ("stc.encode", "text", "stc.encode(JSON text) -> STC text"),
]


class Doc:
    """One corpus file: one JSON document, or (ndjson) one per line."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        raw = path.read_text(encoding="utf-8")
        texts = [line for line in raw.splitlines() if line.strip()] if path.suffix == ".ndjson" else [raw]
        self.data = [json.loads(t) for t in texts]
        # Minified JSON with the document's own number lexemes and canonical
        # strings: the very data the STC text holds, so both parsers see the
        # same numbers and strings.
        self.json = [stc.decode(t) for t in texts]
        self.stc = [stc.encode(t) for t in texts]
        self.stc_readable = [stc.encode(t, profile="readable") for t in texts]
        self.toon = [toon_format.encode(d) for d in self.data] if toon_format else None

    def json_bytes(self) -> int:
        return sum(len(t.encode()) for t in self.json)

    def stc_bytes(self) -> int:
        return sum(len(t.encode()) for t in self.stc)


def loop(fn: Callable[[Any], Any], items: list[Any]) -> Callable[[], None]:
    if len(items) == 1:
        item = items[0]
        return lambda: fn(item)
    return lambda: [fn(i) for i in items] and None


def calls(doc: Doc) -> dict[str, Callable[[], None] | None]:
    return {
        "stc.loads": loop(stc.loads, doc.stc),
        "json.loads": loop(json.loads, doc.json),
        "orjson.loads": loop(orjson.loads, doc.json) if orjson else None,
        "toon.decode": loop(toon_format.decode, doc.toon) if toon_format and doc.toon else None,
        "stc.loads_json": loop(stc.loads, doc.json),
        "stc.loads_bytes": loop(stc.loads, [t.encode() for t in doc.stc]),
        "stc.dumps": loop(stc.dumps, doc.data),
        "json.dumps": loop(lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False), doc.data),
        "orjson.dumps": loop(orjson.dumps, doc.data) if orjson else None,
        "toon.encode": loop(toon_format.encode, doc.data) if toon_format else None,
        "stc.decode": loop(stc.decode, doc.stc),
        "adr.decode_stc": loop(adr_decoder.decode_stc, doc.stc_readable),
        "stc.encode": loop(stc.encode, doc.json),
    }


def calibrate(fn: Callable[[], None], min_time: float) -> tuple[int, float]:
    """Calls per timed loop so that one loop lasts at least min_time; and its time."""
    number = 1
    while True:
        elapsed = _timed(fn, number)
        if elapsed >= min_time or number >= 1 << 20:
            return number, elapsed
        number *= 2 if elapsed <= 0 else max(2, min(10, int(min_time / elapsed * 1.2) + 1))


def best_times(fns: dict[str, Callable[[], None] | None], repeat: int, min_time: float) -> dict[str, float | None]:
    """Seconds per call of each function: the best of `repeat` timed loops.

    The loops are interleaved (one loop of every function per round), so that
    changes in machine load hit all of them alike and the ratios hold better
    than the absolute figures.
    """
    plan = {op: calibrate(fn, min_time) for op, fn in fns.items() if fn is not None}
    best = {op: elapsed / number for op, (number, elapsed) in plan.items()}
    for _ in range(repeat - 1):
        for op, (number, elapsed) in plan.items():
            if elapsed < 2.0:  # a slow peer (pure Python) is timed once
                best[op] = min(best[op], _timed(fns[op], number) / number)  # type: ignore[arg-type]
    return {op: best.get(op) for op in fns}


def _timed(fn: Callable[[], None], number: int) -> float:
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as timeit does
    try:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        return time.perf_counter() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def checks(doc: Doc) -> dict[str, bool | None]:
    """Does each decoder give the data back? (lists of per-line results -> all)"""

    def adr_ok(text: str, data: Any) -> bool:
        try:
            return bool(json.loads(adr_decoder.decode_stc(text)) == data)
        except Exception:  # invalid JSON out, or the regexes choke
            return False

    return {
        "stc.loads": all(stc.loads(t) == d for t, d in zip(doc.stc, doc.data, strict=False)),
        "stc.decode": all(
            stc.decode(t) == j and json.loads(j) == d for t, j, d in zip(doc.stc, doc.json, doc.data, strict=False)
        ),
        "adr.decode_stc": all(adr_ok(t, d) for t, d in zip(doc.stc_readable, doc.data, strict=False)),
        "toon.decode": all(toon_format.decode(t) == d for t, d in zip(doc.toon, doc.data, strict=False))
        if doc.toon
        else None,
    }


def fmt_time(s: float | None) -> str:
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


# The columns of the printed table (the JSON report has every operation).
TABLE = [
    ("stc.loads", "stc.loads"),
    ("json.loads", "json.loads"),
    (None, "stc/json"),
    ("orjson.loads", "orjson.loads"),
    ("stc.loads_bytes", "stc.loads (bytes)"),
    ("toon.decode", "toon.decode"),
    ("stc.dumps", "stc.dumps"),
    ("json.dumps", "json.dumps"),
    ("orjson.dumps", "orjson.dumps"),
    ("toon.encode", "toon.encode"),
    ("stc.decode", "stc.decode"),
    ("adr.decode_stc", "ADR regex"),
]


def markdown_table(documents: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    def cells(times: dict[str, Any]) -> str:
        return " | ".join(
            (f"{times['stc.loads'] / times['json.loads']:.2f}" if op is None else fmt_time(times.get(op)))
            for op, _ in TABLE
        )

    lines = [
        "| document | STC/JSON bytes | " + " | ".join(title for _, title in TABLE) + " | ADR output |",
        "| --- | ---: | " + " | ".join("---:" for _ in TABLE) + " | --- |",
    ]
    for d in documents:
        adr = "ok" if d["round_trips"]["adr.decode_stc"] else "**wrong**"
        lines.append(f"| {d['name']} | {d['stc_bytes'] / d['json_bytes']:.2f} | {cells(d['seconds'])} | {adr} |")
    lines.append(f"| **total** | | {cells(summary['total_seconds'])} | |")
    return "\n".join(lines)


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of .json/.ndjson documents")
    parser.add_argument("--json", type=Path, help="also write machine-readable results to this file")
    parser.add_argument("--repeat", type=int, default=5, help="timed loops per operation (best is kept)")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds each timed loop lasts at least")
    parser.add_argument("--only", nargs="*", help="only these corpus files (names)")
    args = parser.parse_args()

    paths = sorted(p for p in args.corpus.iterdir() if p.suffix in (".json", ".ndjson"))
    if args.only:
        paths = [p for p in paths if p.name in args.only]
    if not paths:
        print(f"no .json/.ndjson documents in {args.corpus}", file=sys.stderr)
        return 2

    env = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "system": platform.system(),
        "stc": stc.__version__,
        "orjson": getattr(orjson, "__version__", None),
        "toon_format": getattr(toon_format, "__version__", None),
    }
    print(f"# stc Python benchmark — {len(paths)} corpus files, best of {args.repeat}")
    print("# " + ", ".join(f"{k} {v}" for k, v in env.items()))
    for name, mod in (("orjson", orjson), ("toon_format", toon_format)):
        if mod is None:
            print(f"# {name} is not installed (pip install -r bench/requirements.txt): left out")

    documents = []
    for path in paths:
        doc = Doc(path)
        times = best_times(calls(doc), args.repeat, args.min_time)
        ok = checks(doc)
        documents.append(
            {
                "name": doc.name,
                "values": len(doc.data),
                "json_bytes": doc.json_bytes(),
                "stc_bytes": doc.stc_bytes(),
                "seconds": times,
                "round_trips": ok,
            }
        )
        ratio = times["stc.loads"] / times["json.loads"]  # type: ignore[operator]
        print(
            f"{doc.name:32} stc.loads {fmt_time(times['stc.loads']):>10}"
            f"  json.loads {fmt_time(times['json.loads']):>10}  ratio {ratio:.2f}  adr ok: {ok['adr.decode_stc']}",
            flush=True,
        )

    summary: dict[str, Any] = {"total_seconds": {}, "geomean_ratio_vs_json": {}}
    for op, _, _ in OPS:
        values = [d["seconds"][op] for d in documents]
        if all(v is not None for v in values):
            summary["total_seconds"][op] = sum(values)
    for op, base in [
        ("stc.loads", "json.loads"),
        ("orjson.loads", "json.loads"),
        ("toon.decode", "json.loads"),
        ("stc.loads_json", "json.loads"),
        ("stc.loads_bytes", "json.loads"),
        ("stc.dumps", "json.dumps"),
        ("orjson.dumps", "json.dumps"),
        ("toon.encode", "json.dumps"),
        ("adr.decode_stc", "stc.decode"),
    ]:
        pairs = [(d["seconds"][op], d["seconds"][base]) for d in documents]
        if all(a is not None and b is not None for a, b in pairs):
            summary["geomean_ratio_vs_json"][f"{op}/{base}"] = geomean([a / b for a, b in pairs])
    # Issue 13: stc against orjson (targets: geometric mean <= 1.0, no document above 1.5).
    summary["vs_orjson"] = {}
    for op, base in [
        ("stc.loads", "orjson.loads"),
        ("stc.loads_bytes", "orjson.loads"),
        ("stc.dumps", "orjson.dumps"),
    ]:
        pairs = [(d["name"], d["seconds"][op], d["seconds"][base]) for d in documents]
        if all(a is not None and b is not None for _, a, b in pairs):
            ratios = {name: a / b for name, a, b in pairs}
            worst = max(ratios, key=lambda n: ratios[n])
            summary["vs_orjson"][f"{op}/{base}"] = {
                "geomean": geomean(list(ratios.values())),
                "max": ratios[worst],
                "worst_document": worst,
                "per_document": ratios,
            }
    summary["adr_misdecoded_documents"] = sum(1 for d in documents if not d["round_trips"]["adr.decode_stc"])
    summary["stc_loads_faster_than_json_loads"] = sum(
        1 for d in documents if d["seconds"]["stc.loads"] <= d["seconds"]["json.loads"]
    )
    summary["documents"] = len(documents)

    print()
    print(markdown_table(documents, summary))
    print()
    for key, value in summary["geomean_ratio_vs_json"].items():
        print(f"geometric mean of per-document time ratio {key}: {value:.2f}")
    for key, value in summary["vs_orjson"].items():
        print(f"{key}: geometric mean {value['geomean']:.2f}, worst {value['max']:.2f} ({value['worst_document']})")
    print(
        f"stc.loads no slower than json.loads on {summary['stc_loads_faster_than_json_loads']}"
        f"/{len(documents)} documents"
    )
    print(
        f"ADR-066 regex decoder: WRONG output on {summary['adr_misdecoded_documents']}/{len(documents)} documents"
        " (invalid JSON or different data); its times are not a like-for-like comparison"
    )
    bad = [d["name"] for d in documents if not (d["round_trips"]["stc.loads"] and d["round_trips"]["stc.decode"])]
    if bad:
        print(f"stc did not round-trip: {bad}", file=sys.stderr)
    toon_bad = [d["name"] for d in documents if d["round_trips"]["toon.decode"] is False]
    if toon_bad:
        print(f"toon_format did not give the data back on: {toon_bad}")

    if args.json:
        report = {
            "command": "python bindings-python/bench/bench.py " + " ".join(sys.argv[1:]),
            "environment": env,
            "repeat": args.repeat,
            "min_time": args.min_time,
            "unit": "seconds per call (best of repeat)",
            "operations": {op: {"group": group, "description": desc} for op, group, desc in OPS},
            "documents": documents,
            "summary": summary,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
