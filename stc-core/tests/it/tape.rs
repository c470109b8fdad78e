//! The compact tape behind `Document` (issue 12, memory): a document replays
//! exactly what the parser reported, whoever built it, and the streamed
//! encoder writes exactly the text `encode_with` returns.
//!
//! The generator writes JSON text directly, with every escape style (short
//! escapes, `\/`, `\u` escapes of any character, surrogate pairs, lone
//! surrogates), long strings and nesting deep enough that any recursion on
//! depth would show.

use proptest::prelude::*;
use stc_core::{parse_json, Abort, Document, DocumentBuilder, EncodeOptions, JsonStr, Limits, Profile, Sink, Version};

/// What a sink was told, with owned text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Null,
    Bool(bool),
    Number(String),
    /// Canonical body.
    String(String),
    /// Canonical body.
    Key(String),
    BeginArray,
    EndArray,
    BeginObject,
    EndObject,
}

/// Records events; checks every length a container announces against what
/// it then holds.
#[derive(Default)]
struct Record {
    events: Vec<Event>,
    /// Open containers: announced length, children so far, object or not.
    open: Vec<(Option<usize>, usize, bool)>,
    wrong_lengths: usize,
}

impl Record {
    fn child(&mut self, key: bool) {
        if let Some(top) = self.open.last_mut() {
            if top.2 == key {
                top.1 += 1;
            }
        }
    }
    fn close(&mut self) {
        if let Some((Some(announced), held, _)) = self.open.pop() {
            if announced != held {
                self.wrong_lengths += 1;
            }
        }
    }
}

impl<'a> Sink<'a> for Record {
    fn null(&mut self) -> Result<(), Abort> {
        self.child(false);
        self.events.push(Event::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.child(false);
        self.events.push(Event::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.child(false);
        self.events.push(Event::Number(lexeme.to_string()));
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.child(false);
        self.events.push(Event::String(value.canonical().into_owned()));
        Ok(())
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), Abort> {
        self.child(false);
        self.open.push((len, 0, false));
        self.events.push(Event::BeginArray);
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.close();
        self.events.push(Event::EndArray);
        Ok(())
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), Abort> {
        self.child(false);
        self.open.push((len, 0, true));
        self.events.push(Event::BeginObject);
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.child(true);
        self.events.push(Event::Key(key.canonical().into_owned()));
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.close();
        self.events.push(Event::EndObject);
        Ok(())
    }
}

/// One piece of a string body, as written in JSON.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9 _.-]{1,8}",
        2 => prop::sample::select(vec![
            r"\n", r"\t", r"\b", r"\f", r"\r", r#"\""#, r"\\", r"\/", "/", "é", "日本", "😀", "\u{2028}", "\u{7f}",
            r"\u00e9", r"\u00E9", r"\u0041", r"\u001f", r"\u0000", r"\u007f", r"\u2028", r"\ud83d\ude00",
            r"\uD83D\uDE00", r"\ud800", r"\uDC00", r"\udc00\ud800", r"\ud800x", r"\u005c", r"\u0022",
        ])
        .prop_map(String::from),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(piece(), 0..6).prop_map(|p| p.concat()),
        // Long strings: past 16 bytes (the encoder's long-string rule) and
        // past the streamed encoder's 64 KiB piece.
        1 => (piece(), 1usize..40).prop_map(|(p, n)| p.repeat(n)),
        1 => (piece(), 9000usize..12000).prop_map(|(p, n)| p.repeat(n)),
    ]
}

fn number() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,3})?"
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        number(),
        body().prop_map(|b| format!("\"{b}\"")),
    ]
}

/// A JSON text: a tree of arrays and objects (tables among them: arrays of
/// objects with the same keys), wrapped in up to 3000 more levels.
fn json() -> impl Strategy<Value = String> {
    let tree = scalar().prop_recursive(5, 200, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(|items| format!("[{}]", items.join(" , "))),
            prop::collection::vec((body(), inner.clone()), 0..6).prop_map(|members| {
                let m: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", m.join(","))
            }),
            (prop::collection::vec(inner, 1..4), 2usize..5).prop_map(|(values, rows)| {
                let row: Vec<String> = values.iter().enumerate().map(|(n, v)| format!("\"k{n}\": {v}")).collect();
                format!("[{}]", vec![format!("{{{}}}", row.join(",")); rows].join(","))
            }),
        ]
    });
    (tree, 0usize..3000, any::<bool>()).prop_map(|(tree, depth, objects)| {
        if objects {
            format!("{}{tree}{}", "{\"a\\/\":".repeat(depth), "}".repeat(depth))
        } else {
            format!("{}{tree}{}", "[".repeat(depth), "]".repeat(depth))
        }
    })
}

fn limits() -> Limits {
    Limits::default().max_depth(100_000)
}

/// The events of the parser reading `json`.
fn parsed(json: &str) -> Vec<Event> {
    let mut record = Record::default();
    parse_json(json, &limits(), &mut record).unwrap();
    record.events
}

/// The events of a document's replay; its announced lengths must be right.
fn replayed(doc: &Document<'_>) -> Vec<Event> {
    let mut record = Record::default();
    doc.replay(&mut record).unwrap();
    assert_eq!(record.wrong_lengths, 0, "a container announced the wrong length");
    record.events
}

