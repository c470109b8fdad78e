//! stc-core's integration tests, one test binary (`cargo test -p stc-core
//! --test it`; one module with `cargo test -p stc-core --test it -- MODULE::`).
//! Shared helpers are in `support`, insta snapshots in `snapshots/`.
//! Proptest keeps its regression seeds in `../proptest-regressions/MODULE.txt`
//! (its default, `SourceParallel`, once this `main.rs` marks the source
//! root).

mod support;

mod bare_strings;
mod builder;
mod builder_borrowed;
mod builder_pushes;
mod corpus;
mod deep;
mod latin1;
mod layering;
mod properties;
mod reader_compact;
mod reader_latin1;
mod reader_numbers;
mod reader_scan;
mod reader_tables;
mod reference;
mod sink;
mod snapshots;
mod tape;
mod v2;
/// Exact token counts: needs the `bpe` feature (`cargo test -p stc-core --features bpe`).
#[cfg(feature = "bpe")]
mod v2_tokens;
mod writers;
