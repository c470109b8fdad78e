//! A table-free estimate of o200k_base token counts.
//!
//! It splits the text the way o200k_base's pre-tokenizer does, closely
//! enough for JSON and STC: words (an upper-case run then a lower-case run,
//! optionally led by one space or punctuation character), digit groups of up
//! to three, punctuation runs (optionally led by a space, taking trailing
//! newlines), whitespace runs (whose last space joins the next word or
//! punctuation run) and non-ASCII runs. Each piece is charged a typical
//! number of BPE tokens. One pass over the bytes, no allocation, no tables.
//!
//! The constants were fitted by `bench/calibrate.py` against the exact
//! tokenizer on the benchmark documents (minified and pretty JSON, STC compact
//! and readable); `bench/REPORT.md` records the error per document and its
//! mean absolute percentage error. The gate's default margin absorbs it.

/// Estimated o200k_base tokens of `text`.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let b = text.as_bytes();
    // In half tokens, so that a prefix can cost half a token.
    let mut halves = 0usize;
    let mut i = 0;
    while i < b.len() {
        i = piece(b, i, &mut halves);
    }
    halves.div_ceil(2)
}

/// The estimate of a text given in parts, in half tokens: [`Partial::feed`]
/// the text so far, keep the unread tail it leaves, append more, and
/// [`Partial::finish`] the whole. The result is exactly
/// `estimate_tokens` of the concatenation (a piece is charged only once the
/// byte after it is known), while the text held stays one piece long.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Partial {
    halves: usize,
}

impl Partial {
    /// Charges every piece of `text` that ends before its last byte and
    /// returns how many bytes were read; the rest must be kept (and more
    /// text appended to it) for the next call or [`finish`](Self::finish).
    pub(crate) fn feed(&mut self, text: &str) -> usize {
        let b = text.as_bytes();
        let mut i = 0;
        loop {
            let mut halves = 0;
            let next = piece(b, i, &mut halves);
            // A piece reaching the end might continue in the next part; one
            // ending earlier ended on a byte that is already there.
            if next >= b.len() {
                return i;
            }
            self.halves += halves;
            i = next;
        }
    }

    /// Estimated tokens of everything fed plus `rest` (the unread tail).
    pub(crate) fn finish(self, rest: &str) -> usize {
        let b = rest.as_bytes();
        let mut halves = self.halves;
        let mut i = 0;
        while i < b.len() {
            i = piece(b, i, &mut halves);
        }
        halves.div_ceil(2)
    }
}

impl Partial {
    /// Whether nothing has been charged yet (every piece costs at least a
    /// half token, so nothing has been read either).
    pub(crate) fn is_empty(&self) -> bool {
        self.halves == 0
    }
}

/// How far into the body [`two_heads`] looks for the place where its two
/// texts split the body alike.
const SYNC_WINDOW: usize = 64;

