//! Unit tests of the STC writer.

use super::*;
use super::{columns::*, plan::*};
use crate::gate::Chosen;
use crate::options::{Limits, Profile, Techniques, Version};

pub(super) const TABLE: &str = r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#;

pub(super) fn encode_v(json: &str, version: Version) -> String {
    let doc = Document::parse_json(json, &Limits::default()).unwrap();
    doc.encode_with(&EncodeOptions::default().version(version))
}

/// `Tape::same_text` agrees with comparing the decoded texts, for every
/// pair of nodes: keys in the input and in the arena (escaped), numbers,
/// strings, empty texts and nodes without text.
#[test]
fn same_text_is_text_equality() {
    let json = r#"[{"a":1,"b":"a","\u0061":"1","":"","ab":[],"a\"":null},{"b":1,"a":"b","":0,"ab":{}}]"#;
    let doc = Document::parse_json(json, &Limits::default()).unwrap();
    let nodes = &doc.nodes;
    let mut equal = 0;
    for i in 0..nodes.len() + 1 {
        for j in 0..nodes.len() + 1 {
            let same = nodes.body(i) == nodes.body(j);
            assert_eq!(nodes.same_text(i, j), same, "{i} {j}");
            equal += usize::from(same && i != j);
        }
    }
    assert!(equal > 20, "{equal}");
}

/// A GitHub "create file" response (the example of GitHub's REST
/// documentation): two unrelated objects, `content` and `commit`.
pub(super) const GITHUB_CREATE_FILE: &str = include_str!("../../tests/data/github-create-file.json");

