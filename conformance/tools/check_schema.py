#!/usr/bin/env python3
"""Validates every case file against schema.json with the `jsonschema`
package (pip install jsonschema). The Rust harness checks the same rules
without it (`structure::<file>` tests); this is for people editing the
schema itself.

    python3 conformance/tools/check_schema.py
"""

import json
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    sys.exit("needs the jsonschema package: pip install jsonschema")

root = Path(__file__).resolve().parent.parent
schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = 0
files = sorted((root / "cases").glob("*/*.json"))
for path in files:
    for error in validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))):
        failed += 1
        print("%s: %s: %s" % (path.name, "/".join(map(str, error.absolute_path)), error.message))
print("%d files, %d schema errors" % (len(files), failed))
sys.exit(1 if failed else 0)
