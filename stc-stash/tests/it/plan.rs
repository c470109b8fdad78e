//! Planning laws (property tests) and record selection, without I/O.

use crate::common;

use std::collections::HashMap;

use proptest::prelude::*;
use stc_stash::{
    plan, plan_with, references, restore, select_records, Key, MarkerSecret, PlanOptions, Recovery, Seal, ToolName,
    Unit, Value,
};

fn parse(json: &str) -> Value<'_> {
    Value::parse_json(json, &Default::default()).unwrap()
}

/// Restores an output from the plan's own payloads.
fn restored(output: &Value<'_>, omissions: &[stc_stash::Omission]) -> String {
    let payloads: HashMap<Key, String> = omissions.iter().map(|o| (o.key, o.payload.clone())).collect();
    restore(output, &mut |k| payloads.get(k).cloned()).unwrap()
}

/// JSON documents with record arrays, plain arrays, long strings and nesting.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        (-1000.0f64..1000.0).prop_map(|x| format!("{x:e}")),
        "[a-z\\\\\"\\n é😀]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        (0usize..1500).prop_map(|n| serde_json::to_string(&"x".repeat(n)).unwrap()),
        // Long strings with escapes, surrogate pairs and multi-byte characters.
        (0usize..300).prop_map(|n| serde_json::to_string(&"é\n\"😀\u{1}x".repeat(n)).unwrap()),
    ];
    leaf.prop_recursive(4, 400, 60, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..60).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[a-c]{1,2}", inner.clone()), 0..5).prop_map(|m| {
                let members: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
            // Record arrays: objects over a few shared keys.
            (prop::collection::vec((0i64..100, inner, any::<bool>()), 0..70)).prop_map(|rows| {
                let items: Vec<String> = rows
                    .iter()
                    .map(|(n, v, odd)| {
                        if *odd && n % 7 == 0 {
                            format!(r#"{{"id":{n},"v":{v},"extra":1}}"#)
                        } else {
                            format!(r#"{{"id":{n},"v":{v}}}"#)
                        }
                    })
                    .collect();
                format!("[{}]", items.join(","))
            }),
        ]
    })
}

