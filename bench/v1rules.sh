#!/usr/bin/env bash
# Extracts stc-core as of commit 59b8d1c (the encoder's fixed rules, before the
# cost-driven encoder of issue 16) into bench/out/stc-core-v1rules/stc-core as a
# package named `stc-core-v1rules`, so that stc-bench can link it beside the
# current stc-core. Nothing of it is committed: it comes from git history at
# bench time (`git archive`), and only its Cargo.toml is rewritten (package name,
# the workspace-inherited fields, no benches or dev-dependencies).
#
#   bench/v1rules.sh        (run by bench/run.sh before building stc-bench)
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
COMMIT=59b8d1c
DEST="$BENCH/out/stc-core-v1rules"
if [ -f "$DEST/stc-core/Cargo.toml" ] && grep -q "^# extracted from $COMMIT" "$DEST/stc-core/Cargo.toml"; then
  exit 0
fi
rm -rf "$DEST"
mkdir -p "$DEST"
git -C "$ROOT" archive "$COMMIT" stc-core | tar -x -C "$DEST"
python3 - "$DEST/stc-core/Cargo.toml" "$COMMIT" <<'PY'
import re, sys
path, commit = sys.argv[1], sys.argv[2]
text = open(path).read()
# Keep [package] (renamed, concrete fields), [features] and [dependencies]; drop the rest.
sections = re.split(r"(?m)^(?=\[)", text)
keep = []
for s in sections:
    head = s.split("\n", 1)[0].strip()
    if head == "[package]":
        s = re.sub(r'(?m)^name = .*$', 'name = "stc-core-v1rules"', s)
        s = re.sub(r'(?m)^version\.workspace = true$', 'version = "0.1.0"', s)
        s = re.sub(r'(?m)^edition\.workspace = true$', 'edition = "2021"', s)
        s = re.sub(r'(?m)^(license|rust-version)\.workspace = true\n', '', s)
        s += "publish = false\n\n"
    elif head not in ("[features]", "[dependencies]"):
        continue
    keep.append(s)
open(path, "w").write(f"# extracted from {commit} by bench/v1rules.sh (not committed)\n" + "".join(keep))
PY
rm -rf "$DEST/stc-core/benches" "$DEST/stc-core/tests"
echo "v1rules.sh: stc-core at $COMMIT in $DEST/stc-core (package stc-core-v1rules)" >&2
