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
pub fn estimate_tokens(text: &str) -> usize {
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
    #[inline(never)]
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
#[inline(never)]
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

/// A run of punctuation bytes as the estimator charges it: one piece (or,
/// one byte long and followed by a letter, the prefix of a word).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Run {
    len: u32,
    quote: bool,
    slash: bool,
    /// A space comes right before the run (the run's piece starts there, so
    /// a one-byte run then never leads a word).
    spaced: bool,
}

impl Run {
    /// The run of the punctuation bytes `b`.
    fn of(b: &[u8]) -> Run {
        let mut run = Run::default();
        for &x in b {
            run.quote |= x == b'"';
            run.slash |= x == b'/';
        }
        run.len = u32::try_from(b.len()).unwrap_or(u32::MAX);
        run
    }

    /// `self` followed directly by `next`.
    fn then(self, next: Run) -> Run {
        Run {
            len: self.len.saturating_add(next.len),
            quote: self.quote | next.quote,
            slash: self.slash | next.slash,
            spaced: self.spaced,
        }
    }

    /// Half tokens of the run's piece, `alpha` when a letter follows it.
    fn halves(self, alpha: bool) -> usize {
        if self.len == 0 {
            return 0;
        }
        if self.len == 1 && !self.spaced && alpha {
            return PREFIX_HALVES;
        }
        let per_token = if self.quote { QUOTED_PUNCT_PER_TOKEN } else { PUNCT_PER_TOKEN };
        2 * (self.len as usize).div_ceil(per_token) + if self.quote && self.slash { 2 } else { 0 }
    }
}

/// What the estimator needs of a text to price it inside a longer one
/// without reading it again: every piece of a text is decided by its own
/// bytes and the one after it, and the only pieces that cross from one text
/// into the next are punctuation runs (a separator merges with a quote, a
/// sign, or a space before it) and a one-byte run leading a word. So a text
/// is its leading punctuation run, the half tokens of what lies between
/// (`inner`, charged as if punctuation followed), and its trailing run; texts
/// joined by punctuation separators are priced from these alone ([`Chain`]),
/// exactly as [`estimate_tokens`] prices the joined text (test
/// `chained_shapes_estimate_as_the_joined_text`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    inner: u32,
    lead: Run,
    trail: Run,
    /// The text holds a byte that is not punctuation (else it is all `lead`).
    solid: bool,
    /// [`CLASS`] of the byte after the leading run.
    first: u8,
    /// [`CLASS`] of the text's last byte.
    last: u8,
    /// Whether the shape prices the text exactly wherever a [`Chain`] puts
    /// it: false for a text whose inner part starts with a line break (a
    /// punctuation run takes it) or ends with whitespace with no trailing
    /// run (its charge then depends on what follows). No text the planner
    /// prices is either; the planner prices such a text whole.
    exact: bool,
}

impl Shape {
    /// The shape of `text`: one pass over its bytes.
    pub(crate) fn of(text: &[u8]) -> Shape {
        let n = text.len();
        // The leading run.
        let mut lead = Run::default();
        let mut start = 0;
        while let Some(&x) = text.get(start) {
            if CLASS[usize::from(x)] & PUNCT == 0 {
                break;
            }
            lead.quote |= x == b'"';
            lead.slash |= x == b'/';
            start += 1;
        }
        lead.len = u32::try_from(start).unwrap_or(u32::MAX);
        if start == n {
            return Shape { lead, exact: true, ..Shape::default() };
        }
        let first = text[start];
        // The pieces from there on; the last one is the trailing run when it
        // starts with punctuation (or with a space before punctuation: such
        // a piece takes all the punctuation after it, to the end).
        let (mut i, mut halves, mut last, mut last_halves) = (start, 0, start, 0);
        while i < n {
            let mut h = 0;
            last = i;
            i = piece(text, i, &mut h);
            last_halves = h;
            halves += h;
        }
        let mut trail = Run::default();
        let at = usize::from(text[last] == b' ' && last + 1 < n);
        if CLASS[usize::from(text[n - 1])] & PUNCT != 0 && CLASS[usize::from(text[last + at])] & PUNCT != 0 {
            trail = Run::of(&text[last + at..]);
            trail.spaced = at == 1;
            halves -= last_halves;
        }
        Shape {
            inner: u32::try_from(halves).unwrap_or(u32::MAX),
            lead,
            trail,
            solid: true,
            first: CLASS[usize::from(first)],
            last: CLASS[usize::from(text[n - 1])],
            exact: first != b'\n' && first != b'\r' && CLASS[usize::from(text[n - 1])] & SPACE == 0,
        }
    }
}

impl Shape {
    /// The shape of a text of `len` ASCII digits (`len` at least one, a
    /// number's usual lexeme): what [`Shape::of`] finds, one digit piece,
    /// without reading the bytes again.
    #[inline]
    pub(crate) fn digits(len: usize) -> Shape {
        Shape {
            inner: u32::try_from(2 * len.div_ceil(3)).unwrap_or(u32::MAX),
            solid: true,
            first: DIGIT,
            last: DIGIT,
            exact: true,
            ..Shape::default()
        }
    }