/// Estimated tokens of `text + close` and of `head + body`, where `text` is
/// `open + body` (`open` its first `open_len` bytes), with one pass over the
/// body for both: a piece is decided by its own bytes and the one after it,
/// so from the first place within the body where both texts end a piece,
/// they split into the same pieces up to the body's last one; the texts
/// differ only in the pieces before that place and around the end. The
/// second is `None` (price it whole) when that place is not within the
/// first [`SYNC_WINDOW`] bytes of the body, or comes after its last piece.
/// Exactly `estimate_tokens` of both texts otherwise (test
/// `two_heads_estimate_as_both_texts`).
pub(crate) fn two_heads(text: &str, open_len: usize, close: &[u8], head: &[u8]) -> (usize, Option<usize>) {
    let b = text.as_bytes();
    // The first text: every piece but the last, remembering where pieces
    // end within the window (body offset, halves so far).
    let mut marks = [(0usize, 0usize); SYNC_WINDOW + 1];
    let mut count = 0;
    let (mut i, mut halves) = (0, 0);
    let (read, charged) = loop {
        if i >= b.len() {
            break (i, halves);
        }
        let mut h = 0;
        let next = piece(b, i, &mut h);
        if next >= b.len() {
            break (i, halves);
        }
        halves += h;
        i = next;
        if i >= open_len && i - open_len <= SYNC_WINDOW {
            marks[count] = (i - open_len, halves);
            count += 1;
        }
    };
    // The last piece, then `close`, and without it.
    let last = &b[read..];
    let with_close = {
        let mut buf = [0u8; 2 * SYNC_WINDOW];
        let n = last.len() + close.len();
        if n <= buf.len() {
            buf[..last.len()].copy_from_slice(last);
            buf[last.len()..n].copy_from_slice(close);
            whole_halves(&buf[..n])
        } else {
            whole_halves(&[last, close].concat())
        }
    };
    let first = (charged + with_close).div_ceil(2);
    // The second text's head, up to the first place both texts end a piece.
    let body = &b[open_len.min(b.len())..];
    let mut buf = [0u8; 2 * SYNC_WINDOW];
    let take = body.len().min(SYNC_WINDOW);
    if head.len() + take > buf.len() {
        return (first, None);
    }
    buf[..head.len()].copy_from_slice(head);
    buf[head.len()..head.len() + take].copy_from_slice(&body[..take]);
    let hb = &buf[..head.len() + take];
    let (mut j, mut head_halves, mut m) = (0, 0, 0);
    while j < hb.len() {
        let mut h = 0;
        let next = piece(hb, j, &mut h);
        if next >= hb.len() {
            break;
        }
        head_halves += h;
        j = next;
        if j < head.len() {
            continue;
        }
        let at = j - head.len();
        while m < count && marks[m].0 < at {
            m += 1;
        }
        if m < count && marks[m].0 == at && open_len + at <= read {
            let second = head_halves + (charged - marks[m].1) + whole_halves(last);
            return (first, Some(second.div_ceil(2)));
        }
    }
    (first, None)
}

/// Half tokens of all of `b`.
fn whole_halves(b: &[u8]) -> usize {
    let (mut i, mut halves) = (0, 0);
    while i < b.len() {
        i = piece(b, i, &mut halves);
    }
    halves
}

/// Charges the piece of `b` starting at `i` to `halves` and returns where
/// the next piece starts. Each piece is decided by its own bytes and the
/// one after it, never by what came before. Byte kinds come from one table
/// ([`CLASS`]); the reference form of these rules is the test's
/// `piece_by_predicates`, which it must match on every text.
#[inline(always)]
fn piece(b: &[u8], mut i: usize, halves: &mut usize) -> usize {
    let n = b.len();
    let class = |i: usize| b.get(i).map_or(0, |&x| CLASS[usize::from(x)]);
    let c = b[i];
    let k = CLASS[usize::from(c)];
    let next = class(i + 1);
    if k & ALPHA != 0 || (k & PREFIX != 0 && next & ALPHA != 0) {
        if k & ALPHA == 0 {
            // A leading space is free; punctuation merges with the word only sometimes.
            if k & PUNCT != 0 {
                *halves += PREFIX_HALVES;
            }
            i += 1;
        }
        let start = i;
        while i < n && class(i) & UPPER != 0 {
            i += 1;
        }
        let upper = i - start;
        while i < n && class(i) & LOWER != 0 {
            i += 1;
        }
        let len = i - start;
        let per_token = if upper == len && len > 1 { CAPS_PER_TOKEN } else { LETTERS_PER_TOKEN };
        *halves += 2 * len.div_ceil(per_token);
    } else if k & DIGIT != 0 {
        let start = i;
        while i < n && class(i) & DIGIT != 0 {
            i += 1;
        }
        *halves += 2 * (i - start).div_ceil(3);
    } else if k & PUNCT != 0 || (c == b' ' && next & PUNCT != 0) {
        if c == b' ' {
            i += 1;
        }
        let start = i;
        let (mut quote, mut slash) = (false, false);
        while let Some(&x) = b.get(i) {
            if CLASS[usize::from(x)] & PUNCT == 0 {
                break;
            }
            quote |= x == b'"';
            slash |= x == b'/';
            i += 1;
        }
        // Runs holding a quote (JSON's `":"`, `","`, `":{"`) merge more; a
        // quote and a slash (STC's row separator `"/"`, a URL ending a
        // string) merge less.
        let per_token = if quote { QUOTED_PUNCT_PER_TOKEN } else { PUNCT_PER_TOKEN };
        *halves += 2 * (i - start).div_ceil(per_token);
        if quote && slash {
            *halves += 2;
        }
        while i < n && (b[i] == b'\n' || b[i] == b'\r') {
            i += 1;
        }
    } else if k & SPACE != 0 {
        let start = i;
        while i < n && class(i) & SPACE != 0 {
            i += 1;
        }
        let after = b.get(i).copied();
        if i - start > 1 && b[i - 1] == b' ' && after.is_some_and(|x| !x.is_ascii_whitespace() && !x.is_ascii_digit()) {
            // The last space goes with what follows.
            i -= 1;
            *halves += 2;
        } else if i - start > 1 && after.is_some_and(|x| x.is_ascii_digit()) {
            // Digits take no leading space: the run splits in two.
            *halves += 4;
        } else {
            *halves += 2;
        }
    } else {
        let start = i;
        while i < n && b[i] >= 0x80 {
            i += 1;
        }
        *halves += 2 * (i - start).div_ceil(NON_ASCII_BYTES_PER_TOKEN);
    }
    i
}

