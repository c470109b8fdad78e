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
//! This crate is a library: its entry points ([`server::serve_stdio`],
//! [`proxy::run`], [`http::listen::serve`], [`http::upstream::run`]) are
//! async functions that run inside the caller's tokio runtime and take what
//! they serve on and, where they listen, a shutdown future; the process
//! concerns (the runtime, the signals, the banner, the log subscriber) belong
//! to the `stc` binary. It logs through `tracing` and never prints: standard
//! output is the MCP stdio channel. All format work is done by `stc-core`,
//! all truncation by `stc-stash`.
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
\"rows\":[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"}]. A cell may itself be an array, an object \
or a table; the counts say where each ends. When a whole result is such an array, it is enclosed in \
parentheses: ([2]:1,2) is [1,2]; a result that lacks its closing ) was cut short and is incomplete. \
Strings, numbers, true, false and null are written as in JSON. Read STC as the JSON it stands for."
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
    " Version 2 adds more. A column may have sub-columns, and a row still has one cell per leaf \
column: rows[1]{id,user{id,name}}:1,5,\"bob\" is \"rows\":[{\"id\":1,\"user\":{\"id\":5,\"name\":\"bob\"}}]. \
A cell ~ means that row has no such key (absent, which is not null); if every sub-column of a group is ~, the \
group's key is absent: rows[2]{id,mail}:1,~/2,\"x\" is \"rows\":[{\"id\":1},{\"id\":2,\"mail\":\"x\"}]. \
A column name may appear twice, for records whose keys come in different orders; each row fills one of them \
and has ~ in the other: rows[2]{a,b,a}:1,2,~/~,3,4 is \"rows\":[{\"a\":1,\"b\":2},{\"b\":3,\"a\":4}]. \
A header {N}{k1,k2}: is an object of N members whose values are records, one row each, the member's key \
and a colon before the row's cells: users{2}{name,age}:a:\"Al\",3/b:\"Bo\",4 is \
\"users\":{\"a\":{\"name\":\"Al\",\"age\":3},\"b\":{\"name\":\"Bo\",\"age\":4}}; enclosed when it is \
the whole result: ({1}{n}:k:1) is {\"k\":{\"n\":1}}.",
    " Version 2 also leaves a string value unquoted when it starts with a letter and holds only letters, \
digits, inner spaces and the marks ! # $ % & ' * + - . ; < = > ? @ ^ _ ` |; it ends at the next , / : ) ] } \
or line break, outer spaces dropped: rows[2]{id,city}:1,São Paulo/2,\"true\" is \
\"rows\":[{\"id\":1,\"city\":\"São Paulo\"},{\"id\":2,\"city\":\"true\"}]. Unquoted true, false, null and \
numbers keep their JSON meaning; a string that would look like one of them (True, None, NaN, -1) is always \
quoted."
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
            ("([2]:1,2)", "[1,2]"),
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
            (r#"rows[2]{a,b,a}:1,2,~/~,3,4"#, r#""rows":[{"a":1,"b":2},{"b":3,"a":4}]"#),
            (r#"({1}{n}:k:1)"#, r#"{"k":{"n":1}}"#),
        ];
        let check = |primer: &str, examples: &[(&str, &str)], version: Version| {
            for (stc, json) in examples {
                assert!(primer.contains(&format!("{stc} is {json}")), "{stc} is {json}");
                let (stc, json) = if stc.starts_with(['{', '(']) {
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

    /// Each construct the version 2 encoder writes is named in the v2
    /// primer: a document that makes the encoder write it, a test on the
    /// output that it did, and the primer's words for it.
    #[test]
    fn the_v2_primer_names_every_construct_the_encoder_writes() {
        let v2 = stc_core::EncodeOptions::default().version(Version::V2);
        type Writes = fn(&str) -> bool;
        let constructs: [(&str, &str, Writes, &str); 9] = [
            ("bare key", r#"{"name":"foo","n":1}"#, |t| t.starts_with("{name:"), "{name:"),
            // (The compact form `[N]: a,b` is named too, "tags[2]:", though the
            // estimator finds JSON brackets as cheap on every shape tried.)
            (
                "nested cell",
                r#"[{"id":1,"t":[1,2]},{"id":2,"t":[3]},{"id":3,"t":[]}]"#,
                |t| t.contains(",[1,2]/"),
                "A cell may itself be an array",
            ),
            (
                "table",
                r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#,
                |t| t.contains("{id,name}:"),
                "rows[2]{id,name}:",
            ),
            (
                "enclosure",
                r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#,
                |t| t.starts_with("([") && t.ends_with(')'),
                "enclosed in parentheses",
            ),
            (
                "column group",
                r#"[{"id":1,"u":{"a":1,"b":2}},{"id":2,"u":{"a":3,"b":4}},{"id":3,"u":{"a":5,"b":6}}]"#,
                |t| t.contains("u{a,b}"),
                "sub-columns",
            ),
            (
                "absent cell",
                r#"[{"id":1,"m":"x"},{"id":2},{"id":3,"m":"y"},{"id":4,"m":"z"}]"#,
                |t| t.contains('~'),
                "A cell ~",
            ),
            (
                "repeated column name",
                r#"[{"a":1,"b":2,"c":3,"d":4},{"b":5,"a":6,"c":7,"d":8},{"a":9,"b":10,"c":11,"d":12}]"#,
                |t| t.contains("{a,b,a,"),
                "A column name may appear twice",
            ),
            (
                "keyed table",
                r#"{"k1":{"a":1,"b":2},"k2":{"a":3,"b":4},"k3":{"a":5,"b":6}}"#,
                |t| t.starts_with("({3}{a,b}:"),
                "A header {N}{k1,k2}:",
            ),
            (
                "bare string",
                r#"{"city":"Paris","n":1}"#,
                |t| t.contains("city:Paris"),
                "leaves a string value unquoted",
            ),
        ];
        assert!(STC_PRIMER_V2.contains("tags[2]:"));
        for (name, json, writes, words) in constructs {
            let stc = stc_core::encode_with(json, &v2).unwrap();
            assert!(writes(&stc), "{name}: the encoder no longer writes it this way: {stc}");
            assert!(STC_PRIMER_V2.contains(words), "{name}: not named in the v2 primer ({words:?})");
        }
    }
}
