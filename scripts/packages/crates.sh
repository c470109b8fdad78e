#!/usr/bin/env bash
# Every publishable crate checked as a package: `cargo package` of each
# workspace member without `publish = false` (together, so that crates that
# depend on each other resolve against the packages just made, not
# crates.io), which builds each one from its .crate file alone; then each
# .crate must hold its README.md, LICENSE-MIT and LICENSE-APACHE.
#
#   bash scripts/packages/crates.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

mapfile -t crates < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
m = json.load(sys.stdin)
members = set(m["workspace_members"])
for p in m["packages"]:
    if p["id"] in members and p["publish"] is None:
        print(p["name"], p["version"])
')
if [ "${#crates[@]}" -eq 0 ]; then
  echo "crates.sh: no publishable crate found" >&2
  exit 1
fi
args=()
for crate in "${crates[@]}"; do args+=(-p "${crate% *}"); done
# Packaging several crates at once, cargo unpacks each into
# $CARGO_HOME/registry/src/-<hash>/ (its temporary local registry, named
# "-<hash>") to build the ones that depend on it, and reuses an unpacked
# copy of the same name and version from an earlier run: the sources of the
# last run would be verified again. Remove those copies first.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for crate in "${crates[@]}"; do
  rm -rf "$cargo_home"/registry/src/-*/"${crate% *}-${crate#* }"
done
echo "crates.sh: cargo package ${args[*]}"
# --allow-dirty: the test command runs on work trees with uncommitted edits too.
cargo package --quiet --allow-dirty "${args[@]}"

target_dir="$(cargo metadata --no-deps --format-version 1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
status=0
for crate in "${crates[@]}"; do
  name="${crate% *}" version="${crate#* }"
  file="$target_dir/package/$name-$version.crate"
  listing="$(tar tzf "$file")"
  for needed in README.md LICENSE-MIT LICENSE-APACHE; do
    if ! grep -qx "$name-$version/$needed" <<<"$listing"; then
      echo "crates.sh: $file lacks $needed" >&2
      status=1
    fi
  done
done
[ "$status" -eq 0 ] && echo "crates.sh: ${#crates[@]} crates packaged and built from their packages: ${crates[*]}"
exit "$status"
