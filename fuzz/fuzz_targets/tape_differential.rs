//! The fast JSON reader (`Document::parse_json`: `document/tape/json.rs`,
//! which writes the encoder's tape directly and hands whatever it refuses to
//! the general reader) against the general reader (`stc_core::parse_json`,
//! `parser.rs`), on any bytes:
//!
//! - the same acceptance, and the same error (kind, offset, line, column,
//!   message) on a rejected input;
//! - on success, the tape's replay gives exactly the general reader's events:
//!   every string and key as the general reader's body in canonical escaping
//!   (which the tape's raw body must be, byte for byte), the same decoded text
//!   (`to_str`) and UTF-16 units (lone surrogates kept); on both sides the
//!   escape flag a scan set (`has_escapes`) is true exactly when the body
//!   holds a backslash; number lexemes; literals; container counts (the general reader's
//!   announced length, when it gives one, is checked against its own count);
//! - `to_json` of the document is the general reader's events written by
//!   `JsonWriter` (what decoding writes).
//!
//! Each input runs twice: whole, with the default limits, and without its
//! first byte, with `max_depth` taken from that byte (0 to 5), so that the
//! depth limit is hit inside strings, keys and numbers of every kind.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{Abort, Document, JsonStr, JsonWriter, Limits, Sink};

fuzz_target!(|data: &[u8]| {
    check(data, &Limits::default());
    if let Some((&first, rest)) = data.split_first() {
        check(rest, &Limits::default().max_depth(usize::from(first % 6)));
    }
});

fn check(data: &[u8], limits: &Limits) {
    // Document::parse_json takes text: invalid UTF-8 is the caller's
    // (`from_utf8`'s) error, the same for both readers.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut general = Recorder::default();
    let general_result = stc_core::parse_json(text, limits, &mut general);
    let fast = Document::parse_json(text, limits);
    match (general_result, fast) {
        (Err(g), Err(f)) => {
            assert_eq!(
                (f.kind(), f.offset(), f.line(), f.column(), f.message()),
                (g.kind(), g.offset(), g.line(), g.column(), g.message()),
                "different errors (fast reader, general reader)"
            );
        }
        (Ok(()), Err(f)) => panic!("the fast reader rejects what the general reader accepts: {f}"),
        (Err(g), Ok(doc)) => panic!("the fast reader accepts what the general reader rejects ({g}): {doc:?}"),
        (Ok(()), Ok(doc)) => {
            let general = general.finish();
            let mut replayed = Recorder { tape: true, ..Recorder::default() };
            doc.replay(&mut replayed).expect("the recorder never aborts");
            let replayed = replayed.finish();
            assert_eq!(replayed.len(), general.len(), "different event counts");
            for (i, (r, g)) in replayed.iter().zip(&general).enumerate() {
                assert_eq!(r, g, "event {i} differs (replay, general reader)");
            }
            // The JSON written from the tape is what the general reader's
            // events write.
            let mut writer = JsonWriter::with_capacity(text.len());
            stc_core::parse_json(text, limits, &mut writer).expect("accepted above");
            assert_eq!(doc.to_json(), writer.into_string(), "to_json differs from the general reader's JSON");
        }
    }
}

/// One reported event, owned.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Null,
    Bool(bool),
    Number(String),
    String(Text),
    Key(Text),
    /// An array with its count of elements.
    Array(usize),
    EndArray,
    /// An object with its count of members.
    Object(usize),
    EndObject,
}

/// A string or key: canonical body, decoded text, UTF-16 units, whether the
/// canonical body holds an escape, whether it decodes to a lone surrogate.
#[derive(Debug, PartialEq, Eq)]
struct Text {
    canonical: String,
    decoded: Option<String>,
    utf16: Vec<u16>,
    has_escapes: bool,
    lone_surrogate: bool,
}

impl Text {
    fn new(s: &JsonStr<'_>, tape: bool) -> Text {
        let canonical = s.canonical().into_owned();
        if tape {
            // The tape keeps bodies canonical: the raw body is the canonical one.
            assert_eq!(s.raw(), canonical, "a tape body is not canonical");
        }
        let decoded = s.to_str().map(|d| d.into_owned());
        let utf16 = s.to_utf16();
        if let Some(d) = &decoded {
            assert_eq!(d.encode_utf16().collect::<Vec<_>>(), utf16, "to_str and to_utf16 disagree");
        }
        // The escape flag the scan set: true exactly when the body holds a backslash.
        assert_eq!(s.has_escapes(), s.raw().contains('\\'), "has_escapes is wrong for {:?}", s.raw());
        let has_escapes = canonical.contains('\\');
        Text { canonical, decoded, utf16, has_escapes, lone_surrogate: s.has_lone_surrogate() }
    }
}

/// Records events; counts each container's children (checking an announced
/// length against the count).
#[derive(Default)]
struct Recorder {
    /// Recording a tape's replay (bodies must be canonical).
    tape: bool,
    events: Vec<Event>,
    /// Open containers: index of their event, announced length, count so far.
    open: Vec<(usize, Option<usize>, usize)>,
}

impl Recorder {
    fn value(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.2 += 1;
        }
    }

    fn begin(&mut self, len: Option<usize>, event: Event) {
        if self.tape {
            assert!(len.is_some(), "a replay announces every container's length");
        }
        self.value();
        self.open.push((self.events.len(), len, 0));
        self.events.push(event);
    }

    fn end(&mut self, event: Event) {
        let (at, len, count) = self.open.pop().expect("end without an open container");
        if let Some(len) = len {
            assert_eq!(len, count, "announced length differs from the count");
        }
        match (&mut self.events[at], &event) {
            (Event::Array(n), Event::EndArray) | (Event::Object(n), Event::EndObject) => *n = count,
            (open, close) => panic!("{close:?} closes {open:?}"),
        }
        self.events.push(event);
    }

    fn finish(self) -> Vec<Event> {
        assert!(self.open.is_empty(), "containers left open");
        self.events
    }
}

impl<'a> Sink<'a> for Recorder {
    fn null(&mut self) -> Result<(), Abort> {
        self.value();
        self.events.push(Event::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.value();
        self.events.push(Event::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.value();
        self.events.push(Event::Number(lexeme.to_string()));
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.value();
        self.events.push(Event::String(Text::new(&value, self.tape)));
        Ok(())
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), Abort> {
        self.begin(len, Event::Array(0));
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.end(Event::EndArray);
        Ok(())
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), Abort> {
        self.begin(len, Event::Object(0));
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        // A key is not a child: the member's value counts once.
        self.events.push(Event::Key(Text::new(&key, self.tape)));
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.end(Event::EndObject);
        Ok(())
    }
}
