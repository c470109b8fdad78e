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
    let n = b.len();
    let mut i = 0;
    // In half tokens, so that a prefix can cost half a token.
    let mut halves = 0usize;
    while i < n {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c.is_ascii_alphabetic() || (is_prefix(c) && next.is_some_and(|x| x.is_ascii_alphabetic())) {
            if !c.is_ascii_alphabetic() {
                // A leading space is free; punctuation merges with the word only sometimes.
                if c != b' ' && c != b'\t' {
                    halves += PREFIX_HALVES;
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
            halves += 2 * len.div_ceil(per_token);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < n && b[i].is_ascii_digit() {
                i += 1;
            }
            halves += 2 * (i - start).div_ceil(3);
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
            halves += 2 * (i - start).div_ceil(per_token);
            if quote && slash {
                halves += 2;
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
                halves += 2;
            } else if i - start > 1 && after.is_some_and(|x| x.is_ascii_digit()) {
                // Digits take no leading space: the run splits in two.
                halves += 4;
            } else {
                halves += 2;
            }
        } else {
            let start = i;
            while i < n && b[i] >= 0x80 {
                i += 1;
            }
            halves += 2 * (i - start).div_ceil(NON_ASCII_BYTES_PER_TOKEN);
        }
    }
    halves.div_ceil(2)
}

/// ASCII punctuation and control characters (not letters, digits or whitespace).
fn is_punct(c: u8) -> bool {
    c < 0x80 && !c.is_ascii_alphanumeric() && !c.is_ascii_whitespace()
}

/// A character that can lead a word: space, tab or punctuation.
fn is_prefix(c: u8) -> bool {
    c == b' ' || c == b'\t' || is_punct(c)
}

const LETTERS_PER_TOKEN: usize = 10;
const CAPS_PER_TOKEN: usize = 2;
const PUNCT_PER_TOKEN: usize = 2;
const QUOTED_PUNCT_PER_TOKEN: usize = 4;
const NON_ASCII_BYTES_PER_TOKEN: usize = 6;
const PREFIX_HALVES: usize = 1;

#[cfg(test)]
mod tests {
    use super::estimate_tokens;

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
