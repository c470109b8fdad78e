//! The writer against its test oracle, the per-node planner it replaced
//! (`support/reference.rs`): byte-identical text on every document of the
//! shared corpus, on hand-made shapes (nested tables, groups, keyed tables,
//! absent cells, wide rows, the width rule's choices) and on small tables
//! near the pricing bound that decides a table is sure to win, in both
//! versions and both profiles.

use serde_json::json;
use stc_core::{Document, EncodeOptions, Limits, Profile, Version};

use crate::support::reference;

/// Encodes `json` both ways in every version and profile and compares.
fn same(name: &str, json: &str) {
    let doc = Document::parse_json(json, &Limits::default()).unwrap();
    for version in [Version::V1, Version::V2] {
        for profile in [Profile::Compact, Profile::Readable] {
            let new = doc.encode_with(&EncodeOptions::default().profile(profile).version(version));
            let old = reference::write(stc_core::__oracle::tape(&doc), profile, version);
            assert!(new == old, "{name}: {version:?} {profile:?} differs at byte {}", {
                new.bytes().zip(old.bytes()).take_while(|(a, b)| a == b).count()
            });
        }
    }
}

#[test]
fn same_output_as_the_per_node_planner_on_the_corpus() {
    for (name, json) in crate::support::json_files() {
        same(&name, &json);
    }
}

#[test]
fn same_output_as_the_per_node_planner_on_hand_made_shapes() {
    let github = include_str!("../data/github-create-file.json");
    for json in [
        r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#,
        r#"[{"a":[{"c":1},{"c":2}]},{"a":[{"c":3},{"c":4}]},{"a":[{"c":5},{"c":6}]}]"#,
        r#"{"t":[{"b":[{"c":1},{"c":2}],"a":1},{"b":[],"a":2}],"n":1}"#,
        r#"[{"id":1,"u":{"x":1,"y":{"z":[1,2]}}},{"id":2,"u":{"x":2,"y":{"z":[]}}},{"id":3}]"#,
        r#"{"e1":{"n":"a","p":[1,2]},"e2":{"n":"b","p":[3]},"e3":{"n":"c"}}"#,
        r#"[[1,2],[3,4],[[5],[6,[7,{"a":[{"b":1},{"b":2}]}]]]]"#,
        github,
        r#"{"a":{"m":"x"},"b":{"m":"y"},"c":{"m":"z"}}"#,
        r#"{"x":{"a":1,"b":2,"c":3},"y":{"a":4,"d":5,"e":6}}"#,
    ] {
        same(json, json);
    }
    // Rows around the width limit (48 cells): a group of 44, 45 or 50 fields.
    for fields in [44, 45, 50] {
        let rows: Vec<serde_json::Value> = (0..3)
            .map(|n| {
                let user: serde_json::Map<String, serde_json::Value> =
                    (0..fields).map(|f| (format!("field_{f}"), json!(n * 100 + f))).collect();
                json!({"id": n, "name": format!("row {n}"), "user": user, "geo": {"lat": n as f64 + 0.5, "lon": -(n as f64) - 0.25}})
            })
            .collect();
        same(&format!("{fields} fields"), &json!({ "t": rows }).to_string());
    }
    // The width rule's choices: the narrowest group that fits, else the widest.
    for groups in [&[30, 20][..], &[40, 30, 20], &[25, 25], &[20, 20, 20, 20]] {
        let rows: Vec<serde_json::Value> = (0..3)
            .map(|r| {
                let mut row = serde_json::Map::new();
                row.insert("id".into(), json!(r));
                for (g, &width) in groups.iter().enumerate() {
                    let group: serde_json::Map<String, serde_json::Value> =
                        (0..width).map(|f| (format!("g{g}f{f}"), json!(r + f))).collect();
                    row.insert(format!("g{g}"), group.into());
                }
                row.into()
            })
            .collect();
        same(&format!("groups {groups:?}"), &serde_json::Value::Array(rows).to_string());
    }
}

#[test]
fn same_output_as_the_per_node_planner_near_the_sure_to_win_bound() {
    // Two or three rows of short or empty values, keys that are not
    // identifiers or end in a digit, values that are not one solid token.
    let values = [
        json!(""),
        json!("-"),
        json!(1),
        json!(null),
        json!("a"),
        json!([]),
        json!([1, 2]),
        json!({"q": 1}),
        json!("a long string value here"),
    ];
    for (n, v) in values.iter().enumerate() {
        let w = &values[(n + 1) % values.len()];
        for k in ["a", "k1", "-", "a b", "", "id"] {
            let row = json!({ k: v, "z": w });
            for rows in 2..=3 {
                let table = serde_json::Value::Array(vec![row.clone(); rows]);
                same(&table.to_string(), &table.to_string());
            }
            let member = json!({"t": [row, { k: w, "z": v }]});
            same(&member.to_string(), &member.to_string());
        }
    }
}
