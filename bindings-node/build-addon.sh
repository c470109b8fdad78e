#!/bin/sh
# Builds the native addon (stc.node) small: `npm run build` (release) and
# `npm run build:debug` call this with napi build's flags.
# - stc-core without its `bpe` feature (bindings-node/Cargo.toml): no BPE
#   tables; exact counts come from a counting function the caller passes.
# - SQLite (stc-stash's bundled store) without the extensions the stash never
#   uses (full-text search, R-tree, dbstat, stat4, loadable extensions), its
#   C code built for size (-Os; the codec is Rust and keeps its -O3).
# - No symbols in a release build (cargo's profile setting `strip`, given as
#   CARGO_PROFILE_RELEASE_STRIP: the workspace's release profile is shared;
#   napi's own `--strip`, a `-s` link argument, left them in).
# Its own target directory: these flags change libsqlite3-sys's build, which
# the rest of the workspace builds without them in target/.
set -eu
cd "$(dirname "$0")"
export LIBSQLITE3_FLAGS="-USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS -USQLITE_ENABLE_FTS5 -USQLITE_ENABLE_RTREE -USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_ENABLE_STAT4 -USQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_OMIT_LOAD_EXTENSION"
export CFLAGS="${CFLAGS:--Os}"
export CARGO_TARGET_DIR="${STC_NODE_TARGET_DIR:-../target/stc-node}"
export CARGO_PROFILE_RELEASE_STRIP=symbols
exec napi build --dts native.d.ts "$@"
