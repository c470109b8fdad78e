//! The STC writer: a [`Document`] as STC text (the encoder rules of the
//! spec, section 5), and the gated variant that falls back to JSON.
//!
//! Unlike the JSON writers this is not a [`Sink`](crate::Sink): choosing
//! between a columnar, a compact and a plain array needs to look at an
//! array's elements first, so it walks the document's tape.

use crate::document::{Document, Node};
use crate::gate::{GateError, GateOptions, Gated};
use crate::identifier::is_identifier;
use crate::options::{EncodeOptions, Profile};

impl Document<'_> {
    /// Writes the document as STC in the given profile. Infallible: a
    /// document always holds exactly one well-formed value.
    ///
    /// ```
    /// use stc_core::{Document, Limits, Profile};
    /// let doc = Document::parse_json(r#"{"tags": ["a", "b"], "n": {"x y": 1}}"#, &Limits::default())?;
    /// assert_eq!(doc.encode(Profile::Readable), r#"{tags[2]: "a","b", n: {"x y": 1}}"#);
    /// assert_eq!(doc.encode(Profile::Compact), r#"{tags[2]:"a","b",n:{"x y":1}}"#);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode(&self, profile: Profile) -> String {
        let style = match profile {
            Profile::Readable => &READABLE,
            Profile::Compact => &COMPACT,
        };
        let mut enc = Encoder { nodes: &self.nodes, out: String::with_capacity(self.nodes.len() * 8), style };
        enc.element(0);
        enc.out
    }

    /// [`encode_gated`](crate::encode_gated) for a document already in
    /// memory: its STC if that saves enough tokens, else its minified JSON.
    ///
    /// ```
    /// use stc_core::{Chosen, Document, GateOptions, Limits, Profile};
    /// let doc = Document::parse_json("[1, 2, 3]", &Limits::default())?;
    /// assert_eq!(doc.encode_gated(Profile::Compact, &GateOptions::default()).chosen, Chosen::Json);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode_gated(&self, profile: Profile, gate: &GateOptions) -> Gated {
        gate.choose(self.encode(profile), self.to_json())
    }

    /// [`encode_gated`](Document::encode_gated) with the caller's token
    /// counter (a `tiktoken` or `gpt-tokenizer` encoder behind a binding, an
    /// exact BPE …) in place of [`GateOptions::tokenizer`], which is ignored.
    /// The counter is called twice, on minified JSON and then on the STC
    /// text; the first error it returns comes back unchanged. Of `options`
    /// only the output settings matter (the document is already read).
    ///
    /// ```
    /// use stc_core::{Chosen, Document, EncodeOptions, GateOptions, Limits};
    /// let doc = Document::parse_json(r#"[{"id":1,"ok":true},{"id":2,"ok":false}]"#, &Limits::default())?;
    /// // Any counter: here one token per byte.
    /// let bytes = |text: &str| Ok::<usize, std::convert::Infallible>(text.len());
    /// let g = doc.encode_gated_with_counter(&EncodeOptions::default(), &GateOptions::default(), bytes).unwrap();
    /// assert_eq!((g.chosen, g.text.as_str()), (Chosen::Stc, "[2]{id,ok}:1,true/2,false"));
    /// assert_eq!((g.json_tokens, g.stc_tokens), (40, 25));
    /// // A failing counter: its error, unchanged.
    /// let err = doc.encode_gated_with_counter(&EncodeOptions::default(), &GateOptions::default(), |_| Err("offline"));
    /// assert_eq!(err, Err("offline"));
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode_gated_with_counter<E>(
        &self,
        options: &EncodeOptions,
        gate: &GateOptions,
        counter: impl FnMut(&str) -> Result<usize, E>,
    ) -> Result<Gated, E> {
        gate.choose_counted(self.encode(options.profile), self.to_json(), counter)
    }
}

/// [`encode_gated`](crate::encode_gated) with the caller's token counter in
/// place of [`GateOptions::tokenizer`] (see
/// [`Document::encode_gated_with_counter`]): how a binding built without the
/// `bpe` tables still gates on exact counts. A refused input is
/// [`GateError::Codec`] (the counter is not called); the counter's first
/// error is [`GateError::Counter`], unchanged.
///
/// ```
/// use stc_core::{encode_gated_with_counter, Chosen, EncodeOptions, GateError, GateOptions};
/// let (options, gate) = (EncodeOptions::default(), GateOptions::default());
/// let words = |text: &str| Ok::<usize, String>(text.split(|c: char| !c.is_alphanumeric()).count());
/// let g = encode_gated_with_counter(r#"{"tags":["a","b","c"]}"#, &options, &gate, words).unwrap();
/// assert_eq!(g.chosen, Chosen::Stc);
/// let err = encode_gated_with_counter("[1,", &options, &gate, words).unwrap_err();
/// assert!(matches!(err, GateError::Codec(e) if e.kind() == stc_core::ErrorKind::UnexpectedEnd));
/// ```
pub fn encode_gated_with_counter<E>(
    json: &str,
    options: &EncodeOptions,
    gate: &GateOptions,
    counter: impl FnMut(&str) -> Result<usize, E>,
) -> Result<Gated, GateError<E>> {
    let doc = Document::parse_json(json, &options.limits).map_err(GateError::Codec)?;
    doc.encode_gated_with_counter(options, gate, counter).map_err(GateError::Counter)
}

