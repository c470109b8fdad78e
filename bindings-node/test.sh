#!/usr/bin/env bash
# The Node binding's whole check on a fresh machine: install (from the
# lockfile), build the native addon in release mode with napi-rs's CLI (cargo
# compiles it locally; nothing prebuilt is downloaded), run the node:test
# suites (conformance corpus, API, properties), type-check the examples
# with `tsc --strict`, then check the package as a package: `npm pack`,
# installed from the tarball into a fresh project, imported as ESM and
# CommonJS (../scripts/packages/npm.sh).
set -euo pipefail
cd "$(dirname "$0")"

if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi
npm run build
npm test
npm run typecheck
bash ../scripts/packages/npm.sh .
echo "bindings-node: build, tests and type-check passed"
