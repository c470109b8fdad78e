#!/bin/sh
# Builds the native addon (stc.node) small: `npm run build` (release) and
# `npm run build:debug` call this with napi build's flags.
# - stc-core without its `bpe` feature (bindings-node/Cargo.toml): no BPE
#   tables; exact counts come from a counting function the caller passes.
# - SQLite (stc-stash's bundled store) without what the stash never uses
#   (full-text search, R-tree, dbstat, stat4, loadable extensions, JSON
#   functions, soundex, column metadata, deprecated APIs, shared cache;
#   no memory statistics), its C code built for size (-Os; the codec is Rust
#   and keeps its -O3).
# - No symbols in a release build (cargo's profile setting `strip`, given as
#   CARGO_PROFILE_RELEASE_STRIP: the workspace's release profile is shared;
#   napi's own `--strip`, a `-s` link argument, left them in).
# - Fat LTO in one codegen unit, and the crates off the codec's hot paths
#   (the stash with SQLite's Rust side, BLAKE3, their hash maps, napi-rs's
#   runtime) optimized for size: with the SQLite options above 1.99 -> 1.81
#   MB, no loss of speed (bench/CANDIDATES.md, candidate 22). Given as
#   CARGO_PROFILE_RELEASE_* and `--config` for this build only: the
#   workspace's release profile (thin LTO, 4 units) keeps its build time.
# Its own target directory: these flags change libsqlite3-sys's build, which
# the rest of the workspace builds without them in target/.
set -eu
cd "$(dirname "$0")"
export LIBSQLITE3_FLAGS="-USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS -USQLITE_ENABLE_FTS5 -USQLITE_ENABLE_RTREE -USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_ENABLE_STAT4 -USQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_JSON -USQLITE_ENABLE_JSON1 -USQLITE_SOUNDEX -USQLITE_ENABLE_COLUMN_METADATA -DSQLITE_OMIT_DEPRECATED -DSQLITE_OMIT_SHARED_CACHE -DSQLITE_DEFAULT_MEMSTATUS=0 -USQLITE_ENABLE_MEMORY_MANAGEMENT"
export CFLAGS="${CFLAGS:--Os}"
export CARGO_TARGET_DIR="${STC_NODE_TARGET_DIR:-../target/stc-node}"
export CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_PROFILE_RELEASE_LTO=fat
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
# napi build passes the arguments after `--` on to cargo.
set -- "$@" --
for crate in stc-stash rusqlite hashlink hashbrown blake3 napi; do
  set -- "$@" --config "profile.release.package.$crate.opt-level=\"s\""
done
exec napi build --dts native.d.ts "$@"