/// Separators of one profile.
struct Style {
    /// Between object members and between JSON array elements.
    item: &'static str,
    /// After a key, and after an array header.
    colon: &'static str,
    /// Between columnar rows.
    row: &'static str,
}

const READABLE: Style = Style { item: ", ", colon: ": ", row: " / " };
const COMPACT: Style = Style { item: ",", colon: ":", row: "/" };

struct Encoder<'d, 'a> {
    nodes: &'d [Node<'a>],
    out: String,
    style: &'static Style,
}

impl Encoder<'_, '_> {
    /// Index of the node after the value at `i`.
    #[inline]
    fn skip(&self, i: usize) -> usize {
        match self.nodes.get(i) {
            Some(Node::Array { end, .. } | Node::Object { end, .. }) => *end,
            _ => i + 1,
        }
    }

    /// A value in top-level or array-element position.
    fn element(&mut self, i: usize) -> usize {
        match self.nodes.get(i) {
            Some(&Node::Array { len, end }) => {
                if self.is_columnar(i, len) {
                    self.columnar(i, len);
                } else {
                    self.json_array(i, end);
                }
                end
            }
            Some(&Node::Object { end, .. }) => {
                self.object(i, end);
                end
            }
            _ => {
                self.scalar(i);
                i + 1
            }
        }
    }

    fn scalar(&mut self, i: usize) {
        match self.nodes.get(i) {
            Some(Node::Null) => self.out.push_str("null"),
            Some(Node::Bool(true)) => self.out.push_str("true"),
            Some(Node::Bool(false)) => self.out.push_str("false"),
            Some(Node::Number(n)) => self.out.push_str(n),
            Some(Node::String(s)) => {
                self.out.push('"');
                self.out.push_str(s);
                self.out.push('"');
            }
            // Containers and keys never reach here; write nothing rather than panic.
            _ => {}
        }
    }

    fn key(&mut self, body: &str) {
        if is_identifier(body) {
            self.out.push_str(body);
        } else {
            self.out.push('"');
            self.out.push_str(body);
            self.out.push('"');
        }
    }

    fn json_array(&mut self, i: usize, end: usize) {
        self.out.push('[');
        let mut j = i + 1;
        while j < end {
            if j > i + 1 {
                self.out.push_str(self.style.item);
            }
            j = self.element(j);
        }
        self.out.push(']');
    }

    fn object(&mut self, i: usize, end: usize) {
        self.out.push('{');
        let mut j = i + 1;
        while j < end {
            if j > i + 1 {
                self.out.push_str(self.style.item);
            }
            j = self.member(j);
        }
        self.out.push('}');
    }

    /// A key node at `k` and its value; returns the index after the value.
    fn member(&mut self, k: usize) -> usize {
        if let Some(Node::Key(body)) = self.nodes.get(k) {
            self.key(body);
        }
        let v = k + 1;
        match self.nodes.get(v) {
            Some(&Node::Array { len, end }) if len > 0 => {
                if self.is_columnar(v, len) {
                    self.columnar(v, len);
                } else if self.all_scalars(v, end) {
                    self.compact(v, len);
                } else {
                    self.out.push_str(self.style.colon);
                    self.json_array(v, end);
                }
                end
            }
            _ => {
                self.out.push_str(self.style.colon);
                self.element(v)
            }
        }
    }

    /// Whether every child of the container at `i` (array elements, or
    /// object keys and values) is a string, number, boolean, null or key.
    fn all_scalars(&self, i: usize, end: usize) -> bool {
        self.nodes
            .get(i + 1..end)
            .is_some_and(|children| !children.iter().any(|n| matches!(n, Node::Array { .. } | Node::Object { .. })))
    }

    /// `[N]: a,b,c` (the key, if any, is already written).
    fn compact(&mut self, i: usize, len: usize) {
        self.header_count(len);
        self.out.push_str(self.style.colon);
        for j in 0..len {
            if j > 0 {
                self.out.push(',');
            }
            self.scalar(i + 1 + j);
        }
    }

    fn header_count(&mut self, len: usize) {
        self.out.push('[');
        self.out.push_str(itoa::Buffer::new().format(len));
        self.out.push(']');
    }

