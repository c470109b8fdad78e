//! stc-stash's integration tests, one binary: the store contract against the
//! memory, SQLite, Redis and Redis Cluster stores (`contract`, `cluster`),
//! several OS processes on one SQLite file (`processes`), `truncate` with
//! real stores (`truncate`, `version`) and the planning laws (`plan`). The
//! Redis tests start their own servers (`common`) and stop them on drop.

#[path = "../common/mod.rs"]
mod common;

#[path = "../../../stc-http/tests/support/samples.rs"]
mod samples;

mod cluster;
mod contract;
mod plan;
mod processes;
mod truncate;
mod version;
