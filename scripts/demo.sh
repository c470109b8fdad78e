#!/usr/bin/env bash
# The main job: build the `stc` CLI, encode an example tool response, decode it
# back, prove the round trip is exact, and print what STC saves.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p stc-cli
stc=target/release/stc
example=examples/tool-response.json

echo "== $example as STC (readable profile)"
$stc encode --profile readable "$example"
echo
echo "== round trip: decode(encode(x)) == x"
$stc encode "$example" | $stc decode > /tmp/stc-demo-roundtrip.json
$stc decode "$example" | cmp - /tmp/stc-demo-roundtrip.json
echo "exact (same minified JSON: key order, duplicates, number lexemes)"

corpus=../shared/corpus/twitter.json
if [ -f "$corpus" ]; then
  $stc encode "$corpus" | $stc decode | cmp - <($stc decode "$corpus")
  echo "$corpus: exact"
fi
echo
echo "== bytes and o200k_base tokens"
$stc stats "$example"
