//! A table-free estimate of o200k_base token counts.
//!
//! It mimics the tokenizer's pre-tokenization (letters, digit groups of up
//! to three, punctuation runs, whitespace) and charges each piece a typical
//! number of BPE tokens. One pass over the bytes, no allocation. Its error
//! against the real tokenizer on the corpus is measured by `bench/` and
//! recorded in the spec; the gate's default margin absorbs it.

/// Estimated o200k_base tokens of `text`.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let b = text.as_bytes();
    let mut i = 0;
    let mut tokens = 0usize;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_alphabetic() {
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            tokens += (i - start).div_ceil(LETTERS_PER_TOKEN);
        } else if c.is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            tokens += (i - start).div_ceil(3);
        } else if c == b' ' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric() || *n >= 0x80) {
            // A single space joins the word that follows it.
            i += 1;
        } else if c.is_ascii_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            tokens += 1;
        } else if c < 0x80 {
            while i < b.len() && b[i] < 0x80 && !b[i].is_ascii_alphanumeric() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            tokens += (i - start).div_ceil(PUNCT_PER_TOKEN);
        } else {
            while i < b.len() && b[i] >= 0x80 {
                i += 1;
            }
            tokens += (i - start).div_ceil(NON_ASCII_BYTES_PER_TOKEN);
        }
    }
    tokens
}

const LETTERS_PER_TOKEN: usize = 6;
const PUNCT_PER_TOKEN: usize = 2;
const NON_ASCII_BYTES_PER_TOKEN: usize = 3;

#[cfg(test)]
mod tests {
    use super::estimate_tokens;

    #[test]
    fn rough_shape() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello"), 1);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("123456"), 2);
        assert!(estimate_tokens(r#"{"a":1}"#) >= 4);
    }
}
