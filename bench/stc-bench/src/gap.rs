//! The values-only floor of issue 16 and the split of the remaining gap.
//!
//! * **Floor**: every scalar value of the document as its JSON lexeme (strings
//!   quoted in canonical escaping, numbers verbatim, `true`/`false`/`null`),
//!   joined by `,`, in document order; no keys, no brackets, no counts.
//! * **Split**: every byte of an STC text is classed as a value byte, a key
//!   byte (member keys; column names in headers counted apart), a count byte
//!   (the digits of `[N]` and `{N}`) or punctuation (everything else:
//!   brackets, braces, `:`, `,`, `/`, `~`, whitespace). Each token of the
//!   tokenizer's encoding is shared among the classes in proportion to the
//!   bytes it covers, so the class shares sum to the token count exactly.
//!   The floor text is classed the same way (values, and commas as
//!   punctuation), so `gap = stc - floor` splits exactly into keys, counts,
//!   punctuation (STC's minus the floor's commas) and values (tokens of the
//!   same value bytes, cut differently by their neighbours).
//!
//! The classifier reads the STC texts the encoders write (valid STC v1 or v2);
//! it is a lexer, not a validator, and the caller checks that it found
//! exactly as many values as the document has scalars.

use serde_json::{json, Value};
use stc_core::{parse_json, Abort, JsonStr, Limits, Sink};

/// What a byte of an STC text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Part of a scalar value's lexeme (string with its quotes, number, literal).
    Value,
    /// Part of an object member's key (with its quotes when quoted).
    Key,
    /// Part of a column name in a table header (`{id,name}`, v2 groups).
    HeaderKey,
    /// A digit of a count (`[N]`, `{N}`).
    Count,
    /// Anything else: brackets, braces, `:`, `,`, `/`, `~`, whitespace.
    Punct,
}

const CLASSES: [(Class, &str); 5] = [
    (Class::Value, "value"),
    (Class::Key, "key"),
    (Class::HeaderKey, "header_key"),
    (Class::Count, "count"),
    (Class::Punct, "punct"),
];

/// The floor text of a JSON document, its byte classes, and its number of scalars.
pub fn floor(json: &str) -> (String, Vec<Class>, usize) {
    let mut f = Floor { text: String::new(), classes: Vec::new(), scalars: 0 };
    parse_json(json, &Limits::default().max_depth(1024), &mut f).expect("floor: the document is JSON");
    (f.text, f.classes, f.scalars)
}

struct Floor {
    text: String,
    classes: Vec<Class>,
    scalars: usize,
}

impl Floor {
    fn push(&mut self, write: impl FnOnce(&mut String)) -> Result<(), Abort> {
        if self.scalars > 0 {
            self.text.push(',');
            self.classes.push(Class::Punct);
        }
        let start = self.text.len();
        write(&mut self.text);
        self.classes.resize(self.text.len(), Class::Value);
        debug_assert!(self.text.len() > start);
        self.scalars += 1;
        Ok(())
    }
}

impl<'a> Sink<'a> for Floor {
    fn null(&mut self) -> Result<(), Abort> {
        self.push(|t| t.push_str("null"))
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.push(|t| t.push_str(if value { "true" } else { "false" }))
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.push(|t| t.push_str(lexeme))
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.push(|t| {
            t.push('"');
            value.write_canonical(t);
            t.push('"');
        })
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `c` may appear in a v2 bare string (design F.2; this lexer only
/// finds where a run ends, the core's `is_bare_string` decides what the
/// writer writes bare): not `"` `\\` `,` `/` `:` `[` `]` `{` `}` `~`, not a
/// control character, no whitespace but U+0020.
fn is_bare_char(c: char) -> bool {
    !matches!(c, '"' | '\\' | ',' | '/' | ':' | '[' | ']' | '{' | '}' | '~')
        && !c.is_control()
        && (c == ' ' || !c.is_whitespace())
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// End (exclusive) of the string starting with the quote at `i`.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// A key is followed by `:` (member, keyed-table row), `[` (member header
/// `key[N]`) or `{` (v2 member keyed table `key{N}{...}`).
fn key_follows(b: &[u8], end: usize) -> bool {
    let j = skip_ws(b, end);
    j < b.len() && matches!(b[j], b':' | b'[' | b'{')
}

/// If a count `[N]` or `{N}` starts at `i` (a bracket), the end of its digits.
fn count_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let close = if b[i] == b'[' { b']' } else { b'}' };
    let mut j = i + 1;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    if j == i + 1 || j >= b.len() || b[j] != close {
        return None;
    }
    // `[N]` is a header count only before `:` or `{`; `{N}` only before `{`
    // (a JSON array `[1]` is followed by `,`, `]`, `}` or the end).
    let k = skip_ws(b, j + 1);
    let next = b.get(k).copied();
    let header = if close == b']' { matches!(next, Some(b':') | Some(b'{')) } else { next == Some(b'{') };
    header.then_some((i + 1, j))
}

/// The class of every byte of an STC text.
pub fn classify(text: &str) -> Vec<Class> {
    let b = text.as_bytes();
    let mut classes = vec![Class::Punct; b.len()];
    // Depth of braces inside a header's column list (0: not in a header).
    let mut header = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                let end = string_end(b, i);
                let class = if header > 0 {
                    Class::HeaderKey
                } else if key_follows(b, end) {
                    Class::Key
                } else {
                    Class::Value
                };
                classes[i..end].fill(class);
                i = end;
            }
            b'[' | b'{' if header == 0 => {
                if let Some((start, end)) = count_at(b, i) {
                    classes[start..end].fill(Class::Count);
                    // After the closing bracket, a `{` opens the column list.
                    let k = skip_ws(b, end + 1);
                    if b.get(k) == Some(&b'{') {
                        header = 1;
                        i = k + 1;
                    } else {
                        i = end + 1;
                    }
                } else {
                    i += 1;
                }
            }
            b'{' => {
                header += 1;
                i += 1;
            }
            b'}' if header > 0 => {
                header -= 1;
                i += 1;
            }
            b'-' | b'0'..=b'9' if header == 0 => {
                let mut j = i + 1;
                while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    j += 1;
                }
                classes[i..j].fill(Class::Value);
                i = j;
            }
            _ if header > 0 && is_ident_start(c) => {
                let mut j = i + 1;
                while j < b.len() && is_ident_continue(b[j]) {
                    j += 1;
                }
                classes[i..j].fill(Class::HeaderKey);
                i = j;
            }
            // An identifier key, a literal, or (v2) a bare string: the run of
            // characters a bare string may hold, without trailing spaces. A
            // run followed by `:`, `[` or `{` is a key (identifier keys and
            // keyed-table row keys), anything else a value.
            _ if c != b' ' && text.get(i..).and_then(|t| t.chars().next()).is_some_and(is_bare_char) => {
                let mut j = i;
                for ch in text[i..].chars() {
                    if !is_bare_char(ch) {
                        break;
                    }
                    j += ch.len_utf8();
                }
                while j > i + 1 && b[j - 1] == b' ' {
                    j -= 1;
                }
                let class = if key_follows(b, j) { Class::Key } else { Class::Value };
                classes[i..j].fill(class);
                i = j;
            }
            _ => i += 1,
        }
    }
    classes
}

