//! # stc-wasm — STC for browsers and Node, through WebAssembly
//!
//! A thin wasm-bindgen layer over `stc-core`: it converts JavaScript values,
//! options and errors, and nothing else. Every format decision (syntax,
//! encoding choices, escaping, limits, versions, error kinds and positions)
//! is made by `stc-core`; the argument checks and messages users see are
//! js-shared's (`stc_rules.mjs`, applied by the package entries over this
//! module).
//!
//! The JavaScript API matches the Node package (`stc-node`):
//!
//! | function | does |
//! | --- | --- |
//! | `decode(stc, {maxDepth?, version?})` / `decodeStc` | STC text (or bytes) → minified JSON text |
//! | `encode(json, {profile?, maxDepth?, version?})` | JSON text (or bytes) → STC text |
//! | `parse(stc, {bigint?, maxDepth?, version?})` | STC → JavaScript value |
//! | `stringify(value, {profile?, bigint?, maxDepth?, version?})` | JavaScript value → STC text |
//! | `encodeGated(json, {profile?, minSaving?, tokenizer?, maxDepth?, version?})` | STC only when it saves tokens |
//! | `countTokens(text, tokenizer?)` | the token estimate the gate uses, or the caller's counting function |
//!
//! Failures of the codec throw an `Error` whose `message` is stc-core's
//! Display text and which carries `code` (stc-core's kind code), `offset`
//! (bytes of the UTF-8 input), `line` and `column` (1-based, column in
//! Unicode characters). Bad arguments throw a `TypeError` or `RangeError`.
//! An exception thrown by the caller's code (a `toJSON`, a getter or setter,
//! a counting function) comes back as the same object. Neither `parse` nor
//! `stringify` recurses on the value's depth: both keep their own stack.
//!
//! Three modules are built from this crate (scripts/build.sh): with the
//! default feature `encode` the codec (`stc-wasm`); without it the
//! decode-only one (`stc-wasm/decode`); with `stash` alone the stash
//! (`stc-wasm/stash`: `MemoryStash`, `truncate`, `retrieve`), which
//! `stc-wasm` loads on demand. The codec modules instantiate stc-core's
//! reader once (`parse::ReadSink`).
//!
//! The crate is split by job, like stc-node's: `codec` (the text functions
//! and the gate), `parse` (STC to JavaScript values), `stringify` (JavaScript
//! values to STC), `options` (option objects to stc-core's types; the values
//! are stc-core's to check), `input` (strings and bytes), `errors` (codec
//! errors as JavaScript errors) and `stash` (truncation and the stores).

#![forbid(unsafe_code)]

#[cfg(not(feature = "stash"))]
mod codec;
#[cfg(all(feature = "encode", not(feature = "stash")))]
mod encode;
mod errors;
mod input;
mod options;
#[cfg(not(feature = "stash"))]
mod parse;
#[cfg(feature = "stash")]
mod stash;
#[cfg(all(feature = "encode", not(feature = "stash")))]
mod stringify;

use wasm_bindgen::prelude::*;

/// talc in place of std's dlmalloc: smaller code (README, Size), and the
/// module is single-threaded (no `atomics`).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

// The unions of the core's names (error codes, profiles, tokenizers,
// versions) and `TokenCounter` are not written here: they come from
// js-shared's generated `stc_rules` types, which install.mjs generates from
// the one list (checked against the core's `ErrorKind::CODES`,
// `Profile::NAMES`, `Tokenizer::NAMES` and `Version::NAMES` by the tests).
// The option and result types are stc-node's too: js-shared/api.d.ts. The
// node build's copies are `.d.mts`: scripts/build.sh rewrites the imports there.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion } from './stc_rules.js';
export type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion };
import type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
} from './api.js';
export type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
};
/** The codec's error codes (`StcError.code`): the same union as `ErrorCode`. */
export type StcErrorCode = ErrorCode;
/** Text, or bytes that should be UTF-8 (a `Uint8Array`, e.g. a Node `Buffer`): the same type as `Text`. */
export type Input = Text;
"#;
