"""Reads the case files (stdlib only): every file of `cases/<category>/`, with
each seed (a case with `prefixes`, see ../README.md) replaced by its family.
A listing tool too: `python3 conformance/tools/cases.py` prints one line per
case (`<category>::<topic>::<name>`) and the counts; it writes nothing."""

import json
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / "cases"


def expand(case):
    """The case, or for a seed its family: every proper prefix input[:n] of
    the (ASCII) input, named `<name>-<n:03>`, failing with `prefixes.kind` at
    offset n unless n lies in an `except` range."""
    family = case.get("prefixes")
    if family is None:
        return [case]
    text = case["input"]
    out = []
    for n in range(len(text)):
        error = {"kind": family["kind"], "offset": n}
        for x in family.get("except", []):
            if x["from"] <= n <= x["to"]:
                error = x["error"]
                break
        member = {k: v for k, v in case.items() if k not in ("name", "input", "prefixes", "note")}
        out.append(dict(member, name="%s-%03d" % (case["name"], n), input=text[:n], error=error))
    return out


def files():
    """(path, parsed file) of every case file, sorted by path."""
    return [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(CASES.glob("*/*.json"))]


def main():
    names = "--names" in sys.argv[1:]
    stored = total = 0
    per_category, per_section = {}, {}
    for path, f in files():
        for case in f["cases"]:
            stored += 1
            for member in expand(case):
                total += 1
                per_category[f["category"]] = per_category.get(f["category"], 0) + 1
                per_section[member["spec"]] = per_section.get(member["spec"], 0) + 1
                if names:
                    print("%s::%s::%s" % (f["category"], path.stem, member["name"]))
    if not names:
        for k in sorted(per_category):
            print("%-13s %5d" % (k, per_category[k]))
        for k in sorted(per_section, key=lambda s: [int(p) for p in s.split(".")]):
            print("section %-5s %5d" % (k, per_section[k]))
    print("%d stored entries, %d cases" % (stored, total), file=sys.stderr)


if __name__ == "__main__":
    main()
