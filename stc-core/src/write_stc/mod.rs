//! The STC writer: a [`Document`] as STC text, and the gated variant that
//! falls back to JSON.
//!
//! The encoder is cost-driven (spec section 5): every array and object gets
//! the form whose text is estimated to cost the fewest tokens, decided
//! bottom-up from the children's costs. Candidates, for an array: plain JSON
//! `[a,b]`, compact `[N]: a,b` (items of any kind, nested arrays included),
//! and, for an array of objects, a table `[N]{k1,k2}: cells / cells` whose
//! cells may be any value (nested tables and compact arrays too). Version 2
//! adds column groups (`user{id,name}`), absent cells (`~`) and keyed tables
//! (`{N}{cols}: key:cells / key:cells`) for objects whose values are objects.
//! A candidate's cost is the `estimate` module's count of its text, in which
//! each nested container stands as one token plus its own (already decided)
//! cost; both profiles choose the same structure.
//!
//! Nothing recurses on the input's depth: the plan walks the tape backwards
//! (children before parents), and the writer keeps its own stack of tasks.
//! Column-group inference recurses only on group depth, which is capped.
//!
//! The pipeline, one file each: `plan.rs` decides every container's form,
//! pricing candidate texts with `price.rs` and asking `columns.rs` for a
//! table's column list; `writer.rs` walks the plan and writes; `emit.rs`
//! holds the low-level text pricing and writing share. Here: the public
//! API on [`Document`].

mod columns;
mod emit;
mod plan;
mod price;
#[cfg(test)]
mod tests;
mod writer;

use crate::document::Document;
use crate::gate::{GateError, GateOptions, Gated};
use crate::options::{EncodeOptions, Profile, Techniques, Version};
// What the test oracle shares with the writer (see `crate::__oracle`).
pub use columns::{column_cell, repeated_columns, MAX_ROW_CELLS};
pub use emit::{price_scalar, write_scalar, writes_bare};
pub use price::scalar_array_compact;
use writer::{write, write_to};

impl Document<'_> {
    /// Writes the document as STC version 1 in the given profile.
    /// Infallible: a document always holds exactly one well-formed value.
    ///
    /// ```
    /// use stc_core::{Document, Limits, Profile};
    /// let doc = Document::parse_json(r#"{"tags": ["a", "b"], "n": {"x y": 1}}"#, &Limits::default())?;
    /// assert_eq!(doc.encode(Profile::Readable), r#"{tags: ["a", "b"], n: {"x y": 1}}"#);
    /// assert_eq!(doc.encode(Profile::Compact), r#"{tags:["a","b"],n:{"x y":1}}"#);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode(&self, profile: Profile) -> String {
        write(&self.nodes, profile, Version::V1, Techniques::default())
    }

    /// Writes the document as STC with `options`' profile and version (its
    /// limits applied when the document was read).
    ///
    /// ```
    /// use stc_core::{Document, EncodeOptions, Limits, Version};
    /// let json = r#"[{"id":1,"user":{"id":5,"name":"bob"}},{"id":2,"user":{"id":6,"name":"al"}}]"#;
    /// let doc = Document::parse_json(json, &Limits::default())?;
    /// let v2 = EncodeOptions::default().version(Version::V2);
    /// assert_eq!(doc.encode_with(&v2), "([2]{id,user{id,name}}:1,5,bob/2,6,al)");
    /// assert_eq!(doc.encode_with(&EncodeOptions::default()), r#"([2]{id,user}:1,{id:5,name:"bob"}/2,{id:6,name:"al"})"#);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode_with(&self, options: &EncodeOptions) -> String {
        write(&self.nodes, options.profile, options.version, options.techniques)
    }

    /// How much STC text [`encode_to`](Document::encode_to) gathers before
    /// handing it on (64 KiB): big enough that each piece is one large write,
    /// small enough to stay in the allocator's heap (below glibc's 128 KiB
    /// mmap threshold).
    pub const ENCODE_CHUNK: usize = ENCODE_CHUNK;

    /// [`encode_with`](Document::encode_with), handing the text to `chunk`
    /// piece by piece instead of returning one `String`: every piece but the
    /// last holds at least [`ENCODE_CHUNK`](Document::ENCODE_CHUNK) bytes
    /// (more only when a value ends past that point, e.g. a long string), and
    /// the pieces joined are exactly `encode_with`'s text. The encoder then
    /// holds the document, its decisions and one piece, never the whole
    /// output (`stc encode` writes each piece to standard output).
    /// Stops at the first error `chunk` returns and returns it.
    ///
    /// ```
    /// use stc_core::{Document, EncodeOptions, Limits};
    /// let json = format!("[{}]", vec![r#"{"id":12345,"name":"some name"}"#; 20_000].join(","));
    /// let doc = Document::parse_json(&json, &Limits::default())?;
    /// let options = EncodeOptions::default();
    /// let mut pieces = Vec::new();
    /// doc.encode_to(&options, |piece| {
    ///     pieces.push(piece.to_string());
    ///     Ok::<(), std::convert::Infallible>(())
    /// })
    /// .unwrap();
    /// assert!(pieces.len() > 1 && pieces[0].len() >= Document::ENCODE_CHUNK);
    /// assert_eq!(pieces.concat(), doc.encode_with(&options));
    ///
    /// // The caller's error stops the encoder and comes back as it is.
    /// let mut calls = 0;
    /// let r = doc.encode_to(&options, |_| {
    ///     calls += 1;
    ///     Err("disk full")
    /// });
    /// assert_eq!((r, calls), (Err("disk full"), 1));
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn encode_to<E>(&self, options: &EncodeOptions, mut chunk: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        let mut failed = None;
        let mut spill = |text: &str| match chunk(text) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        };
        let rest = write_to(&self.nodes, options.profile, options.version, options.techniques, Some(&mut spill));
        if let Some(e) = failed {
            return Err(e);
        }
        if rest.is_empty() {
            return Ok(());
        }
        chunk(&rest)
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
    /// assert_eq!((g.chosen, g.text.as_str()), (Chosen::Stc, "([2]{id,ok}:1,true/2,false)"));
    /// assert_eq!((g.json_tokens, g.stc_tokens), (40, 27));
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
        gate.choose_counted(self.encode_with(options), self.to_json(), counter)
    }

    /// [`encode_gated`](Document::encode_gated) with `options`' profile and
    /// version.
    pub fn encode_gated_with(&self, options: &EncodeOptions, gate: &GateOptions) -> Gated {
        gate.choose(self.encode_with(options), self.to_json())
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

/// [`Document::ENCODE_CHUNK`].
const ENCODE_CHUNK: usize = 64 << 10;
