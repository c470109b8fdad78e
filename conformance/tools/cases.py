"""Reads the case files (stdlib only): every file of `cases/<category>/` (seed
families are already expanded there by bless, see ../README.md).
A listing tool too: `python3 conformance/tools/cases.py` prints one line per
case (`<category>::<topic>::<name>`) and the counts; it writes nothing."""

import json
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / "cases"


def files():
    """(path, parsed file) of every case file, sorted by path."""
    return [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(CASES.glob("*/*.json"))]


def main():
    names = "--names" in sys.argv[1:]
    total = 0
    per_category, per_section = {}, {}
    for path, f in files():
        for case in f["cases"]:
            total += 1
            per_category[f["category"]] = per_category.get(f["category"], 0) + 1
            per_section[case["spec"]] = per_section.get(case["spec"], 0) + 1
            if names:
                print("%s::%s::%s" % (f["category"], path.stem, case["name"]))
    if not names:
        for k in sorted(per_category):
            print("%-13s %5d" % (k, per_category[k]))
        for k in sorted(per_section, key=lambda s: [int(p) for p in s.split(".")]):
            print("section %-5s %5d" % (k, per_section[k]))
    print("%d cases" % total, file=sys.stderr)


if __name__ == "__main__":
    main()
