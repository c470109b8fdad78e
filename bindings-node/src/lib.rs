//! Node binding of `stc-core` (napi-rs).
//!
//! This crate only converts types and errors: JavaScript strings and buffers
//! in, JavaScript strings and values out, `stc_core::Error` to a JavaScript
//! `Error` carrying `code`, `offset`, `line`, `column` and `index`. Every
//! format decision is made by `stc-core`.
//!
//! The public API (`parse`, `stringify`, `encode`, `decode`, ...) is the thin
//! JavaScript layer in `index.js`, which validates options and turns these
//! errors into `StcError` instances; the functions here are its internals.
//!
//! Hot paths call `napi-sys` directly: building a JavaScript value per parser
//! event through the generic wrappers would cost a conversion per call.
//!
//! Modules, by job:
//! - `codec`: text to text (`encode`, `decode`, `encodeGated`, `countTokens`)
//!   and the core's name lists;
//! - `parse`: STC to JavaScript values (the value builder, a parser `Sink`);
//! - `stringify`: JavaScript values to STC (the walk with `JSON.stringify`'s rules);
//! - `stash`: `truncate`, `retrieve` and the store handles;
//! - `input`: the text argument (string or UTF-8 bytes);
//! - `options`: checked options as stc-core's types;
//! - `errors`: stc-core errors and `TypeError`s thrown as JavaScript exceptions;
//! - `js`: napi plumbing (checked raw calls, strings and numbers).

// Every `unsafe` block (raw napi calls, which napi-rs's wrappers would make slower) says why it holds.
#![deny(clippy::undocumented_unsafe_blocks)]
// Raw napi calls need `unsafe`; the workspace denies it everywhere else.
#![allow(unsafe_code)]

use napi::sys;

type Value = sys::napi_value;
type RawEnv = sys::napi_env;

/// Runs a raw napi call; on failure returns the error (a pending JavaScript
/// exception stays pending).
macro_rules! napi_call {
    ($env:expr, $call:expr) => {{
        // SAFETY: every use passes the current call's `env`, live values of it and out-pointers to locals
        // (or buffers of the stated size), as the napi function requires.
        let status = unsafe { $call };
        if status != sys::Status::napi_ok {
            return Err($crate::js::napi_failure($env, status));
        }
    }};
}

pub mod codec;
mod errors;
mod input;
mod js;
mod options;
pub mod parse;
pub mod stash;
pub mod stringify;