    /// Columnar form applies to two or more objects that each have at least
    /// one member, only primitive values, and the very same key sequence.
    fn is_columnar(&self, i: usize, len: usize) -> bool {
        if len < 2 {
            return false;
        }
        let first = i + 1;
        let Some(&Node::Object { len: width, end: first_end }) = self.nodes.get(first) else {
            return false;
        };
        if width == 0 || !self.all_scalars(first, first_end) {
            return false;
        }
        let mut j = first_end;
        for _ in 1..len {
            match self.nodes.get(j) {
                Some(&Node::Object { len: w, end }) if w == width && self.all_scalars(j, end) => {
                    for m in 0..width {
                        if self.nodes.get(j + 1 + 2 * m) != self.nodes.get(first + 1 + 2 * m) {
                            return false;
                        }
                    }
                    j = end;
                }
                _ => return false,
            }
        }
        true
    }

    /// `[N]{k1,k2}: v,v / v,v`.
    fn columnar(&mut self, i: usize, len: usize) {
        self.header_count(len);
        let first = i + 1;
        let width = match self.nodes.get(first) {
            Some(&Node::Object { len, .. }) => len,
            _ => 0,
        };
        self.out.push('{');
        for m in 0..width {
            if m > 0 {
                self.out.push(',');
            }
            if let Some(Node::Key(body)) = self.nodes.get(first + 1 + 2 * m) {
                self.key(body);
            }
        }
        self.out.push('}');
        self.out.push_str(self.style.colon);
        let mut row = first;
        for r in 0..len {
            if r > 0 {
                self.out.push_str(self.style.row);
            }
            for m in 0..width {
                if m > 0 {
                    self.out.push(',');
                }
                self.scalar(row + 2 + 2 * m);
            }
            row = self.skip(row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Chosen;
    use crate::options::Limits;

    const TABLE: &str = r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#;

    #[test]
    fn the_counter_decides_the_choice() {
        let doc = Document::parse_json(TABLE, &Limits::default()).unwrap();
        let (options, gate) = (EncodeOptions::default(), GateOptions::default());
        // The estimate picks STC for this table.
        assert_eq!(doc.encode_gated(Profile::Compact, &gate).chosen, Chosen::Stc);
        // A counter that charges STC's `/` heavily makes JSON the answer; it sees JSON first, then STC.
        let mut seen = Vec::new();
        let slashes = |text: &str| {
            seen.push(text.to_string());
            Ok::<usize, ()>(text.len() + 100 * text.matches('/').count())
        };
        let g = doc.encode_gated_with_counter(&options, &gate, slashes).unwrap();
        assert_eq!(g.chosen, Chosen::Json);
        assert_eq!(g.text, doc.to_json());
        assert_eq!(seen, [doc.to_json(), doc.encode(Profile::Compact)]);
        assert_eq!((g.json_tokens, g.stc_tokens), (seen[0].len(), seen[1].len() + 200));
        // The same counts through the text-level call.
        let g2 = encode_gated_with_counter(TABLE, &options, &gate, |t: &str| {
            Ok::<usize, ()>(t.len() + 100 * t.matches('/').count())
        })
        .unwrap();
        assert_eq!(g2, g);
        // min_saving applies to the counter's numbers: 61 vs 30 bytes saves 51%.
        let bytes = |t: &str| Ok::<usize, ()>(t.len());
        assert_eq!((TABLE.len(), doc.encode(Profile::Compact).len()), (61, 30));
        let strict = GateOptions::default().min_saving(0.55);
        assert_eq!(doc.encode_gated_with_counter(&options, &strict, bytes).unwrap().chosen, Chosen::Json);
        let g = doc.encode_gated_with_counter(&options, &GateOptions::default().min_saving(0.45), bytes).unwrap();
        assert_eq!((g.chosen, g.text), (Chosen::Stc, doc.encode(Profile::Compact)));
    }

    #[test]
    fn a_counter_error_comes_back_unchanged() {
        #[derive(Debug, PartialEq)]
        struct Offline(u32);
        let doc = Document::parse_json(TABLE, &Limits::default()).unwrap();
        let (options, gate) = (EncodeOptions::default(), GateOptions::default());
        assert_eq!(doc.encode_gated_with_counter(&options, &gate, |_| Err(Offline(7))), Err(Offline(7)));
        // Failing on the second call (the STC text) also stops the gate.
        let mut calls = 0;
        let second = |_: &str| {
            calls += 1;
            if calls == 2 {
                Err(Offline(2))
            } else {
                Ok(10)
            }
        };
        assert_eq!(doc.encode_gated_with_counter(&options, &gate, second), Err(Offline(2)));
        match encode_gated_with_counter(TABLE, &options, &gate, |_| Err(Offline(9))) {
            Err(GateError::Counter(Offline(9))) => {}
            other => panic!("{other:?}"),
        }
        // A refused input never reaches the counter.
        let never = |_: &str| -> Result<usize, Offline> { panic!("counted a refused input") };
        match encode_gated_with_counter("[1,]", &options, &gate, never) {
            Err(GateError::Codec(err)) => assert_eq!(err.offset(), Some(3)),
            other => panic!("{other:?}"),
        }
    }
}