fn options() -> impl Strategy<Value = PlanOptions> {
    // Record budgets 0 and 1 are the last steps of a token budget; sealed keys are
    // the proxy's (KEY.TAG).
    let seal = prop::option::of(Just(Seal::new(MarkerSecret::from_material(b"0123456789abcdef").unwrap(), "c")));
    (0usize..40, 0usize..12, 0usize..6, prop::option::of(1usize..120), 0usize..80, any::<bool>(), 0usize..300, seal)
        .prop_map(|(record_budget, head, tail, long, string_head, recoverable, min_omitted_bytes, seal)| PlanOptions {
            record_budget,
            head,
            tail,
            long_string_chars: long,
            string_head_chars: string_head,
            recovery: Recovery::Tool(ToolName::new("stc_retrieve").unwrap()),
            recoverable,
            min_omitted_bytes,
            seal,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every omitted element is recoverable: original == splice(kept, retrieved).
    #[test]
    fn every_omission_is_recoverable(json in json_value(), opts in options()) {
        let opts = PlanOptions { recoverable: true, ..opts };
        let input = parse(&json);
        let original = input.to_json();
        let p = plan(&input, &opts);
        prop_assert_eq!(restored(&p.output, &p.omissions), original);
    }

    /// The output is valid JSON and valid STC that decodes back to itself,
    /// and its markers reference exactly the omissions (when recoverable).
    #[test]
    fn output_is_valid_and_references_match(json in json_value(), opts in options()) {
        let input = parse(&json);
        let p = plan(&input, &opts);
        let out = p.output.to_json();
        let stc = stc_core::encode_with(&out, &Default::default()).unwrap();
        prop_assert_eq!(stc_core::decode(&stc).unwrap(), out.clone());
        let mut keys: Vec<Key> = p.omissions.iter().map(|o| o.key).collect();
        keys.sort();
        keys.dedup();
        let refs = stc_stash::references_in(&stc);
        if opts.recoverable {
            prop_assert_eq!(refs, keys);
        } else {
            prop_assert!(refs.is_empty());
        }
        for o in &p.omissions {
            prop_assert_eq!(Key::of(o.payload.as_bytes()), o.key);
            prop_assert!(!o.payload.contains("stc_stash"), "a marker is never stashed in place of an original");
        }
    }

    /// Planning is deterministic, and an output is never truncated again.
    #[test]
    fn deterministic_and_idempotent(json in json_value(), opts in options()) {
        let input = parse(&json);
        let a = plan(&input, &opts);
        prop_assert_eq!(&a, &plan(&input, &opts));
        if !a.omissions.is_empty() {
            let again = plan(&a.output, &opts);
            prop_assert!(again.omissions.is_empty());
            prop_assert_eq!(again.output, a.output);
        }
    }

    /// Record selection keeps first and last, stays within the budget, is sorted.
    #[test]
    fn selection_respects_budget(n in 3usize..200, budget in 2usize..40) {
        let json = common::records(n);
        let Value::Array(records) = parse(&json) else { unreachable!() };
        let kept = select_records(&records, budget);
        prop_assert_eq!(kept.len(), budget.min(n));
        prop_assert_eq!(kept[0], 0);
        prop_assert_eq!(*kept.last().unwrap(), n - 1);
        prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn record_array_of_500_keeps_boundaries_errors_anomalies_outliers() {
    let json = common::records(500);
    let p = plan(&parse(&json), &PlanOptions::default());
    assert_eq!(p.omissions.len(), 1);
    let o = &p.omissions[0];
    assert_eq!((o.unit, o.omitted, o.of), (Unit::Records, 468, 500));
    assert_eq!(o.payload, parse(&json).to_json(), "the complete array is stashed");
    let out = p.output.to_json();
    for needle in [r#""id":0,"#, r#""id":499,"#, r#""status":"error""#, r#""latency_ms":98000"#, r#""extra":true"#] {
        assert!(out.contains(needle), "{needle} kept");
    }
    let info = p.output.get("stc_stash").unwrap();
    assert_eq!(info.get("kept").unwrap().as_str(), Some("0-27,166,250,333,499"));
    let how = info.get("retrieve").unwrap().as_str().unwrap();
    assert_eq!(how, format!("468 of 500 records omitted. If needed, run in shell: stc retrieve {}", o.key));
}

#[test]
fn exactly_32_records_are_kept_whole_and_33_are_cut() {
    let (r32, r33) = (common::records(32), common::records(33));
    let p = plan(&parse(&r32), &PlanOptions::default());
    assert!(p.omissions.is_empty());
    // One small record is not worth a marker...
    assert!(plan(&parse(&r33), &PlanOptions::default()).omissions.is_empty());
    // ...unless the caller says any omission is.
    let p = plan(&parse(&r33), &PlanOptions { min_omitted_bytes: 0, ..PlanOptions::default() });
    assert_eq!((p.omissions[0].omitted, p.omissions[0].of), (1, 33));
}

#[test]
fn other_arrays_keep_head_and_tail() {
    let json = format!("[{}]", (0..100).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let p = plan(&parse(&json), &PlanOptions { min_omitted_bytes: 0, ..PlanOptions::default() });
    let Value::Array(items) = &p.output else { panic!() };
    assert_eq!(items.len(), 41);
    assert_eq!(items[31].to_json(), "31");
    assert_eq!(items[33].to_json(), "92");
    assert_eq!(p.omissions[0].payload, format!("[{}]", (32..92).map(|i| i.to_string()).collect::<Vec<_>>().join(",")));
    let marker = items[32].get("stc_stash").unwrap();
    assert_eq!(marker.get("kept").unwrap().as_str(), Some("0-31,92-99"));
    assert_eq!(marker.get("unit").unwrap().as_str(), Some("items"));
}

#[test]
fn small_windows_are_not_worth_a_marker() {
    // 60 one- and two-digit numbers weigh less than the marker that would replace them.
    let json = format!("[{}]", (0..100).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    assert!(plan(&parse(&json), &PlanOptions::default()).omissions.is_empty());
}

#[test]
fn long_strings_keep_their_head() {
    let long = "é".repeat(5000);
    let json = format!(r#"{{"log":"{long}"}}"#);
    let p = plan(&parse(&json), &PlanOptions::default());
    let log = p.output.get("log").unwrap();
    assert_eq!(log.get("head").unwrap().as_str().unwrap().chars().count(), 512);
    assert_eq!(p.omissions[0].payload, format!("\"{long}\""));
    assert_eq!(p.omissions[0].omitted, 4488);
}

#[test]
fn lossy_markers_say_so_and_carry_no_key() {
    let opts = PlanOptions { recoverable: false, ..PlanOptions::default() };
    let json = common::records(100);
    let p = plan(&parse(&json), &opts);
    let info = p.output.get("stc_stash").unwrap();
    assert_eq!(info.get("recoverable"), Some(&Value::Bool(false)));
    assert!(info.get("key").is_none() && info.get("retrieve").is_none());
    assert!(references(&p.output).is_empty());
}

#[test]
fn recovery_forms() {
    let json = common::records(40);
    let key = Key::of(parse(&json).to_json().as_bytes());
    let text = |recovery: Recovery| {
        let p = plan(&parse(&json), &PlanOptions { recovery, ..PlanOptions::default() });
        p.output.get("stc_stash").unwrap().get("retrieve").and_then(|v| v.as_str().map(str::to_string))
    };
    assert_eq!(text(Recovery::None), None);
    assert!(text(Recovery::Shell).unwrap().ends_with(&format!("run in shell: stc retrieve {key}")));
    let tool = Recovery::Tool(ToolName::new("fetch-stash").unwrap());
    assert!(text(tool).unwrap().ends_with(&format!("call tool fetch-stash with key={key}")));
}

#[test]
fn never_cut_keeps_retrieved_content_whole() {
    let json = common::records(100);
    let input = parse(&json);
    let whole = Key::of(input.to_json().as_bytes());
    let p = plan_with(&input, &PlanOptions::default(), &mut |k| *k == whole);
    // The record array is kept whole; nothing else is long enough to cut.
    assert!(p.omissions.is_empty());
    assert_eq!(p.output, input);
}

#[test]
fn marker_lookalikes_in_data_block_truncation() {
    let json = format!(r#"{{"stc_stash":"user data","rows":{}}}"#, common::records(100));
    let p = plan(&parse(&json), &PlanOptions::default());
    assert!(p.omissions.is_empty(), "data that imitates markers is never cut (no chains, no confusion)");
}

#[test]
fn restore_rejects_a_payload_that_does_not_match_its_key() {
    let json = format!("[{}]", (0..400).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let p = plan(&parse(&json), &PlanOptions::default());
    let err = restore(&p.output, &mut |_| Some("[1,2,3]".to_string())).unwrap_err();
    assert!(matches!(err, stc_stash::RestoreError::BadPayload(_)));
    assert!(restore(&p.output, &mut |_| None).is_err());
}
