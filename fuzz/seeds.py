#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets from the conformance corpus
(every case input, and every encode case's expected STC for `decode`) into
fuzz/corpus/<target>/. Stdlib only; safe to run again.

    python3 fuzz/seeds.py
"""
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CASES = ROOT.parent / "conformance" / "cases"


def put(target, data):
    d = ROOT / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def main():
    n = 0
    for path in sorted(CASES.rglob("*.json")):
        f = json.loads(path.read_text(encoding="utf-8"))
        for case in f["cases"]:
            data = bytes.fromhex(case["input_hex"]) if "input_hex" in case else case["input"].encode()
            if len(data) > 4096:
                continue
            n += 1
            if f["category"] in ("decode", "invalid"):
                put("decode", data)
                put("decode_latin1", data)
            else:
                put("encode", data)
                put("serde_differential", data)
                if f["category"] == "encode":
                    put("decode", case["expected"].encode())
                    put("decode_latin1", case["expected"].encode())
    print("%d seeds written under %s" % (n, ROOT / "corpus"))


if __name__ == "__main__":
    main()