/// An array (member `t`) of `rows` objects, each with `id`, `name`, a `user` of `fields` numbers
/// and a two-member `geo`: with `fields` past the width rule, a row
/// flattened would be `fields + 4` cells wide.
pub(super) fn wide_rows(rows: usize, fields: usize) -> String {
    let row = |n: usize| {
        let user: Vec<String> = (0..fields).map(|f| format!(r#""field_{f}":{}"#, n * 100 + f)).collect();
        format!(r#"{{"id":{n},"name":"row {n}","user":{{{}}},"geo":{{"lat":{n}.5,"lon":-{n}.25}}}}"#, user.join(","))
    };
    format!(r#"{{"t":[{}]}}"#, (0..rows).map(row).collect::<Vec<_>>().join(","))
}

/// The leaf columns of every table version 2 chooses for `json`, and
/// whether the table has a column group.
pub(super) fn table_widths(json: &str) -> Vec<(usize, bool)> {
    let doc = Document::parse_json(json, &Limits::default()).unwrap();
    let plan = Plan::new(&doc.nodes, true, Techniques::default());
    plan.tables.iter().map(|t| (leaf_count(t), t.iter().any(|c| !c.sub.is_empty()))).collect()
}

/// The shared corpus (`STC_CORPUS` overrides `../shared/corpus`), sorted.
pub(super) fn corpus() -> Vec<(String, String)> {
    let dir = match std::env::var_os("STC_CORPUS") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 14, "expected the shared corpus in {}", dir.display());
    paths.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap())).collect()
}

/// Version 2 writes qualifying string values bare in every value
/// position (first character ASCII; in rows and arrays not between two
/// quoted strings), and nothing else changes: keys, column names and row
/// keys keep their rules, version 1 quotes every string.
#[test]
fn bare_strings_in_every_value_position_v2_only() {
    let cases = [
        (r#""GET""#, "GET"),
        (r#"{"m":"GET","n":"-1","t":"true","u":"True story","e":""}"#, r#"{m:GET,n:"-1",t:"true",u:True story,e:""}"#),
        (
            r#"["a b"," a","a ","a,b","a/b","a:b","a~b","é","a\u00a0b"]"#,
            "[a b,\" a\",\"a \",\"a,b\",\"a/b\",\"a:b\",\"a~b\",\"é\",\"a\u{a0}b\"]",
        ),
        // The first character must be ASCII: other scripts stay quoted.
        (r#"{"n":"Леонард","e":"éa","a":"aé"}"#, r#"{n:"Леонард",e:"éa",a:aé}"#),
        // Between two quoted strings (row cells, array items), a string
        // keeps its quotes; next to a bare one, a number or an end, not.
        (
            r#"[{"n":"Ада","c":"Acme","p":"+7","e":"x@y"},{"n":"Ян","c":"Bo","p":"+8","e":"z"}]"#,
            r#"([2]{n,c,p,e}:"Ада","Acme","+7",x@y/"Ян","Bo","+8",z)"#,
        ),
        (r#"["-1","a","-2","b","c","-3",1,"d","-4"]"#, r#"["-1","a","-2",b,c,"-3",1,d,"-4"]"#),
        (r#"{"a":"-1","b":"x","c":"-2"}"#, r#"{a:"-1",b:x,c:"-2"}"#),
        (r#"[{"k":"x","v":"y"},{"k":"z","v":"1"}]"#, r#"([2]{k,v}:x,y/z,"1")"#),
        (r#"{"o":{"r1":{"n":"ada","m":1},"r2":{"n":"~","m":2}}}"#, r#"{o{2}{n,m}:r1:ada,1/r2:"~",2}"#),
        (r#"{"a b":"c d","GET":"GET"}"#, r#"{"a b":c d,GET:GET}"#),
        (r#"["\u0041B","\/"]"#, r#"[AB,"/"]"#),
    ];
    for (json, v2) in cases {
        assert_eq!(encode_v(json, Version::V2), v2, "{json}");
        let back = crate::decode_with(v2, &crate::DecodeOptions::default().version(Version::V2)).unwrap();
        assert_eq!(back, crate::decode(json).unwrap(), "{v2}");
        // Version 1 output has no bare string: a version 1 reader reads it.
        assert_eq!(crate::decode(&encode_v(json, Version::V1)).unwrap(), crate::decode(json).unwrap());
    }
    assert_eq!(encode_v(r#"{"m":"GET"}"#, Version::V1), r#"{m:"GET"}"#);
    // Readable: a bare string never runs into the separators after it.
    let doc =
        Document::parse_json(r#"{"a":"x y","t":[{"k":"p","v":"q r"},{"k":"s","v":"t"}]}"#, &Limits::default()).unwrap();
    let readable = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(Profile::Readable));
    assert_eq!(readable, "{a: x y, t[2]{k,v}:\n  p,q r /\n  s,t}");
    // Switched off, version 2 quotes every string again.
    let quoted = Techniques::default().set("bare_strings", false).unwrap();
    let doc = Document::parse_json(r#"{"m":"GET"}"#, &Limits::default()).unwrap();
    let text = doc.encode_with(&EncodeOptions::default().version(Version::V2).techniques(quoted));
    assert_eq!(text, r#"{m:"GET"}"#);
}

/// Every corpus document written as version 2 (both profiles) decodes
/// back with a version 2 reader, and bare strings were written.
#[test]
fn v2_round_trips_on_the_corpus() {
    let v2 = crate::DecodeOptions::default().version(Version::V2);
    let mut bare_docs = 0;
    for (name, json) in corpus() {
        let doc = Document::parse_json(&json, &Limits::default()).unwrap();
        let minified = doc.to_json();
        for profile in [Profile::Compact, Profile::Readable] {
            let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(profile));
            let back = crate::decode_with(&stc, &v2).unwrap_or_else(|e| panic!("{name} {profile}: {e}"));
            assert!(back == minified, "{name} {profile}: decodes to a different value");
            if profile == Profile::Compact && stc.len() < doc.encode(profile).len() {
                bare_docs += 1;
            }
        }
    }
    assert!(bare_docs >= 10, "only {bare_docs} documents got shorter in version 2");
}

mod bare_round_trip {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    /// Pieces strings are built from: each near a clause of the bare
    /// string rule (spaces, signs, digits, literal look-alikes, the
    /// structural characters, controls, non-ASCII, other whitespace).
    const PIECES: &[&str] = &[
        "a", "Zed", " ", "  ", "-", "+", ".", "0", "7", "1e5", "true", "True", "FALSE", "null", "NaN", "inf",
        "Infinity", "~", "/", ":", ",", "[", "]", "{", "}", "\"", "\\", "#", "'", "é", "日本", "😀", "\u{a0}",
        "\u{85}", "\u{2028}", "\u{3000}", "\u{7f}", "\t", "\n", "\u{200b}",
    ];
    const KEYS: &[&str] = &["a", "b", "id", "true", "x y", "-k", "é", "~", "1"];

    fn edge_string() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..4).prop_map(|p| p.concat())
    }

    fn scalar() -> BoxedStrategy<Value> {
        prop_oneof![
            6 => edge_string().prop_map(Value::String),
            1 => Just(Value::Null),
            1 => any::<bool>().prop_map(Value::Bool),
            1 => (-1000i64..1000).prop_map(Value::from),
        ]
        .boxed()
    }

    /// Rows over the columns a, b, c, each member present or not: tables,
    /// absent cells and (when the values are objects) column groups.
    fn rows(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Vec<Value>> {
        prop::collection::vec(prop::collection::vec((any::<bool>(), inner), 3), 2..5).prop_map(|rows| {
            rows.into_iter()
                .map(|cells| {
                    let mut m = Map::new();
                    for ((keep, v), k) in cells.into_iter().zip(["a", "b", "c"]) {
                        if keep {
                            m.insert(k.to_string(), v);
                        }
                    }
                    Value::Object(m)
                })
                .collect()
        })
    }

    fn value() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(3, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(KEYS), inner.clone()), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
                rows(inner.clone()).prop_map(Value::Array),
                rows(inner).prop_map(|rows| {
                    Value::Object(rows.into_iter().enumerate().map(|(n, r)| (format!("r{n}"), r)).collect())
                }),
            ]
        })
    }

    /// Arrays of objects with the same keys (version 1 tables), cells
    /// of every kind, nested values included.
    fn same_key_rows() -> impl Strategy<Value = Value> {
        let row = prop::collection::vec(value(), 1..4);
        prop::collection::vec(row, 2..5).prop_map(|rows| {
            let width = rows.iter().map(Vec::len).min().unwrap_or(0);
            Value::Array(
                rows.into_iter()
                    .map(|cells| {
                        Value::Object(
                            cells.into_iter().take(width).zip(KEYS).map(|(v, k)| (k.to_string(), v)).collect(),
                        )
                    })
                    .collect(),
            )
        })
    }

    proptest! {
        /// Version 1 tables priced in one pass (`price_rows_once`) cost
        /// exactly what the texts cost (the `cfg(test)` comparisons in
        /// the planner), and the output decodes to the input.
        #[test]
        fn v1_rows_priced_once_as_their_texts(v in same_key_rows()) {
            let json = serde_json::to_string(&v).unwrap();
            let doc = Document::parse_json(&json, &Limits::default()).unwrap();
            let minified = doc.to_json();
            for profile in [Profile::Compact, Profile::Readable] {
                let stc = doc.encode(profile);
                let back = crate::decode(&stc);
                prop_assert_eq!(back.as_deref(), Ok(minified.as_str()), "{}", stc);
            }
        }

        /// Version 2 encode then version 2 decode is the identity, in
        /// both profiles, for values whose strings sit at the rule's edges.
        #[test]
        fn v2_encode_then_decode_is_the_identity(v in value()) {
            let json = serde_json::to_string(&v).unwrap();
            let doc = Document::parse_json(&json, &Limits::default()).unwrap();
            let minified = doc.to_json();
            let v2 = crate::DecodeOptions::default().version(Version::V2);
            for profile in [Profile::Compact, Profile::Readable] {
                let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(profile));
                let back = crate::decode_with(&stc, &v2);
                prop_assert_eq!(back.as_deref(), Ok(minified.as_str()), "{}", stc);
            }
        }
    }
}

#[test]
fn the_counter_decides_the_choice() {
    let doc = Document::parse_json(TABLE, &Limits::default()).unwrap();
    let (options, gate) = (EncodeOptions::default(), GateOptions::default());
    // The estimate picks STC for this table.
    assert_eq!(doc.encode_gated(Profile::Compact, &gate).chosen, Chosen::Stc);
    // A counter that charges STC's `/` heavily makes JSON the answer; it sees JSON first, then STC.
    let mut seen = Vec::new();
    let slashes = |text: &str| {
        seen.push(text.to_string());
        Ok::<usize, ()>(text.len() + 100 * text.matches('/').count())
    };
    let g = doc.encode_gated_with_counter(&options, &gate, slashes).unwrap();
    assert_eq!(g.chosen, Chosen::Json);
    assert_eq!(g.text, doc.to_json());
    assert_eq!(seen, [doc.to_json(), doc.encode(Profile::Compact)]);
    assert_eq!((g.json_tokens, g.stc_tokens), (seen[0].len(), seen[1].len() + 200));
    // The same counts through the text-level call.
    let g2 = encode_gated_with_counter(TABLE, &options, &gate, |t: &str| {
        Ok::<usize, ()>(t.len() + 100 * t.matches('/').count())
    })
    .unwrap();
    assert_eq!(g2, g);
    // min_saving applies to the counter's numbers: 61 vs 32 bytes saves 48%.
    let bytes = |t: &str| Ok::<usize, ()>(t.len());
    assert_eq!((TABLE.len(), doc.encode(Profile::Compact).len()), (61, 32));
    let strict = GateOptions::default().min_saving(0.55);
    assert_eq!(doc.encode_gated_with_counter(&options, &strict, bytes).unwrap().chosen, Chosen::Json);
    let g = doc.encode_gated_with_counter(&options, &GateOptions::default().min_saving(0.45), bytes).unwrap();
    assert_eq!((g.chosen, g.text), (Chosen::Stc, doc.encode(Profile::Compact)));
}

#[test]
fn a_counter_error_comes_back_unchanged() {
    #[derive(Debug, PartialEq)]
    struct Offline(u32);
    let doc = Document::parse_json(TABLE, &Limits::default()).unwrap();
    let (options, gate) = (EncodeOptions::default(), GateOptions::default());
    assert_eq!(doc.encode_gated_with_counter(&options, &gate, |_| Err(Offline(7))), Err(Offline(7)));
    // Failing on the second call (the STC text) also stops the gate.
    let mut calls = 0;
    let second = |_: &str| {
        calls += 1;
        if calls == 2 {
            Err(Offline(2))
        } else {
            Ok(10)
        }
    };
    assert_eq!(doc.encode_gated_with_counter(&options, &gate, second), Err(Offline(2)));
    match encode_gated_with_counter(TABLE, &options, &gate, |_| Err(Offline(9))) {
        Err(GateError::Counter(Offline(9))) => {}
        other => panic!("{other:?}"),
    }
    // A refused input never reaches the counter.
    let never = |_: &str| -> Result<usize, Offline> { panic!("counted a refused input") };
    match encode_gated_with_counter("[1,]", &options, &gate, never) {
        Err(GateError::Codec(err)) => assert_eq!(err.offset(), Some(3)),
        other => panic!("{other:?}"),
    }
}
