//! The checked `DocumentBuilder`: every way of feeding it events (its
//! `push_*` methods and its public `Sink` implementation) must refuse a
//! sequence that is not exactly one JSON value, because a `Document` promises
//! to hold one well-formed value and its writers rely on that.
//!
//! The oracle is independent of the builder: each event sequence is rendered
//! naively (a comma before anything but a closing bracket that follows a
//! complete value) and handed to serde_json. The sequence forms one JSON value
//! exactly when that text is JSON.

use proptest::prelude::*;
use stc_core::{Document, DocumentBuilder, ErrorKind, JsonStr, Limits, Profile, Sink};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ev {
    Null,
    Num,
    Str,
    Key,
    BeginArray,
    EndArray,
    BeginObject,
    EndObject,
}

/// Feeds `events` through the builder's `Sink` implementation; stops at the
/// first refused event, as the parser does.
fn via_sink(events: &[Ev]) -> Result<Document<'static>, stc_core::Error> {
    let mut b = DocumentBuilder::new();
    for ev in events {
        let r = match ev {
            Ev::Null => b.null(),
            Ev::Num => b.number("1.50"),
            Ev::Str => b.string(JsonStr::from_escaped(r"a\u00e9\n").unwrap()),
            Ev::Key => b.key(JsonStr::from_escaped("k").unwrap()),
            Ev::BeginArray => b.begin_array(None),
            Ev::EndArray => b.end_array(),
            Ev::BeginObject => b.begin_object(None),
            Ev::EndObject => b.end_object(),
        };
        if r.is_err() {
            break;
        }
    }
    b.finish()
}

/// Feeds `events` through the `push_*` methods; a refused call has no effect,
/// so stop there too and let `finish` judge what was built.
fn via_push(events: &[Ev]) -> Result<Document<'static>, stc_core::Error> {
    let mut b = DocumentBuilder::new();
    for ev in events {
        match ev {
            Ev::Null => b.push_null(),
            Ev::Num => b.push_number("1.50"),
            Ev::Str => b.push_str("a\u{e9}\n"),
            Ev::Key => b.push_key("k"),
            Ev::BeginArray => b.push_begin_array(),
            Ev::EndArray => b.push_end_array(),
            Ev::BeginObject => b.push_begin_object(),
            Ev::EndObject => b.push_end_object(),
        }?;
    }
    b.finish()
}

/// The naive rendering of an event sequence (no checks at all).
fn render(events: &[Ev]) -> String {
    let mut out = String::new();
    let mut need_comma = false;
    for ev in events {
        let closing = matches!(ev, Ev::EndArray | Ev::EndObject);
        if need_comma && !closing {
            out.push(',');
        }
        out.push_str(match ev {
            Ev::Null => "null",
            Ev::Num => "1.50",
            Ev::Str => r#""aé\n""#,
            Ev::Key => r#""k":"#,
            Ev::BeginArray => "[",
            Ev::EndArray => "]",
            Ev::BeginObject => "{",
            Ev::EndObject => "}",
        });
        need_comma = !matches!(ev, Ev::Key | Ev::BeginArray | Ev::BeginObject);
    }
    out
}

fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

#[test]
fn sink_refuses_a_key_and_two_values_at_top_level() {
    // The hole from issue 15: this used to build a "document" that no writer
    // can write correctly.
    let mut b = DocumentBuilder::new();
    let _ = b.key(JsonStr::from_escaped("k").unwrap());
    let _ = b.null();
    let _ = b.null();
    let err = b.finish().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidDocument);
    assert!(err.message().contains("key"), "{err}");
}

#[test]
fn sink_refuses_each_kind_of_misuse() {
    use Ev::*;
    let cases: &[(&[Ev], &str)] = &[
        (&[Null, Null], "one top-level value"),
        (&[BeginArray, Key, Null, EndArray], "key"),
        (&[BeginObject, Null, EndObject], "key before its value"),
        (&[BeginObject, Key, Key], "key"),
        (&[BeginObject, Key, EndObject], "end_object"),
        (&[BeginArray, EndObject], "end_object"),
        (&[BeginObject, EndArray], "end_array"),
        (&[EndArray], "end_array"),
        (&[BeginArray], "incomplete"),
        (&[], "incomplete"),
    ];
    for (events, says) in cases {
        let err = via_sink(events).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidDocument, "{events:?}");
        assert!(err.message().contains(says), "{events:?}: {err}");
        let err = via_push(events).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidDocument, "{events:?}");
    }
}

#[test]
fn sink_checks_numbers_and_depth() {
    let mut b = DocumentBuilder::new();
    assert!(b.number("01").is_err());
    assert_eq!(b.finish().unwrap_err().kind(), ErrorKind::InvalidNumber);

    let mut b = DocumentBuilder::with_capacity(0, 2);
    b.begin_array(None).unwrap();
    b.begin_array(None).unwrap();
    assert!(b.begin_array(None).is_err());
    assert_eq!(b.finish().unwrap_err().kind(), ErrorKind::DepthLimit);
}

#[test]
fn the_parser_drives_the_checked_builder() {
    // A document from STC text through the public, checked Sink: the same
    // tape as reading the decoded JSON.
    let stc = r#"{rows[2]{id,name}: 1,"a\u00e9" / 2,null, n[3]: 1.0,-0,1e3, e: {}, "q\"": []}"#;
    let mut b = DocumentBuilder::new();
    stc_core::parse_stc(stc, &Limits::default(), &mut b).unwrap();
    let doc = b.finish().unwrap();
    let json = stc_core::decode(stc).unwrap();
    assert_eq!(doc.to_json(), json);
    assert_eq!(doc, Document::parse_json(&json, &Limits::default()).unwrap());
    assert_eq!(doc.encode(Profile::Compact), stc_core::encode_with(&json, &Default::default()).unwrap());

    // Deeper than the builder allows: the parser stops, finish says why.
    let mut b = DocumentBuilder::with_capacity(0, 2);
    let err = stc_core::parse_stc("[[[1]]]", &Limits::default(), &mut b).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Aborted);
    assert_eq!(b.finish().unwrap_err().kind(), ErrorKind::DepthLimit);
}

fn events() -> impl Strategy<Value = Vec<Ev>> {
    use Ev::*;
    prop::collection::vec(
        prop::sample::select(vec![Null, Num, Str, Key, BeginArray, EndArray, BeginObject, EndObject]),
        0..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The builder accepts exactly the sequences that form one JSON value, and
    /// what it accepts writes back as that value.
    #[test]
    fn builder_accepts_exactly_one_json_value(events in events()) {
        let text = render(&events);
        let valid = is_json(&text);
        for (how, built) in [("sink", via_sink(&events)), ("push", via_push(&events))] {
            match built {
                Ok(doc) => {
                    prop_assert!(valid, "{how} accepted {events:?} = {text}");
                    prop_assert_eq!(doc.to_json(), text.clone());
                }
                Err(e) => {
                    prop_assert!(!valid, "{how} refused {events:?} = {text}: {e}");
                    prop_assert_eq!(e.kind(), ErrorKind::InvalidDocument);
                }
            }
        }
    }
}
