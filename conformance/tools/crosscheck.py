#!/usr/bin/env python3
"""Runs every case of the corpus through the independent Python oracle
(tools/oracle.py, written from the spec, not from stc-core) and reports each
case where the oracle and the committed expectation disagree. Stdlib only.

    python3 conformance/tools/crosscheck.py

A disagreement means the oracle, the expectation or the spec is wrong: read
the spec. The Rust reference agrees with every expectation (cargo test), so
a clean run here means two independent readings of the spec give the same
bytes, offsets and error kinds on the whole corpus.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402
from cases import expand, files  # noqa: E402

def expectation(case):
    if "expected" in case:
        return ("ok", case["expected"])
    return ("err", case["error"]["kind"], case["error"]["offset"])


def run(category, case):
    data = bytes.fromhex(case["input_hex"]) if "input_hex" in case else case["input"].encode()
    depth = case.get("options", {}).get("max_depth", 128)
    version = case.get("options", {}).get("version", 1)
    if category in ("decode", "invalid"):
        return [("decode", oracle.decode(data, depth, version=version))]
    parsed = oracle.decode(data, depth, json_only=True)
    if category == "json-invalid" or parsed[0] == "err":
        return [("read as JSON", parsed)]
    if category == "encode":
        profile = case.get("options", {}).get("profile", "compact")
        return [("encode " + profile, ("ok", oracle.encode(case["input"], profile)))]
    results = [("read as JSON", parsed)]
    for profile in ("compact", "readable"):
        stc = oracle.encode(case["input"], profile)
        results.append(("roundtrip " + profile, oracle.decode(stc.encode(), depth)))
    return results


def main():
    checked = disagreements = 0
    for path, f in files():
        for case in [member for case in f["cases"] for member in expand(case)]:
            want = expectation(case)
            for what, got in run(f["category"], case):
                checked += 1
                if got != want:
                    disagreements += 1
                    print("%s::%s (%s)\n  expected %r\n  oracle   %r" % (path.stem, case["name"], what, want, got))
    print("%d checks, %d disagreements" % (checked, disagreements))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
