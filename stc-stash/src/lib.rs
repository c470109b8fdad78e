//! The stash: recoverable truncation of oversized arrays, with memory, SQLite and Redis stores
#![forbid(unsafe_code)]
