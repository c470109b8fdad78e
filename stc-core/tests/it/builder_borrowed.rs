//! `DocumentBuilder::push_str_borrowed` / `push_key_borrowed`: the document
//! keeps a string that needs no escaping as the caller's slice, and escapes
//! any other into its arena. Whatever the path, the document must be the
//! one `push_str` / `push_key` build (same nodes, same JSON, same STC), a
//! refused push must leave the document as it was, and the writers must
//! compare borrowed and copied texts as equal when they are (keys of
//! columnar tables, repeated values).

use proptest::prelude::*;
use stc_core::{Abort, Document, DocumentBuilder, ErrorKind, JsonStr, Limits, Profile, Sink};

/// Strings of every length around the eight-byte words and the 64-byte
/// limit of the short-string test, with a byte to escape (or a multi-byte
/// character) at every position.
fn edge_strings() -> Vec<String> {
    let mut out = Vec::new();
    for len in (0..=20).chain([31, 32, 33, 63, 64, 65, 66, 72, 100, 129]) {
        let plain: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        out.push(plain.clone());
        for special in ['"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', '\u{2028}', '😀', '/'] {
            for at in 0..=len {
                let mut s = plain.clone();
                s.insert(at, special);
                out.push(s);
            }
        }
    }
    out
}

/// `[s, {s: s}]` built with the copying pushes (`borrowed` false) or the
/// borrowing ones.
fn build(strings: &[String], borrowed: bool) -> Document<'_> {
    let mut b = DocumentBuilder::new();
    b.push_begin_array().unwrap();
    for s in strings {
        if borrowed {
            b.push_str_borrowed(s).unwrap();
            b.push_begin_object().unwrap();
            b.push_key_borrowed(s).unwrap();
            b.push_str_borrowed(s).unwrap();
        } else {
            b.push_str(s).unwrap();
            b.push_begin_object().unwrap();
            b.push_key(s).unwrap();
            b.push_str(s).unwrap();
        }
        b.push_end_object().unwrap();
    }
    b.push_end_array().unwrap();
    b.finish().unwrap()
}

#[test]
fn borrowed_pushes_build_the_copying_pushes_document() {
    let strings = edge_strings();
    assert!(strings.len() > 5000);
    let copied = build(&strings, false);
    let borrowed = build(&strings, true);
    assert_eq!(borrowed, copied);
    assert_eq!(borrowed.to_json(), copied.to_json());
    // Each string alone, so that a difference names its string.
    for s in &strings {
        let one = std::slice::from_ref(s);
        let (c, b) = (build(one, false), build(one, true));
        assert_eq!(b.to_json(), c.to_json(), "{s:?}");
        assert_eq!(b.to_json(), format!("[{0},{{{0}:{0}}}]", serde_json::to_string(s).unwrap()), "{s:?}");
    }
}

#[test]
fn corpus_documents_built_from_borrowed_strings_encode_as_parsed() {
    let dir = crate::support::corpus_dir();
    let mut seen = 0;
    for name in ["twitter.json", "citm_catalog.json", "gsoc-2018.json", "update-center.json", "github_events.json"] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else { continue };
        let parsed = Document::parse_json(&text, &Limits::default()).unwrap();
        // The parsed document's values, strings unescaped and owned by this test.
        let mut events = Events(Vec::new());
        parsed.replay(&mut events).unwrap();
        // Every other string borrowed, the others copied: both kinds meet
        // in the same columns and the same comparisons.
        let mut b = DocumentBuilder::new();
        for (i, event) in events.0.iter().enumerate() {
            let borrow = i % 2 == 0;
            match event {
                Event::Null => b.push_null(),
                Event::Bool(x) => b.push_bool(*x),
                Event::Number(n) => b.push_number(n),
                Event::Str(s) if borrow => b.push_str_borrowed(s),
                Event::Str(s) => b.push_str(s),
                Event::Key(k) if borrow => b.push_key_borrowed(k),
                Event::Key(k) => b.push_key(k),
                Event::BeginArray => b.push_begin_array(),
                Event::EndArray => b.push_end_array(),
                Event::BeginObject => b.push_begin_object(),
                Event::EndObject => b.push_end_object(),
            }
            .unwrap();
        }
        let built = b.finish().unwrap();
        assert_eq!(built, parsed, "{name}");
        for profile in [Profile::Compact, Profile::Readable] {
            assert_eq!(built.encode(profile), parsed.encode(profile), "{name}");
        }
        seen += 1;
    }
    assert!(seen >= 3, "expected the shared corpus in {}", dir.display());
}