    /// Half tokens of the text's inner part: what any [`Chain`] holding the
    /// text charges for it at least (the runs around it only add).
    #[inline]
    pub(crate) fn inner_halves(&self) -> usize {
        self.inner as usize
    }

    /// Whether the text holds a byte that is not punctuation: in a
    /// [`Chain`], the run of punctuation before it ends there, and the one
    /// after it starts there (so each costs at least a half token of its own).
    #[inline]
    pub(crate) fn is_solid(&self) -> bool {
        self.solid
    }

    /// Whether a [`Chain`] prices this text exactly wherever it puts it
    /// after a separator byte.
    #[inline]
    pub(crate) fn is_exact(&self) -> bool {
        self.exact
    }

    /// Whether a [`Chain`] prices `next` pushed right after `self`, with no
    /// separator between, exactly (as it does after a separator byte): both
    /// shapes are exact, and their texts do not meet without punctuation
    /// where the edge bytes could merge ([`breaks`]).
    #[inline]
    pub(crate) fn joins(&self, next: &Shape) -> bool {
        self.exact
            && next.exact
            && !(self.solid
                && self.trail.len == 0
                && next.solid
                && next.lead.len == 0
                && !breaks(self.last, next.first))
    }
}

/// Texts priced one after another from their [`Shape`]s (and punctuation
/// separators given as bytes): [`finish`](Chain::finish) is exactly
/// `estimate_tokens` of the joined text, or `None` where a shape cannot say
/// (an inexact shape, or two texts meeting with no punctuation between).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chain {
    halves: usize,
    /// The punctuation run open at the end so far.
    run: Run,
    /// A solid text ended the chain so far, with no punctuation after it.
    open: bool,
    /// [`CLASS`] of that text's last byte.
    last: u8,
    exact: bool,
}

impl Default for Chain {
    fn default() -> Self {
        Chain { halves: 0, run: Run::default(), open: false, last: 0, exact: true }
    }
}

impl Chain {
    /// Appends one punctuation byte.
    #[inline]
    pub(crate) fn byte(&mut self, sep: u8) {
        self.run.len = self.run.len.saturating_add(1);
        self.run.quote |= sep == b'"';
        self.run.slash |= sep == b'/';
        self.open = false;
    }

    /// Appends a text of this shape.
    #[inline]
    pub(crate) fn push(&mut self, s: &Shape) {
        self.exact &= s.exact;
        if !s.solid {
            if s.lead.len > 0 {
                self.run = self.run.then(s.lead);
                self.open = false;
            }
            return;
        }
        if self.open && s.lead.len == 0 && !breaks(self.last, s.first) {
            // Two texts meeting with no punctuation between: their pieces may merge.
            self.exact = false;
        }
        let run = self.run.then(s.lead);
        self.halves += run.halves(s.first & ALPHA != 0) + s.inner as usize;
        self.run = s.trail;
        self.open = s.trail.len == 0;
        self.last = s.last;
    }

    /// Appends `n` times the separator `sep` and a text of this shape
    /// (exactly as `n` calls of [`byte`](Self::byte) and
    /// [`push`](Self::push)), in a few steps: once a step leaves the chain
    /// as it found it but for its half tokens, every further step adds the
    /// same half tokens (the steps depend on nothing else).
    pub(crate) fn repeat(&mut self, sep: u8, shape: &Shape, n: usize) {
        let mut left = n;
        let mut before: Option<Chain> = None;
        while left > 0 {
            if let Some(b) = before {
                if b.run == self.run && b.open == self.open && b.last == self.last && b.exact == self.exact {
                    let step = self.halves - b.halves;
                    self.halves = self.halves.saturating_add(step.saturating_mul(left));
                    return;
                }
            }
            before = Some(*self);
            self.byte(sep);
            self.push(shape);
            left -= 1;
        }
    }

    /// Estimated tokens of the joined text, `None` when not exact.
    pub(crate) fn finish(self) -> Option<usize> {
        // A text ending with whitespace is never left open at the end
        // (`Shape::exact`), so the last run is followed by nothing.
        let halves = self.halves + self.run.halves(false);
        self.exact.then_some(halves.div_ceil(2))
    }
}

