#!/usr/bin/env python3
"""Fits the constants of stc-core's token estimator (`stc-core/src/estimate.rs`).

Usage:
    stc-bench dump bench/out/manifest.json bench/out/texts   # texts + exact o200k_base counts
    python3 bench/calibrate.py bench/out/texts

It splits every text into the pieces the estimator sees (the same rules as
estimate.rs, written here as one regular expression), counts pieces by kind and
length once, then grid-searches the per-kind costs that minimize the mean
absolute percentage error against o200k_base over all documents and texts
(minified JSON, pretty JSON, STC compact, STC readable). Not part of run.sh:
the constants it prints were copied into estimate.rs by hand, and run.sh
measures the estimator that ships.
"""
import collections
import itertools
import json
import math
import os
import re
import sys

PUNCT = r"!-/:-@\[-`{-~"
PIECE = re.compile(
    rf"(?P<word>(?P<pre>[\t {PUNCT}])?(?:[A-Z]+[a-z]*|[a-z]+))"
    r"|(?P<digits>[0-9]+)"
    rf"|(?P<punct> ?[{PUNCT}]+[\r\n]*)"
    r"|(?P<ws>\s+?(?= [^\s0-9])|\s+)"
    r"|(?P<na> ?[^\x00-\x7f]+)"
)


def histogram(text):
    h = collections.Counter()
    for m in PIECE.finditer(text):
        kind = m.lastgroup if m.lastgroup != "pre" else "word"
        if m.group("word"):
            pre = m.group("pre")
            body = m.group("word")[1:] if pre else m.group("word")
            prefix = "none" if pre is None else ("space" if pre in " \t" else "other")
            caps = len(body) > 1 and body.isupper()
            h[("word", len(body), prefix, caps)] += 1
        elif m.group("digits"):
            h[("digits", len(m.group("digits")))] += 1
        elif m.group("punct"):
            p = m.group("punct").lstrip(" ").rstrip("\r\n")
            h[("punct", len(p), '"' in p, '"' in p and '/' in p)] += 1
        elif m.group("ws") is not None:
            # Before a digit, a run of 2+ spaces is two pieces: o200k's
            # `\s+(?!\S)` leaves the last space, which digits do not absorb.
            end = m.end()
            before_digit = end < len(text) and text[end].isdigit() and len(m.group("ws")) > 1
            h[("ws", before_digit)] += 1
        else:
            h[("na", len(m.group("na").lstrip(" ").encode()))] += 1
    return h


def cost(h, p):
    total = 0.0
    for key, n in h.items():
        kind = key[0]
        if kind == "word":
            _, length, prefix, caps = key
            c = math.ceil(length / (p["caps"] if caps else p["word"]))
            if prefix == "other":
                c += p["pre_other"]
            total += n * c
        elif kind == "digits":
            total += n * math.ceil(key[1] / 3)
        elif kind == "punct":
            # Runs holding a quote (JSON's `":"`, `","`, `":{"`) merge more; a quote plus a
            # slash (STC's row separator `"/"`, URLs ending a string) merges less.
            total += n * (math.ceil(key[1] / (p["punct_q"] if key[2] else p["punct"])) + (p["slash"] if key[3] else 0))
        elif kind == "ws":
            total += n * (2 if key[1] else 1)
        else:
            total += n * math.ceil(key[1] / p["na"])
    return total


def main():
    d = sys.argv[1]
    counts = json.load(open(os.path.join(d, "counts.json")))
    hists = {}
    for name in sorted(counts):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            hists[name] = histogram(f.read())
        print(f"split {name}", file=sys.stderr)
    # Splitting the prefix by character (`_`, `,`, `{`, `"`) or charging punctuation runs by length alone
    # fitted worse; these are the neighbourhood of the best fit.
    grid = {
        "word": [8, 10, 12],
        "caps": [2, 3],
        "pre_other": [0.5, 1],
        "punct": [2, 3],
        "punct_q": [3, 4, 5],
        "slash": [0, 0.5, 1],
        "na": [4, 6, 8],
    }
    best = []
    for values in itertools.product(*grid.values()):
        p = dict(zip(grid, values))
        errs = [abs(cost(h, p) / counts[n]["o200k_base"] - 1) for n, h in hists.items()]
        best.append((sum(errs) / len(errs), max(errs), p))
    best.sort(key=lambda x: x[0])
    for mape, worst, p in best[:8]:
        print(f"MAPE {mape * 100:.2f}%  max {worst * 100:.1f}%  {p}")
    p = best[0][2]
    for n, h in hists.items():
        print(f"{n:45s} {cost(h, p) / counts[n]['o200k_base'] - 1:+.3f}  (current estimate {counts[n]['estimate'] / counts[n]['o200k_base'] - 1:+.3f})")


if __name__ == "__main__":
    main()
