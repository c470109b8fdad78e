//! Snapshots of outputs a person reviews: encoder output on representative
//! documents, and the text of every kind of error message.

use stc_core::{decode, decode_with, encode_with, DecodeOptions, EncodeOptions, Profile, Version};

const DOCUMENTS: &[(&str, &str)] = &[
    ("adr_unquoted_keys", r#"{"name": "foo", "api_version": "v2", "count": 42}"#),
    ("adr_compact_arrays", r#"{"tags": ["api", "gateway", "mcp"], "scores": [95, 87, 91]}"#),
    ("adr_columnar", r#"[{"id": 1, "name": "users", "method": "GET"}, {"id": 2, "name": "orders", "method": "POST"}]"#),
    (
        "tool_response",
        r#"{"status": "ok", "request-id": "a1b2", "total": 3, "page": {"next": null, "size": 2},
            "items": [
              {"id": 101, "title": "Fix login / logout", "labels": ["bug", "p1"], "score": 1.50},
              {"id": 102, "title": "Add \"dark\" mode", "labels": [], "score": 1e3}
            ],
            "users": [{"login": "ada", "admin": true}, {"login": "bob", "admin": false}],
            "matrix": [[1, 2], [3, 4]], "empty": {}, "one": [{"x": 1}], "mixed": [1, "a", null, true]}"#,
    ),
    (
        "near_tables",
        r#"{"reordered": [{"a": 1, "b": 2}, {"b": 3, "a": 4}],
            "nested_cell": [{"a": 1, "b": [2]}, {"a": 3, "b": [4]}],
            "dupes": [{"k": 1, "k": 2}, {"k": 3, "k": 4}],
            "odd_keys": [{"first name": "Ada", "é": 1, "true": null}, {"first name": "Bob", "é": 2, "true": false}],
            "empties": [{}, {}]}"#,
    ),
    (
        "strings_and_numbers",
        r#"{"s": ["\u00e9\/", "\ud83d\ude00", "\ud800", "a\u0001b\tc", " / ,:{}[3]:"],
            "n": [-0, 0.10, 1E+2, 123456789012345678901234567890, -1.5e-300]}"#,
    ),
];

#[test]
fn encoder_output() {
    for (name, json) in DOCUMENTS {
        for profile in [Profile::Readable, Profile::Compact] {
            let stc = encode_with(json, &EncodeOptions::default().profile(profile)).unwrap();
            insta::assert_snapshot!(format!("{name}__{}", profile.name()), stc, json);
            // Snapshots are only trusted alongside the law they must obey.
            assert_eq!(decode(&stc).unwrap(), decode(json).unwrap(), "{name}");
        }
    }
}

/// Documents that exercise the v2 constructs (column groups, `~`, keyed tables).
const V2_DOCUMENTS: &[(&str, &str)] = &[
    (
        "v2_groups",
        r#"[{"id":1,"user":{"id":5,"name":"bob"},"text":"hi"},{"id":2,"user":{"id":6,"name":"al"},"text":"yo"}]"#,
    ),
    (
        "v2_absent",
        r#"[{"id":1,"name":"a","email":"a@x.io"},{"id":2,"email":"b@x.io"},{"id":3,"name":"c"},{"id":4,"name":null}]"#,
    ),
    ("v2_absent_groups", r#"[{"id":1,"u":{"x":1,"y":2}},{"id":2},{"id":3,"u":{"y":4}},{"id":4,"u":{"x":5,"y":6}}]"#),
    (
        "v2_keyed",
        r#"{"events": {"138586341": {"name": "A", "date": 1, "tags": []}, "138586345": {"name": "B", "date": 2, "tags": [1]},
            "138586349": {"name": "C", "tags": [2, 3]}}, "ok": true}"#,
    ),
    (
        "v2_not_grouped",
        r#"{"mixed": [{"id":1,"u":{"x":1}},{"id":2,"u":null},{"id":3,"u":{"x":3}}],
            "empty_group": [{"u":{}},{"u":{"x":1}},{"u":{"x":2}}],
            "out_of_order": [{"a":1,"b":2},{"b":3,"a":4},{"a":5,"b":6}],
            "dupes": [{"k":1,"k":2},{"k":3,"k":4}]}"#,
    ),
];

#[test]
fn encoder_output_v2() {
    for (name, json) in DOCUMENTS.iter().chain(V2_DOCUMENTS) {
        for profile in [Profile::Readable, Profile::Compact] {
            let options = EncodeOptions::default().profile(profile).version(Version::V2);
            let stc = encode_with(json, &options).unwrap();
            insta::assert_snapshot!(format!("v2__{name}__{}", profile.name()), stc, json);
            let v2 = DecodeOptions::default().version(Version::V2);
            assert_eq!(decode_with(&stc, &v2).unwrap(), decode(json).unwrap(), "{name}");
        }
    }
    // Version 1 never writes a v2 construct.
    for (name, json) in V2_DOCUMENTS {
        let stc = encode_with(json, &EncodeOptions::default()).unwrap();
        assert_eq!(decode(&stc).unwrap(), decode(json).unwrap(), "{name}");
    }
}

#[test]
fn error_messages() {
    let decode_cases = [
        "",
        "[1,",
        "{a: 1,\n b 2}",
        "[1 2]",
        "{a: 1 b: 2}",
        "{9a: 1}",
        "{é: 1}",
        "[\"\\x\"]",
        "\"a\u{1}b\"",
        "01",
        "1.x",
        "-",
        "1e+",
        "nul",
        "[1] x",
        "([-1]: 1)",
        "([99]: 1)",
        "{a[3]: 1,2}",
        "([2]{a,b}: 1 / 2,3)",
        "([2]{a}: 1,2 / 3)",
        "([1]{a}: 1 / 2)",
        "([1]{}: 1)",
        "[2]{a}: 1 / 2",
        "([1]: 1",
        "{a: @ref}",
        "{a: tru\u{435}}",
        "\u{feff}{}",
        "{a[2 : 1,2}",
        "{a[2] 1,2}",
        "\"abc",
    ];
    let mut out = String::new();
    for input in decode_cases {
        let err = decode(input).unwrap_err();
        out.push_str(&format!("decode {input:?}\n  {} @{}: {err}\n", err.kind(), err.offset().unwrap_or(0)));
    }
    let deep = "[".repeat(200);
    let err = decode(&deep).unwrap_err();
    out.push_str(&format!("decode \"[\" x 200\n  {} @{}: {err}\n", err.kind(), err.offset().unwrap_or(0)));
    for input in ["{a: 1}", "[2]: 1,2", "NaN", "{\"a\"[2]: 1,2}"] {
        let err = encode_with(input, &EncodeOptions::default()).unwrap_err();
        out.push_str(&format!("encode {input:?}\n  {} @{}: {err}\n", err.kind(), err.offset().unwrap_or(0)));
    }
    let err = stc_core::decode_bytes_with(b"[\"\xff\"]", &stc_core::Limits::default()).unwrap_err();
    out.push_str(&format!("decode bytes [\"\\xff\"]\n  {} @{}: {err}\n", err.kind(), err.offset().unwrap_or(0)));
    insta::assert_snapshot!(out);
}