/// Byte kinds of [`CLASS`].
const UPPER: u8 = 1;
const LOWER: u8 = 2;
const ALPHA: u8 = UPPER | LOWER;
const DIGIT: u8 = 4;
/// ASCII punctuation and control characters (not letters, digits or whitespace).
const PUNCT: u8 = 8;
/// ASCII whitespace (`u8::is_ascii_whitespace`).
const SPACE: u8 = 16;
/// A character that can lead a word: space, tab or punctuation.
const PREFIX: u8 = 32;

/// The kinds of each byte (bytes from 0x80 up: none).
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 0x80 {
        let b = c as u8;
        t[c] = if b.is_ascii_uppercase() {
            UPPER
        } else if b.is_ascii_lowercase() {
            LOWER
        } else if b.is_ascii_digit() {
            DIGIT
        } else if b.is_ascii_whitespace() {
            SPACE
        } else {
            PUNCT | PREFIX
        };
        if b == b' ' || b == b'\t' {
            t[c] |= PREFIX;
        }
        c += 1;
    }
    t
};

const LETTERS_PER_TOKEN: usize = 10;
const CAPS_PER_TOKEN: usize = 2;
const PUNCT_PER_TOKEN: usize = 2;
const QUOTED_PUNCT_PER_TOKEN: usize = 4;
const NON_ASCII_BYTES_PER_TOKEN: usize = 6;
const PREFIX_HALVES: usize = 1;

#[cfg(test)]
mod tests {
    use super::{estimate_tokens, piece, Partial};
    use super::{CAPS_PER_TOKEN, LETTERS_PER_TOKEN, NON_ASCII_BYTES_PER_TOKEN, PREFIX_HALVES};
    use super::{PUNCT_PER_TOKEN, QUOTED_PUNCT_PER_TOKEN};

