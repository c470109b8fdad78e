//! The low-level text both pricing and writing use: keys, scalars (quoted
//! or bare), counts, column lists, and the two profiles' separators.

use super::columns::*;
use crate::document::{Node, Tape};
use crate::identifier::is_identifier;
use crate::strings::{bare_char_len, is_literal_lookalike, BARE_BYTE};

/// Separators of one profile.
pub(super) struct Style {
    /// Between object members and between JSON array elements.
    pub(super) item: &'static str,
    /// After a key, and after an array header.
    pub(super) colon: &'static str,
    /// Between table rows.
    pub(super) row: &'static str,
    /// Tables one row per line: a line break (and two spaces of indentation
    /// per enclosing table) after the header's `:` and after each row's `/`.
    pub(super) lines: bool,
}

pub(super) const READABLE: Style = Style { item: ", ", colon: ": ", row: " /", lines: true };

pub(super) const COMPACT: Style = Style { item: ",", colon: ":", row: "/", lines: false };

/// Strings longer than this (in bytes) stand in candidate texts as `"x"`:
/// every candidate of a container holds each of its scalars exactly once, so
/// a string's own tokens add the same to all of them and never decide; only
/// its quotes, which merge with the punctuation around them, do. (Costs are
/// therefore of structure plus short scalars, which is all a choice needs.)
pub(super) const LONG_STRING: usize = 16;

pub(super) fn push_key(out: &mut String, body: &str) {
    if is_identifier(body) {
        out.push_str(body);
    } else {
        out.push('"');
        out.push_str(body);
        out.push('"');
    }
}

pub(super) fn push_count(out: &mut String, n: usize) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends a scalar as candidate texts hold it: as it is written (see
/// [`write_scalar`]), except a string longer than `LONG_STRING` bytes,
/// which stands as `"x"` (or `x` when it is written bare).
pub fn price_scalar(out: &mut String, node: Option<Node<'_>>, bare: bool) {
    match node {
        Some(Node::String(s)) if s.len() > LONG_STRING => {
            out.push_str(if bare && writes_bare(s) { "x" } else { "\"x\"" });
        }
        node => write_scalar(out, node, bare),
    }
}

/// Appends a scalar as it is written: `null`, `true`, `false`, a number's
/// lexeme, a string quoted, or (`bare`, version 2) without quotes when it
/// qualifies ([`is_bare_string`](crate::strings::is_bare_string); a stored string is canonically escaped,
/// and one holding an escape never qualifies). Containers and keys write
/// nothing (they never reach here).
pub fn write_scalar(out: &mut String, node: Option<Node<'_>>, bare: bool) {
    match node {
        Some(Node::Null) => out.push_str("null"),
        Some(Node::Bool(true)) => out.push_str("true"),
        Some(Node::Bool(false)) => out.push_str("false"),
        Some(Node::Number(n)) => out.push_str(n),
        Some(Node::String(s)) if bare && writes_bare(s) => out.push_str(s),
        Some(Node::String(s)) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        _ => {}
    }
}

/// Whether version 2 writes the string value `s` bare (spec 5.2): it
/// qualifies ([`is_bare_string`](crate::strings::is_bare_string)) and its first character is ASCII. A
/// string starting with another script's letter saves nothing bare with
/// either OpenAI tokenizer (the Cyrillic names of `random`: the quote merges
/// with the word), while its missing quotes cost the `","` merges around it.
/// In a table row and in an array, `Plan::sandwiched_at` may still quote it.
///
/// Decided on the bytes in one pass (ASCII by `BARE_BYTE`, other
/// characters by `bare_char_len`), without decoding characters: exactly
/// `is_bare_string(s)` with an ASCII first character (test
/// `writes_bare_is_the_rule`).
pub fn writes_bare(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return false;
    };
    if !first.is_ascii_alphabetic() || last == b' ' {
        return false;
    }
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c < 0x80 {
            if !BARE_BYTE[usize::from(c)] {
                return false;
            }
            i += 1;
        } else {
            match bare_char_len(&b[i..]) {
                0 => return false,
                n => i += n,
            }
        }
    }
    !is_literal_lookalike(s)
}

/// Writes a column list `{a,b{c,d}}` (bounded recursion: groups are at most
/// [`MAX_GROUP_DEPTH`] deep).
pub(super) fn push_columns(out: &mut String, nodes: &Tape<'_>, columns: &[Column]) {
    out.push('{');
    for (n, column) in columns.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        push_key(out, nodes.body(column.key));
        if !column.sub.is_empty() {
            push_columns(out, nodes, &column.sub);
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Document, Node};
    use crate::options::Limits;
    use crate::strings::is_bare_string;

    use crate::write_stc::tests::corpus;

    /// The byte-wise `writes_bare` decides exactly as the rule it stands
    /// for (`is_bare_string` with an ASCII first character): on every string
    /// and key of the corpus (as stored, canonically escaped) and on strings
    /// built from every ASCII character and the non-ASCII characters at the
    /// edges of the refused ranges, at the start, inside and at the end.
    #[test]
    fn writes_bare_is_the_rule() {
        let rule = |s: &str| s.as_bytes().first().is_some_and(u8::is_ascii) && is_bare_string(s);
        let mut checked = 0;
        for (name, json) in corpus() {
            let doc = Document::parse_json(&json, &Limits::default()).unwrap();
            for i in 0..doc.nodes.len() {
                if let Some(Node::String(s) | Node::Key(s)) = doc.nodes.get(i) {
                    assert_eq!(writes_bare(s), rule(s), "{name}: {s:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        let mut pieces: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        for c in [
            '\u{7f}',
            '\u{80}',
            '\u{9f}',
            '\u{a0}',
            '\u{a1}',
            '\u{e9}',
            '\u{1680}',
            '\u{1681}',
            '\u{1fff}',
            '\u{2000}',
            '\u{200a}',
            '\u{200b}',
            '\u{2028}',
            '\u{2029}',
            '\u{202f}',
            '\u{205f}',
            '\u{3000}',
            '\u{3001}',
            '\u{65e5}',
            '\u{1f600}',
            '\u{feff}',
            '\u{85}',
        ] {
            pieces.push(c.to_string());
        }
        for word in
            ["true", "False", "NULL", "nan", "Inf", "infinity", "infinit", "-1", "+x", ".5", "9a", "a b", " a", "a "]
        {
            pieces.push(word.to_string());
        }
        for p in &pieces {
            for s in [p.clone(), format!("a{p}"), format!("{p}a"), format!("a{p}b"), format!("{p}{p}")] {
                assert_eq!(writes_bare(&s), rule(&s), "{s:?}");
            }
        }
    }
}
