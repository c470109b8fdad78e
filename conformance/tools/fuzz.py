#!/usr/bin/env python3
"""Differential fuzzing: the Rust reference (through the Python binding,
package `stc`) against the independent oracle (tools/oracle.py).

    # with the binding installed, e.g. its development venv:
    bindings-python/.venv/bin/python conformance/tools/fuzz.py --seed 1 --runs 200000

Decode: mutations of every corpus input (insert a token, delete a byte,
duplicate a slice), read at version 1 and 2; both readers must agree on the
output or on the error kind and byte offset. Encode: random JSON documents
built to hit every encoder decision (keys that need quotes, duplicates,
lexemes, lone surrogates, arrays of objects with the same or reordered keys,
nested cells, strings at the edges of the bare-string rule); checked by
value in both profiles and versions (the oracle writes the fixed version 1
forms, the reference its cost-driven choices): the reference's output,
read by the oracle, and the oracle's output, read by the reference, must
both be the input's value. Prints the
first input of each kind of disagreement; exit 1 if there was any.
"""

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402

try:
    import stc
except ImportError:
    sys.exit("needs the Python binding (package `stc`); see bindings-python/README.md")

CASES = Path(__file__).resolve().parent.parent / "cases"
TOKENS = [b",", b":", b"/", b"{", b"}", b"[", b"]", b'"', b"\\", b" ", b"\n", b"[2]", b"[1]:", b"{a}", b"0", b"1",
          b"-", b".", b"e", b"a", b"null", b'"x"', b"[0]:", b"\\u", b"\xff", b"\xc3", b"~", b"tru", b"x y", b"\xc2\xa0", b"(", b")", b"@", b"\xd0\xb5",
          b"{1}", b"{a{b}}", b"True"]


def reference_decode(data, depth, version=1):
    try:
        return ("ok", stc.decode(data, max_depth=depth, version=version))
    except stc.STCDecodeError as e:
        return ("err", e.kind, e.offset)


def mutate(rng, s):
    for _ in range(rng.randint(1, 3)):
        i = rng.randint(0, len(s))
        r = rng.random()
        if r < 0.4:
            s = s[:i] + rng.choice(TOKENS) + s[i:]
        elif r < 0.7:
            s = s[:i] + s[i + 1:]
        else:
            j = rng.randint(0, len(s))
            s = s[:i] + s[j:j + rng.randint(1, 6)] + s[i:]
    return s


KEYS = ["a", "b", "id", "name", "x-y", "", "é", "true", "_", "a b", "1x", "\ud800", '"q"', "a[2]"]
NUMS = ["0", "-0", "1.0", "1E+2", "0.10", "123456789012345678901234567890", "-2.5e-3"]
STRS = ["", "x", " / ", ",", ":", "[3]:", "\\", '"', "\n", "\u0001", "é", "😀", "\ud800", "\u2028", "/",
        "a b", " a", "a ", "-a", "+a", ".a", "1a", "true", "True", "true story", "nan", "Infinity", "null x", "~",
        "a~b", "\u00a0a", "a\u0085", "caf\u00e9 bar", "'q'", "#x=1;", "a\tb", "a\u007fb", "None", "tru\u0435",
        "true\u200b", "f(x)", "@ref", "R&D", "\u0141\u00f3d\u017a"]


def document(rng, d=0):
    r = rng.random()
    if d > 4 or r < 0.35:
        return rng.choice([None, True, False, oracle.Num(rng.choice(NUMS)), rng.choice(STRS)])
    if r < 0.6:
        return [document(rng, d + 1) for _ in range(rng.randint(0, 4))]
    if r < 0.8:  # arrays of records: columnar candidates
        keys = rng.sample(KEYS, rng.randint(1, 3))
        if rng.random() < 0.2:
            keys.append(keys[0])
        rows = []
        for _ in range(rng.randint(0, 4)):
            order = keys if rng.random() < 0.85 else rng.sample(keys, len(keys))
            rows.append(oracle.Obj((k, document(rng, 5) if rng.random() < 0.9 else [document(rng, 5)]) for k in order))
        return rows
    return oracle.Obj((rng.choice(KEYS), document(rng, d + 1)) for _ in range(rng.randint(0, 4)))


def dump(v):
    if isinstance(v, oracle.Obj):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(e) for e in v) + "]"
    if isinstance(v, oracle.Num):
        return str(v)
    return json.dumps(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=100000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    inputs = []
    for path in sorted(CASES.glob("*/*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            data = bytes.fromhex(case["input_hex"]) if "input_hex" in case else case["input"].encode()
            if len(data) <= 400:
                inputs.append((data, case.get("options", {}).get("max_depth", 128)))
    kinds, total = {}, 0
    for _ in range(args.runs):
        data, depth = rng.choice(inputs)
        data = mutate(rng, data)
        version = rng.choice((1, 2))
        a, b = oracle.decode(data, depth, version=version), reference_decode(data, depth, version)
        if a != b:
            total += 1
            kind = ("decode", version, a[:2], b[:2])
            if kind not in kinds:
                kinds[kind] = data
                print("decode disagreement on %r (max_depth %d, version %d)\n  oracle    %r\n  reference %r" % (data[:120], depth, version, a, b))
    docs = max(1, args.runs // 5)
    for _ in range(docs):
        text = dump(document(rng))
        want = oracle.decode(text.encode("utf-8", "surrogatepass"), 10000, json_only=True)
        for profile in ("compact", "readable"):
            for version in (1, 2):
                ours = oracle.encode(text, profile)
                theirs = stc.encode(text, profile=profile, version=version)
                for what, got in (
                    ("reference's output read by the oracle", oracle.decode(theirs.encode("utf-8", "surrogatepass"), 10000, version=version)),
                    ("oracle's output read by the reference", reference_decode(ours.encode("utf-8", "surrogatepass"), 10000, version)),
                ):
                    if got != want:
                        total += 1
                        kind = ("encode", profile, version, what)
                        if kind not in kinds:
                            kinds[kind] = text
                            print("encode disagreement (%s, version %d, %s) on %s\n  reference %s\n  oracle    %s\n  input     %r\n  read as   %r" % (profile, version, what, text, theirs, ours, want, got))
    print("%d decode runs, %d encode documents x 2 profiles x 2 versions: %d disagreements of %d kinds" % (args.runs, docs, total, len(kinds)))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