    /// The estimator's piece rules as they were written first, one predicate
    /// per byte kind: `piece` (table-driven) must charge and split exactly so.
    fn piece_by_predicates(b: &[u8], mut i: usize, halves: &mut usize) -> usize {
        let n = b.len();
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c.is_ascii_alphabetic() || (is_prefix(c) && next.is_some_and(|x| x.is_ascii_alphabetic())) {
            if !c.is_ascii_alphabetic() {
                // A leading space is free; punctuation merges with the word only sometimes.
                if c != b' ' && c != b'\t' {
                    *halves += PREFIX_HALVES;
                }
                i += 1;
            }
            let start = i;
            while i < n && b[i].is_ascii_uppercase() {
                i += 1;
            }
            let upper = i - start;
            while i < n && b[i].is_ascii_lowercase() {
                i += 1;
            }
            let len = i - start;
            let per_token = if upper == len && len > 1 { CAPS_PER_TOKEN } else { LETTERS_PER_TOKEN };
            *halves += 2 * len.div_ceil(per_token);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < n && b[i].is_ascii_digit() {
                i += 1;
            }
            *halves += 2 * (i - start).div_ceil(3);
        } else if is_punct(c) || (c == b' ' && next.is_some_and(is_punct)) {
            if c == b' ' {
                i += 1;
            }
            let start = i;
            let (mut quote, mut slash) = (false, false);
            while i < n && is_punct(b[i]) {
                quote |= b[i] == b'"';
                slash |= b[i] == b'/';
                i += 1;
            }
            // Runs holding a quote (JSON's `":"`, `","`, `":{"`) merge more; a
            // quote and a slash (STC's row separator `"/"`, a URL ending a
            // string) merge less.
            let per_token = if quote { QUOTED_PUNCT_PER_TOKEN } else { PUNCT_PER_TOKEN };
            *halves += 2 * (i - start).div_ceil(per_token);
            if quote && slash {
                *halves += 2;
            }
            while i < n && (b[i] == b'\n' || b[i] == b'\r') {
                i += 1;
            }
        } else if c.is_ascii_whitespace() {
            let start = i;
            while i < n && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let after = b.get(i).copied();
            if i - start > 1
                && b[i - 1] == b' '
                && after.is_some_and(|x| !x.is_ascii_whitespace() && !x.is_ascii_digit())
            {
                // The last space goes with what follows.
                i -= 1;
                *halves += 2;
            } else if i - start > 1 && after.is_some_and(|x| x.is_ascii_digit()) {
                // Digits take no leading space: the run splits in two.
                *halves += 4;
            } else {
                *halves += 2;
            }
        } else {
            let start = i;
            while i < n && b[i] >= 0x80 {
                i += 1;
            }
            *halves += 2 * (i - start).div_ceil(NON_ASCII_BYTES_PER_TOKEN);
        }
        i
    }

    /// ASCII punctuation and control characters (not letters, digits or whitespace).
    fn is_punct(c: u8) -> bool {
        c < 0x80 && !c.is_ascii_alphanumeric() && !c.is_ascii_whitespace()
    }

    /// A character that can lead a word: space, tab or punctuation.
    fn is_prefix(c: u8) -> bool {
        c == b' ' || c == b'\t' || is_punct(c)
    }

    /// `two_heads` gives exactly the estimates of both texts, or declines:
    /// bodies of random pieces (values, stand-ins, separators, long digit
    /// runs and words), each with `[`/`]` against `[N]:`, and with `{`/`}`.
    #[test]
    fn two_heads_estimate_as_both_texts() {
        let parts = [
            "0",
            ",",
            "\"a\"",
            "\"x\"",
            "x",
            "12",
            "-3.5e7",
            "true",
            "null",
            "ab cd",
            "\"/\"",
            "~",
            "/",
            ":",
            "[",
            "]",
            "{",
            "}",
            " ",
            "\u{e9}t\u{e9}",
            "1234567890123456789012345678901234567890",
            "A",
            "ABC",
            "Ab",
            "\"\"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let (mut answered, mut declined) = (0, 0);
        for len in 0..3000 {
            let mut body = String::new();
            for _ in 0..1 + len % 50 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                body.push_str(parts[(seed % parts.len() as u64) as usize]);
            }
            for (open, close, head) in [("[", "]", "[12]:"), ("[", "]", "[3]:"), ("{", "}", "x{"), ("[", "", "[1234]:")]
            {
                let text = format!("{open}{body}");
                let (first, second) = super::two_heads(&text, open.len(), close.as_bytes(), head.as_bytes());
                assert_eq!(first, estimate_tokens(&format!("{text}{close}")), "{text:?}");
                match second {
                    Some(second) => {
                        assert_eq!(second, estimate_tokens(&format!("{head}{body}")), "{head}{body:?}");
                        answered += 1;
                    }
                    None => declined += 1,
                }
            }
        }
        assert!(answered > 10 * declined, "{answered} answered, {declined} declined");
    }