/// Whether a piece always ends between a byte of kind `a` ([`CLASS`]) and
/// one of kind `b` when no punctuation or whitespace is involved: a word
/// stops at a digit or non-ASCII byte, a digit group at a letter or
/// non-ASCII byte, a non-ASCII run at any ASCII byte (and the piece before
/// is decided the same whichever of these follows it).
fn breaks(a: u8, b: u8) -> bool {
    let kind = |c: u8| {
        if c & ALPHA != 0 {
            1
        } else if c & DIGIT != 0 {
            2
        } else if c == 0 {
            3
        } else {
            4
        }
    };
    let (a, b) = (kind(a), kind(b));
    a != b && a != 4 && b != 4
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
    use super::{estimate_tokens, piece, Chain, Partial, Shape};
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

    /// A chain of shapes prices the joined text exactly as `estimate_tokens`
    /// does, whenever it answers: random texts (values, keys, stand-ins and
    /// strings of every kind of byte) joined by random separators, or
    /// directly; it must answer for every chain of texts the planner builds
    /// (values between punctuation separators).
    /// `Chain::repeat` is `n` separators and texts pushed one by one, and
    /// (where the chain answers) the estimate of the repeated text: a few
    /// separator bytes, a text of each kind after a few punctuation runs,
    /// 0 to 40 times.
    #[test]
    fn repeated_shapes_chain_as_pushed_one_by_one() {
        let texts = ["0", "x", "\"x\"", "12", "-3", "null", "~", "\"\"", "Ab", "\u{e9}", "a b", "[3]"];
        // Punctuation only: the chain takes them as separator bytes.
        let starts = ["", "[", "]:", "{", "\"", ",\""];
        let mut checked = 0;
        for text in texts {
            let shape = Shape::of(text.as_bytes());
            for sep in [b',', b'/', b':', b'~', b'"'] {
                for start in starts {
                    for n in 0..40 {
                        let mut base = Chain::default();
                        for &b in start.as_bytes() {
                            base.byte(b);
                        }
                        let (mut one_by_one, mut repeated) = (base, base);
                        let mut joined = start.to_string();
                        for _ in 0..n {
                            one_by_one.byte(sep);
                            one_by_one.push(&shape);
                            joined.push(char::from(sep));
                            joined.push_str(text);
                        }
                        repeated.repeat(sep, &shape, n);
                        assert_eq!(repeated.finish(), one_by_one.finish(), "{start:?} ({sep:?} {text:?}) x {n}");
                        if let Some(tokens) = repeated.finish() {
                            assert_eq!(tokens, estimate_tokens(&joined), "{joined:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn chained_shapes_estimate_as_the_joined_text() {
        // Separated by `|`.
        let texts: Vec<&str> = concat!(
            "0|12|-3.5e7|true|null|\"x\"|x|\"ab cd\"|\"\"|\"/\"|~|\" \"|\"  \"|\"a \"|\" a\"|\"A\"|\"ABC\"|Ab|",
            "\"\u{e9}t\u{e9}\"|\u{65e5}|\"-\"|\"...\"|\"http://x.io/a\"|abc|\"x y\"|\"1 2\"|a\tb|\"a\t\"|\"\ta\"|",
            "\" 12\"|\"  7\"|x{|[3]|{a,b}|\"\\n\"|\"q\\\"\"|1234567890123|\" \u{e9}\"|a.b|x-y|1.5|a:b/c|-a|",
            "\"a\".b|A,B|12 | |a ,|\n|blockIds|\u{e9}|7\u{e9}|\u{e9}x|xY|Xy"
        )
        .split('|')
        .collect();
        let seps = [",", ":", "/", "[", "]", "{", "}", "]:", "}:", ",\"", "~", ""];
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut rand = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut answered, mut declined) = (0, 0);
        for len in 0..20_000 {
            let (mut joined, mut chain, mut planner_like) = (String::new(), Chain::default(), true);
            let mut last_sep = true;
            for n in 0..1 + len % 12 {
                let sep = if n == 0 && rand(3) == 0 { "" } else { seps[rand(seps.len())] };
                if sep.is_empty() && !last_sep {
                    planner_like = false;
                }
                joined.push_str(sep);
                for &b in sep.as_bytes() {
                    chain.byte(b);
                }
                let text = texts[rand(texts.len())];
                // Texts the planner never prices: ending with whitespace, or a line break after the leading run.
                if text.ends_with([' ', '\n']) || text.trim_start_matches(['"', ',', '~']).starts_with('\n') {
                    planner_like = false;
                }
                joined.push_str(text);
                chain.push(&Shape::of(text.as_bytes()));
                last_sep = false;
            }
            if rand(2) == 0 {
                joined.push('}');
                chain.byte(b'}');
            }
            match chain.finish() {
                Some(tokens) => {
                    assert_eq!(tokens, estimate_tokens(&joined), "{joined:?}");
                    answered += 1;
                }
                None => {
                    assert!(!planner_like, "declined {joined:?}");
                    declined += 1;
                }
            }
        }
        assert!(answered > declined, "{answered} answered, {declined} declined");
    }

    /// The table-driven `piece` splits and charges every text exactly as the
    /// predicates do: texts of random bytes from every kind (all ASCII bytes,
    /// multi-byte characters), and every document of the shared corpus.
    #[test]
    fn digit_shapes_are_the_shapes_of_digits() {
        for len in 1..=64 {
            for d in [b'0', b'1', b'7', b'9'] {
                assert_eq!(Shape::digits(len), Shape::of(&vec![d; len]), "{len} of {d}");
            }
        }
    }

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