/// A document's values, with owned text.
enum Event {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Key(String),
    BeginArray,
    EndArray,
    BeginObject,
    EndObject,
}

struct Events(Vec<Event>);

impl<'a> Sink<'a> for Events {
    fn null(&mut self) -> Result<(), Abort> {
        self.0.push(Event::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.0.push(Event::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.0.push(Event::Number(lexeme.to_string()));
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.0.push(Event::Str(value.to_str().ok_or(Abort)?.into_owned()));
        Ok(())
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.0.push(Event::BeginArray);
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.0.push(Event::EndArray);
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.0.push(Event::BeginObject);
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.0.push(Event::Key(key.to_str().ok_or(Abort)?.into_owned()));
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.0.push(Event::EndObject);
        Ok(())
    }
}

#[test]
fn refused_borrowed_pushes_change_nothing() {
    for s in ["plain", "needs\nescaping", &"x".repeat(70), &format!("{}\"", "y".repeat(70))] {
        let mut b = DocumentBuilder::new();
        b.push_begin_object().unwrap();
        // A value where a key is due, a key where none may be.
        assert_eq!(b.push_str_borrowed(s).unwrap_err().kind(), ErrorKind::InvalidDocument);
        b.push_key_borrowed("k").unwrap();
        assert_eq!(b.push_key_borrowed(s).unwrap_err().kind(), ErrorKind::InvalidDocument);
        b.push_str_borrowed(s).unwrap();
        b.push_end_object().unwrap();
        assert_eq!(b.push_str_borrowed(s).unwrap_err().kind(), ErrorKind::InvalidDocument);
        let doc = b.finish().unwrap();
        let expected = format!("{{\"k\":{}}}", serde_json::to_string(s).unwrap());
        assert_eq!(doc.to_json(), expected, "{s:?}");
        assert_eq!(doc.node_count(), 3);
    }
}

#[test]
fn repeated_borrowed_keys_make_a_table() {
    // The planner compares keys on the tape: borrowed keys of different
    // slices, copied keys and a mix must all be found equal.
    let names: Vec<String> = (0..3).map(|_| String::from("id0")).collect();
    let mut b = DocumentBuilder::new();
    b.push_begin_array().unwrap();
    for (i, name) in names.iter().enumerate() {
        b.push_begin_object().unwrap();
        if i == 1 {
            b.push_key(name).unwrap();
        } else {
            b.push_key_borrowed(name).unwrap();
        }
        b.push_i64(i as i64).unwrap();
        b.push_key_borrowed("name").unwrap();
        b.push_str_borrowed(name).unwrap();
        b.push_end_object().unwrap();
    }
    b.push_end_array().unwrap();
    let doc = b.finish().unwrap();
    let parsed = r#"[{"id0":0,"name":"id0"},{"id0":1,"name":"id0"},{"id0":2,"name":"id0"}]"#;
    let expected = Document::parse_json(parsed, &Limits::default()).unwrap().encode(Profile::Compact);
    assert_eq!(doc.encode(Profile::Compact), expected);
    assert!(expected.contains("{id0,name}"), "{expected}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_borrowed_or_copied_builds_the_same(strings in prop::collection::vec(any::<String>(), 0..6)) {
        let copied = build(&strings, false);
        let borrowed = build(&strings, true);
        prop_assert_eq!(borrowed.to_json(), copied.to_json());
        prop_assert_eq!(borrowed.encode(Profile::Compact), copied.encode(Profile::Compact));
        prop_assert_eq!(borrowed, copied);
    }
}