    /// The table-driven `piece` splits and charges every text exactly as the
    /// predicates do: texts of random bytes from every kind (all ASCII bytes,
    /// multi-byte characters), and every document of the shared corpus.
    #[test]
    fn table_driven_pieces_match_the_predicates() {
        let pieces = |text: &str, f: fn(&[u8], usize, &mut usize) -> usize| {
            let (b, mut i, mut out) = (text.as_bytes(), 0, Vec::new());
            while i < b.len() {
                let mut halves = 0;
                i = f(b, i, &mut halves);
                out.push((i, halves));
            }
            out
        };
        let mut alphabet: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        alphabet.extend(
            ["\u{e9}", "\u{65e5}", "\u{1f600}", "  ", "\n  ", "Ab", "ABC", "abc", "123", "\",\"", "\"/\""]
                .map(String::from),
        );
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut texts = Vec::new();
        for len in 0..2000 {
            let mut text = String::new();
            for _ in 0..len % 40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(&alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            texts.push(text);
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                if let Ok(text) = std::fs::read_to_string(e.path()) {
                    texts.push(text);
                }
            }
        }
        assert!(texts.len() > 2010, "the shared corpus is missing");
        for text in &texts {
            assert_eq!(pieces(text, piece), pieces(text, piece_by_predicates), "{text:?}");
        }
    }

    /// Fed in parts of every size, kept tails included, the estimate is
    /// exactly the whole text's, on texts mixing every kind of piece.
    #[test]
    fn parts_estimate_as_the_whole() {
        let texts = [
            r#"[3]{id,name,tags}:1,"Ada Lovelace",[a,b]/2,Bob,"x/y"/3,~,"  "  "#,
            "{\"key\": \"caf\u{e9} \u{65e5}\u{672c}\",\n    \"n\": [1, 22, 333, 4444],\r\n  \"URL\": \"http://x.io/a\"}",
            "  \t 12 ABCdef   x,,,\"\"\"//\n\n\u{1f600}\u{1f600}z   9",
        ];
        for text in texts {
            let whole = estimate_tokens(text);
            for step in 1..text.len() {
                let (mut partial, mut held, mut at) = (Partial::default(), String::new(), 0);
                while at < text.len() {
                    let mut to = (at + step).min(text.len());
                    while !text.is_char_boundary(to) {
                        to += 1;
                    }
                    held.push_str(&text[at..to]);
                    at = to;
                    let read = partial.feed(&held);
                    held.drain(..read);
                }
                assert_eq!(partial.finish(&held), whole, "{text:?} in parts of {step}");
            }
        }
    }

    #[test]
    fn rough_shape() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello"), 1);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("123456"), 2);
        // `{"` `a` `":` `1` `}`
        assert_eq!(estimate_tokens(r#"{"a":1}"#), 5);
        // `{a` (half a token for the brace) `:` `1` `}`
        assert_eq!(estimate_tokens("{a:1}"), 5);
        // `[\n` `   ` ` ` `1` `\n` `]`: indentation before a digit splits in two.
        assert_eq!(estimate_tokens("[\n    1\n]"), 6);
        assert_eq!(estimate_tokens("  \"key\": \"caf\u{e9}\""), 8);
        // `1` `,"` `a` `"/"` (two tokens) `2` `","` `b` `"`
        assert_eq!(estimate_tokens(r#"1,"a"/"2","b""#), 9);
    }
}
