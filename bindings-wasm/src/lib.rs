//! Placeholder: the WASM binding lands with its issue.
