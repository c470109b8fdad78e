//! Agent-side MCP services of STC: the `stc mcp` server and the `stc mcp-proxy`
//! wrapper.
//!
//! - [`server`]: an MCP server over stdio with the tools `stc_encode`,
//!   `stc_decode`, `stc_estimate` and `stc_retrieve`, built on the official
//!   Rust SDK (`rmcp`).
//! - [`engine`]: the proxy's per-message logic, without I/O, for any
//!   transport (stdio here; Streamable HTTP elsewhere): both MCP handshakes
//!   (`initialize`, `server/discover`), the rewrite of tool results, the
//!   `structuredContent` policy, the retrieve tool and the savings ledger.
//! - [`proxy`]: wraps any stdio MCP server, passes JSON-RPC through unchanged
//!   and re-encodes JSON text blocks of `tools/call` results as gated STC,
//!   optionally truncated with the stash (plus its own retrieve tool); a
//!   thin loop over [`engine`].
//! - [`stash`]: the store choice, the keys a session has shown, and the
//!   authorized retrieve shared by both.
//!
//! Both expose blocking entry points ([`server::serve_stdio`], [`proxy::run`])
//! that build their own tokio runtime, so a caller needs no async code. All
//! format work is done by `stc-core`, all truncation by `stc-stash`.
#![forbid(unsafe_code)]

pub mod engine;
pub mod frame;
pub mod http;
pub mod proxy;
pub mod rewrite;
pub mod server;
pub mod stash;
pub mod transport;

pub use engine::{Engine, EngineOptions, Pending, Session};
pub use proxy::{ProxyError, ProxyExit, ProxyOptions};
pub use rewrite::RewriteOptions;
pub use server::{serve_stdio, ServerOptions};

/// The text of [`STC_PRIMER`], as a literal (for `concat!`).
macro_rules! primer_v1 {
    () => {
        "Some tool results are written in STC, a compact lossless notation for JSON \
(any plain JSON is valid STC too). STC is JSON with three shortcuts. Object keys that are identifiers are \
unquoted: {name:\"foo\"} is {\"name\":\"foo\"}. A header [N]: followed by N comma-separated values is an \
array: tags[2]:\"a\",\"b\" is \"tags\":[\"a\",\"b\"]. A header [N]{k1,k2}: starts a table of N records, \
rows separated by / and cells by , in column order: rows[2]{id,name}:1,\"a\"/2,\"b\" is \
\"rows\":[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"}]. Strings, numbers, true, false and \
null are written as in JSON. Read STC as the JSON it stands for."
    };
}

/// The paragraph that tells a model how to read STC. `stc mcp` uses it in its
/// `instructions`; `stc mcp-proxy` appends it to the wrapped server's.
///
/// ```
/// assert!(stc_mcp::STC_PRIMER.contains("rows[2]{id,name}:"));
/// ```
pub const STC_PRIMER: &str = primer_v1!();

/// [`STC_PRIMER`] plus the constructs of STC version 2 (column groups,
/// absent cells, keyed tables, bare strings), for clients that get version 2 text
/// (`stc mcp-proxy --stc-version 2`).
///
/// ```
/// assert!(stc_mcp::STC_PRIMER_V2.starts_with(stc_mcp::STC_PRIMER));
/// assert!(stc_mcp::STC_PRIMER_V2.contains("~"));
/// ```
pub const STC_PRIMER_V2: &str = concat!(
    primer_v1!(),
    " Version 2 adds three more. A column may have sub-columns, and a row still has one cell per leaf \
column: rows[1]{id,user{id,name}}:1,5,\"bob\" is \"rows\":[{\"id\":1,\"user\":{\"id\":5,\"name\":\"bob\"}}]. \
A cell ~ means that row has no such key (absent, which is not null): rows[2]{id,mail}:1,~/2,\"x\" is \
\"rows\":[{\"id\":1},{\"id\":2,\"mail\":\"x\"}]. A header {N}{k1,k2}: is an object of N members whose \
values are records, one row each, the member's key before a colon: users{2}{name,age}:a:\"Al\",3/b:\"Bo\",4 is \
\"users\":{\"a\":{\"name\":\"Al\",\"age\":3},\"b\":{\"name\":\"Bo\",\"age\":4}}.",
    " Version 2 also leaves a string value unquoted when it can, up to the next , / : [ ] { } or line break, \
outer spaces dropped: rows[2]{id,city}:1,São Paulo/2,\"true\" is \"rows\":[{\"id\":1,\"city\":\"São Paulo\"},\
{\"id\":2,\"city\":\"true\"}]; unquoted true, false, null and numbers keep their JSON meaning."
);

/// The primer for text of `version`: [`STC_PRIMER`] for version 1,
/// [`STC_PRIMER_V2`] for version 2.
pub fn primer(version: stc_core::Version) -> &'static str {
    match version {
        stc_core::Version::V1 => STC_PRIMER,
        _ => STC_PRIMER_V2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stc_core::{DecodeOptions, Version};

    /// Every "X is Y" example of the primers: X (a member, in STC) decodes,
    /// at the primer's version, to Y (the same member in JSON).
    #[test]
    fn the_primers_examples_decode_as_they_say() {
        let v1 = [
            (r#"{name:"foo"}"#, r#"{"name":"foo"}"#),
            (r#"tags[2]:"a","b""#, r#""tags":["a","b"]"#),
            (r#"rows[2]{id,name}:1,"a"/2,"b""#, r#""rows":[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#),
        ];
        let v2 = [
            (r#"rows[1]{id,user{id,name}}:1,5,"bob""#, r#""rows":[{"id":1,"user":{"id":5,"name":"bob"}}]"#),
            (r#"rows[2]{id,mail}:1,~/2,"x""#, r#""rows":[{"id":1},{"id":2,"mail":"x"}]"#),
            (
                r#"users{2}{name,age}:a:"Al",3/b:"Bo",4"#,
                r#""users":{"a":{"name":"Al","age":3},"b":{"name":"Bo","age":4}}"#,
            ),
            (
                r#"rows[2]{id,city}:1,São Paulo/2,"true""#,
                r#""rows":[{"id":1,"city":"São Paulo"},{"id":2,"city":"true"}]"#,
            ),
        ];
        let check = |primer: &str, examples: &[(&str, &str)], version: Version| {
            for (stc, json) in examples {
                assert!(primer.contains(&format!("{stc} is {json}")), "{stc} is {json}");
                let (stc, json) = if stc.starts_with('{') {
                    (stc.to_string(), json.to_string())
                } else {
                    (format!("{{{stc}}}"), format!("{{{json}}}"))
                };
                let decoded = stc_core::decode_with(&stc, &DecodeOptions::default().version(version)).unwrap();
                assert_eq!(decoded, json, "{stc}");
            }
        };
        check(STC_PRIMER, &v1, Version::V1);
        check(STC_PRIMER_V2, &v1, Version::V2);
        check(STC_PRIMER_V2, &v2, Version::V2);
        assert!(!STC_PRIMER.contains('~'));
        assert_eq!(primer(Version::V1), STC_PRIMER);
        assert_eq!(primer(Version::V2), STC_PRIMER_V2);
    }
}
