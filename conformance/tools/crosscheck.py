#!/usr/bin/env python3
"""Runs every case of the corpus through the independent Python oracle
(tools/oracle.py, written from the spec, not from stc-core) and reports each
case where the oracle and the committed expectation disagree. Stdlib only.

    python3 conformance/tools/crosscheck.py

Encode cases are checked by value: the oracle's own encoding and the
case's expected bytes must both decode (oracle, the case's version) to the
input's value. A disagreement means the oracle, the expectation or the spec
is wrong: read the spec. The Rust reference agrees with every expectation (cargo test), so
a clean run here means two independent readings of the spec give the same
bytes, offsets and error kinds on the whole corpus.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402
from cases import files  # noqa: E402

def expectation(case):
    if "expected" in case:
        return ("ok", case["expected"])
    return ("err", case["error"]["kind"], case["error"]["offset"])


def run(category, case):
    """[(what was checked, what the oracle gave, what it should give)]."""
    want = expectation(case)
    data = bytes.fromhex(case["input_hex"]) if "input_hex" in case else case["input"].encode()
    depth = case.get("options", {}).get("max_depth", 128)
    version = case.get("options", {}).get("version", 1)
    if category in ("decode", "invalid"):
        return [("decode", oracle.decode(data, depth, version=version), want)]
    parsed = oracle.decode(data, depth, json_only=True)
    if category == "json-invalid" or parsed[0] == "err":
        return [("read as JSON", parsed, want)]
    if category == "encode":
        # By value (RUNNER.md, --encoder-check value): the oracle's encoder
        # makes its own layout choices (the fixed version 1 forms); its output
        # and the reference's expected bytes must both decode, at the case's
        # version, to the input's value (canonical minified JSON).
        profile = case.get("options", {}).get("profile", "compact")
        stc = oracle.encode(case["input"], profile)
        return [
            ("oracle's encoding (%s), decoded" % profile, oracle.decode(stc.encode(), depth, version=version), parsed),
            ("expected bytes, decoded", oracle.decode(case["expected"].encode(), depth, version=version), parsed),
        ]
    results = [("read as JSON", parsed, want)]
    for profile in ("compact", "readable"):
        stc = oracle.encode(case["input"], profile)
        results.append(("roundtrip " + profile, oracle.decode(stc.encode(), depth, version=version), want))
    return results


def main():
    checked = disagreements = 0
    for path, f in files():
        for case in f["cases"]:
            for what, got, want in run(f["category"], case):
                checked += 1
                if got != want:
                    disagreements += 1
                    print("%s::%s (%s)\n  expected %r\n  oracle   %r" % (path.stem, case["name"], what, want, got))
    print("%d checks, %d disagreements" % (checked, disagreements))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