/// The encoder's text handed out in pieces, joined.
fn streamed(doc: &Document<'_>, options: &EncodeOptions) -> (String, usize) {
    let (mut text, mut pieces) = (String::new(), 0);
    doc.encode_to(options, |piece| {
        assert!(!piece.is_empty());
        text.push_str(piece);
        pieces += 1;
        Ok::<(), ()>(())
    })
    .unwrap();
    (text, pieces)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The tape keeps every value, key, lexeme and canonical body the parser
    /// reported, in order, with the right lengths; a document built from the
    /// same events (everything in the builder's arena) is equal to it and
    /// replays the same; both encode the same.
    #[test]
    fn the_tape_replays_what_the_parser_reported(json in json()) {
        let events = parsed(&json);
        let doc = Document::parse_json(&json, &limits()).unwrap();
        prop_assert_eq!(&replayed(&doc), &events);
        prop_assert_eq!(doc.node_count(), events.iter().filter(|e| !matches!(e, Event::EndArray | Event::EndObject)).count());

        let mut builder = DocumentBuilder::with_capacity(0, 100_000);
        parse_json(&json, &limits(), &mut builder).unwrap();
        let built = builder.finish().unwrap();
        prop_assert_eq!(&replayed(&built), &events);
        prop_assert!(built == doc);
        prop_assert_eq!(built.to_json(), doc.to_json());
        prop_assert_eq!(built.encode(Profile::Compact), doc.encode(Profile::Compact));
    }

    /// `encode_to`'s pieces join to exactly `encode_with`'s text, in both
    /// versions and profiles.
    #[test]
    fn streamed_text_is_the_whole_text(json in json(), v2 in any::<bool>(), readable in any::<bool>()) {
        let doc = Document::parse_json(&json, &limits()).unwrap();
        let options = EncodeOptions::default()
            .version(if v2 { Version::V2 } else { Version::V1 })
            .profile(if readable { Profile::Readable } else { Profile::Compact });
        let whole = doc.encode_with(&options);
        let (text, pieces) = streamed(&doc, &options);
        if whole.len() < Document::ENCODE_CHUNK {
            prop_assert_eq!(pieces, 1);
        }
        prop_assert_eq!(text, whole);
    }
}

/// A document of about `rows` table rows with long and escaped strings.
fn big_json(rows: usize) -> String {
    let row = r#"{"id":123456,"name":"a name\nwith \u00e9scapes \/ and a lone \ud800","tags":["x","y"],"n":null}"#;
    let long = "x".repeat(200_000);
    format!("[{},{{\"long\":\"{long}\"}}]", vec![row; rows].join(","))
}

#[test]
fn streamed_pieces_are_64_kib() {
    let json = big_json(20_000);
    let doc = Document::parse_json(&json, &Limits::default()).unwrap();
    for options in [EncodeOptions::default(), EncodeOptions::default().version(Version::V2).profile(Profile::Readable)]
    {
        let mut pieces: Vec<String> = Vec::new();
        doc.encode_to(&options, |piece| {
            pieces.push(piece.to_string());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(pieces.concat(), doc.encode_with(&options));
        assert!(pieces.len() > 10, "{}", pieces.len());
        // Every piece but the last reaches the chunk size and goes past it by
        // less than one row, except the one holding the 200,000-byte string.
        let (last, rest) = pieces.split_last().unwrap();
        assert!(!last.is_empty());
        for piece in rest {
            let limit = if piece.contains(&"x".repeat(200_000)) { 200_000 + 4096 } else { 4096 };
            assert!((Document::ENCODE_CHUNK..Document::ENCODE_CHUNK + limit).contains(&piece.len()), "{}", piece.len());
        }
    }
}

#[test]
fn the_callers_error_stops_the_encoder() {
    let json = big_json(20_000);
    let doc = Document::parse_json(&json, &Limits::default()).unwrap();
    let mut calls = 0;
    let r = doc.encode_to(&EncodeOptions::default(), |_| {
        calls += 1;
        if calls == 3 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!((r, calls), (Err("stop"), 3));
}

#[test]
fn a_node_takes_8_bytes() {
    // Tape plus arena: 8 bytes a node (the parser's unused room is given
    // back), and only the strings whose escaping is not canonical are copied.
    let json = big_json(20_000);
    let doc = Document::parse_json(&json, &Limits::default()).unwrap();
    let nodes = doc.node_count();
    assert_eq!(nodes, 1 + 20_000 * 11 + 3);
    // Each name once in the arena, re-escaped (`\u00e9` and `\/` change).
    let arena = 20_000 * "a name\\nwith éscapes / and a lone \\ud800".len();
    let bytes = doc.tape_bytes();
    assert!(bytes >= nodes * 8 + arena, "{bytes}");
    assert!(bytes <= nodes * 9 + 2 * arena, "{bytes} for {nodes} nodes");
    // A document without escapes keeps no text of its own.
    let plain = Document::parse_json(r#"[{"a":"b","c":[1,2.5e3,true,null]}]"#, &Limits::default()).unwrap();
    assert_eq!(plain.node_count(), 10);
    assert!(plain.tape_bytes() <= 10 * 8 + 8, "{}", plain.tape_bytes());
}

#[test]
fn deep_documents_round_trip_on_a_small_stack() {
    // 100,000 nested arrays and objects, parsed, replayed, encoded in pieces
    // and written as JSON on a thread with a 256 KiB stack.
    const DEPTH: usize = 100_000;
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let json = format!("{}[\"\\/\"]{}", "{\"k\":[".repeat(DEPTH), "]}".repeat(DEPTH));
            let doc = Document::parse_json(&json, &Limits::default().max_depth(2 * DEPTH + 1)).unwrap();
            assert_eq!(doc.node_count(), 3 * DEPTH + 2);
            let (text, _) = streamed(&doc, &EncodeOptions::default().version(Version::V2));
            assert_eq!(text, doc.encode_with(&EncodeOptions::default().version(Version::V2)));
            assert_eq!(doc.to_json(), json.replace("\\/", "/"));
        })
        .unwrap();
    handle.join().unwrap();
}
