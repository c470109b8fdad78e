#!/usr/bin/env bash
# Extracts an older stc-core into bench/out/NAME/stc-core as a package named
# NAME, so that stc-bench can link it beside the current stc-core. Nothing of it
# is committed: it comes from git history at bench time (`git archive`), and
# only its Cargo.toml is rewritten (package name, the workspace-inherited
# fields, no benches or dev-dependencies).
#
#   bench/v1rules.sh                 stc-core at 59b8d1c (the encoder's fixed rules, before
#                                    the cost-driven encoder of issue 16) as stc-core-v1rules
#   bench/v1rules.sh COMMIT NAME     stc-core at COMMIT as NAME; bench/run.sh also extracts
#                                    7a534d7 (v2 before the safety and planner rules of
#                                    issue 25) as stc-core-v2before
#   bench/v1rules.sh nowidth NAME    the working tree's stc-core with the width rule off
#                                    (MAX_ROW_CELLS = usize::MAX), for the width rule's effect
#
# (run by bench/run.sh before building stc-bench)
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
COMMIT="${1:-59b8d1c}"
NAME="${2:-stc-core-v1rules}"
DEST="$BENCH/out/$NAME"
if [ "$COMMIT" = nowidth ]; then
  # Always re-extracted: it follows the working tree.
  rm -rf "$DEST"
  mkdir -p "$DEST"
  tar -c -C "$ROOT" --exclude=target stc-core | tar -x -C "$DEST"
  grep -Eq '^pub(\(crate\))? const MAX_ROW_CELLS: usize = ' "$DEST/stc-core/src/write_stc/columns.rs" \
    || { echo "v1rules.sh: stc-core/src/write_stc/columns.rs has no MAX_ROW_CELLS constant to switch off" >&2; exit 1; }
  sed -E -i 's/^(pub(\(crate\))? const MAX_ROW_CELLS: usize = ).*;/\1usize::MAX;/' "$DEST/stc-core/src/write_stc/columns.rs"
elif [ -f "$DEST/stc-core/Cargo.toml" ] && grep -q "^# extracted from $COMMIT" "$DEST/stc-core/Cargo.toml"; then
  exit 0
else
  rm -rf "$DEST"
  mkdir -p "$DEST"
  git -C "$ROOT" archive "$COMMIT" stc-core | tar -x -C "$DEST"
fi
python3 - "$DEST/stc-core/Cargo.toml" "$COMMIT" "$NAME" <<'PY'
import re, sys
path, commit, name = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
# Keep [package] (renamed, concrete fields), [features] and [dependencies]; drop the rest.
sections = re.split(r"(?m)^(?=\[)", text)
keep = []
for s in sections:
    head = s.split("\n", 1)[0].strip()
    if head == "[package]":
        s = re.sub(r'(?m)^name = .*$', f'name = "{name}"', s)
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
echo "v1rules.sh: stc-core at $COMMIT in $DEST/stc-core (package $NAME)" >&2