/// Number of maximal runs of value bytes: the number of values found.
pub fn value_runs(classes: &[Class]) -> usize {
    let mut runs = 0;
    let mut prev = Class::Punct;
    for &c in classes {
        if c == Class::Value && prev != Class::Value {
            runs += 1;
        }
        prev = c;
    }
    runs
}

/// Tokens of `text` under `tokenizer`, shared among the byte classes.
pub fn split(text: &str, classes: &[Class], tokenizer: &bpe_openai::Tokenizer) -> Value {
    let ids = tokenizer.encode(text);
    let mut share = [0f64; CLASSES.len()];
    let mut pos = 0usize;
    for &id in &ids {
        let len = tokenizer.bpe.token_len(id);
        let span = &classes[pos.min(classes.len())..(pos + len).min(classes.len())];
        for &c in span {
            let k = CLASSES.iter().position(|(cc, _)| *cc == c).unwrap();
            share[k] += 1.0 / len as f64;
        }
        pos += len;
    }
    assert_eq!(pos, text.len(), "token byte lengths do not add up to the text (normalization?)");
    let mut m = serde_json::Map::new();
    m.insert("tokens".into(), json!(ids.len()));
    for (k, (_, name)) in CLASSES.iter().enumerate() {
        m.insert((*name).into(), json!((share[k] * 1000.0).round() / 1000.0));
    }
    Value::Object(m)
}

/// [`split`] under o200k_base and cl100k_base, plus how many values the
/// classifier found (to be checked against the document's scalars).
pub fn splits(text: &str, classes: &[Class]) -> Value {
    json!({
        "o200k_base": split(text, classes, bpe_openai::o200k_base()),
        "cl100k_base": split(text, classes, bpe_openai::cl100k_base()),
        "values_found": value_runs(classes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        classify(text)
            .iter()
            .map(|c| match c {
                Class::Value => 'v',
                Class::Key => 'k',
                Class::HeaderKey => 'h',
                Class::Count => 'n',
                Class::Punct => '.',
            })
            .collect()
    }

    #[test]
    fn classes() {
        assert_eq!(show(r#"{a:1,"b c":[2]:true,null}"#), ".k.v.kkkkk..n..vvvv.vvvv.");
        assert_eq!(show(r#"[2]{id,u{x}}:1,"a" / 2,~"#), ".n..hh.h.h...v.vvv...v..");
        assert_eq!(show(r#"{e{2}{n}:"1":"A" / "2":-1.5e3}"#), ".k.n..h..kkk.vvv...kkk.vvvvvv.");
        assert_eq!(show(r#"[[1],[-2]]"#), "..v...vv..");
        // v2 bare strings: values wherever no `:`, `[` or `{` follows; trailing spaces are punctuation.
        assert_eq!(show("{a: x y, t[2]{k}:\n  é /\n  true,b:1}"), ".k..vvv..k.n..h.....vv.....vvvv.k.v.");
        assert_eq!(show("{2}{n}:r1:ada/r2:\"~\""), ".n..h..kk.vvv.kk.vvv");
        let (t, c, n) = floor(r#"{"a":[1,"x",{"b":null}],"c":{}}"#);
        assert_eq!((t.as_str(), n, value_runs(&c)), (r#"1,"x",null"#, 3, 3));
    }
}
