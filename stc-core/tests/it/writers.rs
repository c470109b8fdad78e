//! A document is written as JSON by replaying it into the same writers that
//! decoding uses. These tests hold the writers to independent oracles on the
//! shared corpus and on hand-picked edge cases:
//!
//! * `Document::to_json` (tape → replay → `JsonWriter`) equals `decode`
//!   (text → parser → `JsonWriter`), which the corpus round-trip test already
//!   checks against serde_json;
//! * `Document::to_json_pretty` equals a plain text re-indenter run over the
//!   minified JSON (written here, sharing no code with stc-core);
//! * replaying a document into the checked `DocumentBuilder` is accepted and
//!   rebuilds the same document.
//!
//! The corpus is read in place from `../shared/corpus`; set `STC_CORPUS` to
//! read it from elsewhere.

use stc_core::{decode, Document, DocumentBuilder, Limits};

use crate::support::json_files as corpus;

/// Indents minified JSON: two spaces per level, `": "` after keys, empty
/// containers kept as `[]`/`{}`.
fn reindent(minified: &str) -> String {
    let chars: Vec<char> = minified.chars().collect();
    let mut out = String::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '[' | '{' => {
                out.push(c);
                if matches!(chars.get(i + 1), Some(']' | '}')) {
                    out.push(chars[i + 1]);
                    i += 1;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            ']' | '}' => {
                depth -= 1;
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

fn check(name: &str, json: &str) {
    let doc = Document::parse_json(json, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let minified = doc.to_json();
    assert!(minified == decode(json).unwrap(), "{name}: to_json differs from decode");
    assert!(doc.to_json_pretty() == reindent(&minified), "{name}: to_json_pretty differs from the re-indented JSON");
    let mut builder = DocumentBuilder::new();
    doc.replay(&mut builder).unwrap_or_else(|_| panic!("{name}: the checked builder refused a replay"));
    assert!(builder.finish().unwrap() == doc, "{name}: replay did not rebuild the same document");
}

#[test]
fn corpus_documents_write_the_same_through_replay() {
    for (name, json) in corpus() {
        check(&name, &json);
    }
}

#[test]
fn edge_cases_write_the_same_through_replay() {
    let cases = [
        "null",
        "-0.0e-0",
        r#""""#,
        "[]",
        "{}",
        "[[]]",
        "[{}]",
        r#"{"":{}}"#,
        r#"[[[[1]],[]],{"a":[{}]}]"#,
        r#"{"a\"b": "c\\d", "\u0001": "\ud800 \/ \u00e9 \n", "[1]": ",:{}[]"}"#,
        r#"{"k": 1, "k": [1.0, 1e3, 12345678901234567890123]}"#,
        "  [ true , false , null ]  ",
    ];
    for json in cases {
        check(json, json);
    }
    // Deeper than one copy of the indentation prefix (2 spaces per level).
    let deep = format!("{}{{\"k\":1}}{}", "[".repeat(70), "]".repeat(70));
    check("70 levels", &deep);
    // The layout itself, by hand.
    let doc = Document::parse_json(r#"{"a":[1,{}],"b":{"c":"x,y"}}"#, &Limits::default()).unwrap();
    assert_eq!(doc.to_json_pretty(), "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {\n    \"c\": \"x,y\"\n  }\n}");
}

#[test]
fn replay_stops_at_the_first_abort() {
    struct StopAtSecondNumber(usize);
    impl<'a> stc_core::Sink<'a> for StopAtSecondNumber {
        fn number(&mut self, _lexeme: &'a str) -> Result<(), stc_core::Abort> {
            self.0 += 1;
            if self.0 == 2 {
                Err(stc_core::Abort)
            } else {
                Ok(())
            }
        }
    }
    let doc = Document::parse_json("[1, [2, 3], 4]", &Limits::default()).unwrap();
    let mut sink = StopAtSecondNumber(0);
    assert_eq!(doc.replay(&mut sink), Err(stc_core::Abort));
    assert_eq!(sink.0, 2);
}
