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

use crate::document::{Document, Node, Tape};
use crate::estimate::{estimate_tokens, two_heads, Chain, Partial, Shape};
use crate::gate::{GateError, GateOptions, Gated};
use crate::identifier::is_identifier;
use crate::options::{EncodeOptions, Profile, Techniques, Version};
#[cfg(test)]
use crate::strings::is_bare_string;
use crate::strings::{bare_char_len, is_literal_lookalike, BARE_BYTE};

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

/// Separators of one profile.
struct Style {
    /// Between object members and between JSON array elements.
    item: &'static str,
    /// After a key, and after an array header.
    colon: &'static str,
    /// Between table rows.
    row: &'static str,
    /// Tables one row per line: a line break (and two spaces of indentation
    /// per enclosing table) after the header's `:` and after each row's `/`.
    lines: bool,
}

const READABLE: Style = Style { item: ", ", colon: ": ", row: " /", lines: true };
const COMPACT: Style = Style { item: ",", colon: ":", row: "/", lines: false };

/// Whether a value whose text ends with a table body may be the last cell of
/// a row that is not the last row (`[2]{a}: [1]{c}:2 / 3`). Counts drive
/// reading (spec 4.1, design rule D.1), so a decoder knows that the `/` after
/// the inner table's last declared row belongs to the outer table. Readers
/// before that rule took it for one more inner row; `false` would keep such
/// values out of that position (in a form that ends with `]` or `}`).
const TRAILING_TABLE_CELLS: bool = true;

/// Version 1's old fixed rule for an object member whose value is a
/// non-empty array of scalars: always compact (`tags[2]: "a","b"`). Off: the
/// form is chosen by estimated cost like every other container's, which
/// gives plain JSON (`tags: ["a","b"]`: one merged `:["` against `[`, the
/// count and `]:"`). Measured on the benchmark documents (issue 16, session
/// 4), plain is cheaper on every document that has such arrays, with both
/// OpenAI tokenizers: 2,046 o200k / 2,045 cl100k tokens on the nested class
/// in version 1, none dearer.
const COMPACT_SCALAR_MEMBERS: bool = false;

/// Deepest nesting of column groups (`a{b{c{d}}}`) the v2 encoder writes; the
/// inference recurses on it, so it stays a small constant, independent of the
/// input's depth. Deeper objects are written as cells.
const MAX_GROUP_DEPTH: usize = 4;

/// Strings longer than this (in bytes) stand in candidate texts as `"x"`:
/// every candidate of a container holds each of its scalars exactly once, so
/// a string's own tokens add the same to all of them and never decide; only
/// its quotes, which merge with the punctuation around them, do. (Costs are
/// therefore of structure plus short scalars, which is all a choice needs.)
const LONG_STRING: usize = 16;

/// How much scratch text a candidate may gather before what is complete of
/// it is estimated and dropped (`Plan::spill_scratch`).
const SCRATCH_SPILL: usize = 16 << 10;

/// Most columns a table may have (wider sets of keys stay plain objects).
const MAX_COLUMNS: usize = 256;

/// Most cells a table row may hold through column groups (spec 5.5, 5.8):
/// a column list whose groups would make a row wider keeps some groups'
/// objects in their cells, with their keys ([`narrow`]). The rows' own keys
/// are always columns, so a table without groups may be wider.
///
/// Why 48 (measured with o200k_base, issue 25): Twitter statuses flattened
/// to 114-138 cells a row (65 in `twitter_timeline`), answers 60-100 cells
/// from their column names; 48 keeps every cell within 47 cells of a column
/// name and still flattens the widest semi-uniform table of the benchmark
/// (`instruments`, exactly 48 cells). Cost: the nested class 0.759 to 0.838 of
/// minified JSON (all of it the Twitter documents' `user` and
/// `retweeted_status` objects back in their cells); every other class as
/// before. 32 would cost `instruments` 25 % more; 72 or more keeps the 65-70
/// cell rows (nested 0.797).
pub(crate) const MAX_ROW_CELLS: usize = 48;

/// The number of leaf columns (cells per row) of a column list.
fn leaf_count(columns: &[Column]) -> usize {
    columns.iter().map(|c| if c.sub.is_empty() { 1 } else { leaf_count(&c.sub) }).sum()
}

/// The width rule: while `columns` has more than [`MAX_ROW_CELLS`] leaves
/// and a column group, one group is dissolved (its column holds its objects
/// as cells): the narrowest whose leaves alone bring the row within the
/// width, else the widest (the first of equally wide ones, either way), so
/// that as few cells as the width allows leave their groups.
fn narrow(columns: &mut [Column]) {
    let mut width = leaf_count(columns);
    while width > MAX_ROW_CELLS {
        let groups =
            columns.iter().enumerate().filter(|(_, c)| !c.sub.is_empty()).map(|(n, c)| (leaf_count(&c.sub), n));
        // (leaves, column), the first of equals kept by `min_by_key`/`max_by`.
        let enough = groups.clone().filter(|&(leaves, _)| width - leaves < MAX_ROW_CELLS).min_by_key(|g| g.0);
        let widest = groups.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let Some((leaves, n)) = enough.or(widest) else { break };
        columns[n].sub = Vec::new();
        width = width - leaves + 1;
    }
}

/// The form chosen for a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Form {
    /// `[a,b]` for an array, `{k:v}` for an object.
    #[default]
    Plain,
    /// `[N]: a,b` (arrays only).
    Compact,
    /// `[N]{cols}: rows` for an array of objects, `{N}{cols}: key:cells` (v2)
    /// for an object of objects; the index into `Plan::tables`.
    Table(u32),
}

impl Form {
    /// The form in 4 bytes: 0 plain, 1 compact, 2 + t table `t`.
    fn pack(self) -> u32 {
        match self {
            Form::Plain => 0,
            Form::Compact => 1,
            Form::Table(t) => t.saturating_add(2),
        }
    }

    fn unpack(packed: u32) -> Form {
        match packed {
            0 => Form::Plain,
            1 => Form::Compact,
            t => Form::Table(t - 2),
        }
    }
}

/// A cost as stored in the plan: `u32`, saturating (only a container of more
/// than four billion estimated tokens could reach the cap).
fn stored(cost: usize) -> u32 {
    u32::try_from(cost).unwrap_or(PENDING - 1).min(PENDING - 1)
}

/// The stored cost of a version 2 object that is an array's element and is
/// priced only when first asked for ([`Plan::cost`]), or with its array's
/// table candidate in one pass ([`Plan::price_rows_once`]).
const PENDING: u32 = u32::MAX;

/// A container's best form and its estimated cost, and the best form whose
/// text does not end with a table body ("safe" before a row's `/`), while it
/// is being decided; the plan keeps it packed (see [`Plan`]).
#[derive(Debug, Clone, Copy, Default)]
struct Choice {
    form: Form,
    cost: usize,
    safe: Form,
    safe_cost: usize,
}

/// A column: a key (the tape index of a `Key` node holding it) and, for a v2
/// column group, its sub-columns.
#[derive(Debug, Clone)]
struct Column {
    key: usize,
    sub: Vec<Column>,
}

/// One cell of a row, in leaf-column order.
#[derive(Debug, Clone, Copy)]
enum Cell {
    /// The value at this tape index.
    Value(usize),
    /// `~`: the member is absent (v2).
    Absent,
}

/// The encoder's decisions for one document, in side tables indexed by
/// container ordinal (the rank of a container among the tape's containers,
/// in document order), never by tape index: a scalar or key costs the plan
/// nothing, a container 12 bytes while planning (its tape index as `u32`,
/// its packed form and its cost) and 8 while writing (the costs are dropped
/// once every form is decided). Plus the column lists of the tables chosen.
struct Plan<'d, 'a> {
    nodes: &'d Tape<'a>,
    v2: bool,
    /// The techniques that may be used (all, except in benchmarks).
    t: Techniques,
    /// Version 2 with bare strings: every string value that qualifies
    /// ([`is_bare_string`](crate::strings::is_bare_string)) is written, and priced, without quotes.
    bare: bool,
    /// Version 2 with bare strings: bit `i` (of word `i / 64`) is set when
    /// the node at `i` is a string value that [`writes_bare`]; decided once
    /// per string (a string is looked at by every candidate that holds it
    /// and by the writer, for itself and for its neighbours). One bit a node;
    /// empty otherwise.
    bare_bits: Vec<u64>,
    /// Tape index of every container, ascending.
    /// (`u32`: a tape holds fewer than 2^32 nodes.)
    containers: Vec<u32>,
    /// Packed [`Form`] of each container (by ordinal).
    forms: Vec<u32>,
    /// Estimated cost of each container's best form (by ordinal); emptied
    /// before writing.
    costs: Vec<u32>,
    /// Safe form and cost of each container (by ordinal); only kept when
    /// [`TRAILING_TABLE_CELLS`] is off (otherwise no text needs a safe form).
    safe: Vec<(u32, u32)>,
    /// Ordinal of the container being decided: the containers it prices are
    /// all after it, so ordinal searches start there.
    base: usize,
    /// Ordinal of the container found last.
    hint: usize,
    tables: Vec<Vec<Column>>,
    /// For each table, whether it is dense: no group, and every row has a
    /// member for every column, so its cells are its members in order (read
    /// without comparing keys; see [`dense_cells`]).
    dense: Vec<bool>,
    /// Scratch text whose estimated tokens price a candidate.
    scratch: String,
    /// The scratch text of a pending object priced while a candidate's
    /// text is in [`scratch`](Self::scratch) ([`Plan::price_pending`]).
    pending_scratch: String,
    /// What the scratch text held before its unread tail (see
    /// [`spill_scratch`](Self::spill_scratch)), already estimated.
    partial: Partial,
    /// The shapes of the fixed texts a value can stand as, found once.
    fixed: FixedShapes,
    /// The key shapes of the last table priced by
    /// [`price_rows_once`](Self::price_rows_once).
    column_shapes: ColumnShapes,
}

/// The columns of a table candidate as its prices need them: each key's
/// [`Shape`] (the text `push_key` writes) and the shape of the header after
/// its count (`]{cols}:`), with the key nodes they were found for.
#[derive(Debug, Default)]
struct ColumnShapes {
    keys: Vec<u32>,
    shapes: Vec<Shape>,
    tail: Shape,
}

/// The [`Shape`]s of the texts that stand for a value whatever it holds: a
/// container's stand-in `0`, a long string's `x` and `"x"`, and the three
/// literals ([`Plan::value_shape`] needs them for every such value of every
/// row priced).
#[derive(Debug, Clone, Copy)]
struct FixedShapes {
    stand_in: Shape,
    long_bare: Shape,
    long_quoted: Shape,
    null: Shape,
    yes: Shape,
    no: Shape,
}

impl FixedShapes {
    fn new() -> Self {
        FixedShapes {
            stand_in: Shape::of(b"0"),
            long_bare: Shape::of(b"x"),
            long_quoted: Shape::of(b"\"x\""),
            null: Shape::of(b"null"),
            yes: Shape::of(b"true"),
            no: Shape::of(b"false"),
        }
    }
}

/// The rows of a table candidate, read off the tape as they are priced
/// (no list of them is kept): the elements of an array, or (`keyed`) the
/// members of an object, from the node `first` up to `end`, `len` of them.
#[derive(Debug, Clone, Copy)]
struct Rows {
    first: usize,
    end: usize,
    len: usize,
    keyed: bool,
}

impl Rows {
    /// Each row as `(its key, if keyed; the row object)`.
    fn iter<'t>(self, nodes: &'t Tape<'_>) -> impl Iterator<Item = (Option<usize>, usize)> + 't {
        let mut at = self.first;
        std::iter::from_fn(move || {
            if at >= self.end {
                return None;
            }
            let row = if self.keyed { (Some(at), at + 1) } else { (None, at) };
            at = nodes.skip(row.1);
            Some(row)
        })
    }
}

/// A tape index as `u32` (a tape holds fewer than 2^32 nodes).
fn index32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn push_key(out: &mut String, body: &str) {
    if is_identifier(body) {
        out.push_str(body);
    } else {
        out.push('"');
        out.push_str(body);
        out.push('"');
    }
}

fn push_count(out: &mut String, n: usize) {
    out.push_str(itoa::Buffer::new().format(n));
}

impl<'d, 'a> Plan<'d, 'a> {
    /// Decides every container's form, children before parents: the tape is
    /// in document order, so walking it backwards visits each child before
    /// its container, with no recursion and no stack at all.
    #[inline(never)]
    fn new(nodes: &'d Tape<'a>, v2: bool, t: Techniques) -> Self {
        // A tape holds fewer than 2^32 nodes (see `document::tape`), so every index fits.
        // Room for every node reserved at once and given back after: pages
        // never written are never resident, so the list costs what it holds
        // (a vector growing by doubling would hold up to twice that, copied).
        let mut containers = Vec::with_capacity(nodes.len());
        containers
            .extend((0..nodes.len()).filter(|&i| nodes.is_container(i)).map(|i| u32::try_from(i).unwrap_or(u32::MAX)));
        containers.shrink_to_fit();
        let count = containers.len();
        let mut plan = Plan {
            nodes,
            v2,
            t,
            bare: v2 && t.bare_strings,
            bare_bits: if v2 && t.bare_strings { bare_bits(nodes) } else { Vec::new() },
            containers,
            forms: vec![0; count],
            costs: vec![0; count],
            safe: if TRAILING_TABLE_CELLS { Vec::new() } else { vec![(0, 0); count] },
            base: 0,
            hint: 0,
            tables: Vec::new(),
            dense: Vec::new(),
            scratch: String::new(),
            pending_scratch: String::new(),
            partial: Partial::default(),
            fixed: FixedShapes::new(),
            column_shapes: ColumnShapes::default(),
        };
        for o in (0..count).rev() {
            plan.base = o;
            let i = plan.containers[o] as usize;
            match nodes.get(i) {
                Some(Node::Array { len, end }) => plan.array(o, i, len, end),
                Some(Node::Object { len, end }) => plan.object(o, i, len, end),
                _ => {}
            }
        }
        plan.costs = Vec::new();
        plan
    }

    /// Records the choice for the container of ordinal `o`.
    fn set(&mut self, o: usize, choice: Choice) {
        self.forms[o] = choice.form.pack();
        self.costs[o] = stored(choice.cost);
        if let Some(safe) = self.safe.get_mut(o) {
            *safe = (choice.safe.pack(), stored(choice.safe_cost));
        }
    }

    /// Ordinal of the container at tape index `i` (after the one being
    /// decided), searched from the last one found when that one comes
    /// before it (a container's children are priced in order).
    fn ordinal(&mut self, i: usize) -> usize {
        let from = if self.hint > self.base && self.containers.get(self.hint).is_some_and(|&c| c as usize <= i) {
            self.hint
        } else {
            self.base
        };
        let o = ordinal(&self.containers, from, i);
        self.hint = o;
        o
    }

    /// Decided cost of the container at tape index `i`: its best form's, or
    /// its safe form's.
    fn cost(&mut self, i: usize, safe: bool) -> usize {
        let o = self.ordinal(i);
        if safe && !TRAILING_TABLE_CELLS {
            self.safe.get(o).map_or(0, |s| s.1 as usize)
        } else {
            match self.costs.get(o) {
                Some(&PENDING) => self.price_pending(o, i),
                Some(&c) => c as usize,
                None => 0,
            }
        }
    }

    /// Prices the [`PENDING`] object at `i` (ordinal `o`) as plain and
    /// records it. Its members are never pending (only an array's elements
    /// are), so this never goes deeper than one object. The scratch text may
    /// be in use by the candidate being priced: the object's text is built
    /// in a second one.
    #[cold]
    fn price_pending(&mut self, o: usize, i: usize) -> usize {
        let end = self.skip(i);
        let partial = std::mem::take(&mut self.partial);
        std::mem::swap(&mut self.scratch, &mut self.pending_scratch);
        let cost = self.price_object(i, end);
        std::mem::swap(&mut self.scratch, &mut self.pending_scratch);
        self.partial = partial;
        if let Some(c) = self.costs.get_mut(o) {
            *c = stored(cost);
        }
        cost
    }

    /// Index of the node after the value at `i`.
    #[inline]
    fn skip(&self, i: usize) -> usize {
        self.nodes.skip(i)
    }

    fn is_container(&self, i: usize) -> bool {
        self.nodes.is_container(i)
    }

    /// Appends the value at `i` to the scratch text: a scalar as itself, a
    /// container as the one-token stand-in `0`, returning what the container
    /// costs beyond that stand-in (its best form, or its safe one).
    fn price_value(&mut self, i: usize, safe: bool) -> usize {
        match self.nodes.get(i) {
            Some(Node::Array { .. } | Node::Object { .. }) => {
                self.scratch.push('0');
                self.cost(i, safe).saturating_sub(1)
            }
            Some(Node::String(s)) => {
                let bare = self.bare_at(i);
                match (s.len() > LONG_STRING, bare) {
                    (true, true) => self.scratch.push('x'),
                    (true, false) => self.scratch.push_str("\"x\""),
                    (false, true) => self.scratch.push_str(s),
                    (false, false) => {
                        self.scratch.push('"');
                        self.scratch.push_str(s);
                        self.scratch.push('"');
                    }
                }
                0
            }
            node => {
                write_scalar(&mut self.scratch, node, false);
                0
            }
        }
    }

    /// Whether the node at `i` is a string value written bare when its
    /// position allows ([`writes_bare`], looked up in [`Plan::bare_bits`]).
    #[inline]
    fn bare_at(&self, i: usize) -> bool {
        self.bare_bits.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// [`write_scalar`] of the node at `i`, a string bare when `bare` (its
    /// position allows it) and it qualifies.
    #[inline]
    fn write_scalar_at(&self, out: &mut String, i: usize, bare: bool) {
        match self.nodes.get(i) {
            Some(Node::String(s)) if bare && self.bare_at(i) => out.push_str(s),
            node => write_scalar(out, node, false),
        }
    }

    /// Whether a string value between the values `prev` and `next` (neighbours
    /// in a table row's cells or an array's items; `None` at either end) keeps
    /// its quotes although it qualifies: both neighbours are quoted strings. Its
    /// quotes then merge with theirs (`","x","` as three tokens); bare, the
    /// merges break (`",x,"`): measured a token dearer per such string (spec
    /// 5.2, Appendix B). Neighbours are judged by [`writes_bare`] alone (the
    /// bits), so the rule is decided per string, in one pass, the same by
    /// every writer.
    fn sandwiched_at(&self, prev: Option<usize>, next: Option<usize>) -> bool {
        let quoted = |i: Option<usize>| {
            i.is_some_and(|i| matches!(self.nodes.get(i), Some(Node::String(_))) && !(self.bare && self.bare_at(i)))
        };
        self.bare && quoted(prev) && quoted(next)
    }

    /// Estimated cost of the array at `i` as `[N]:a,b`.
    fn price_compact(&mut self, i: usize, end: usize) -> usize {
        self.scratch.push('[');
        let len = match self.nodes.get(i) {
            Some(Node::Array { len, .. }) => len,
            _ => 0,
        };
        push_count(&mut self.scratch, len);
        self.scratch.push_str("]:");
        let (mut extra, mut j) = (0, i + 1);
        while j < end {
            self.spill_scratch();
            if j > i + 1 {
                self.scratch.push(',');
            }
            extra += self.price_value(j, false);
            j = self.skip(j);
        }
        self.priced(extra)
    }

    /// Estimates the scratch text read so far once it holds [`SCRATCH_SPILL`]
    /// bytes and keeps only its unread tail (one estimator piece): a big
    /// candidate (a table of 100,000 rows) is priced row by row, the same
    /// cost as from one text, without ever holding that text.
    #[inline]
    fn spill_scratch(&mut self) {
        if self.scratch.len() >= SCRATCH_SPILL {
            let read = self.partial.feed(&self.scratch);
            self.scratch.drain(..read);
        }
    }

    /// Estimated tokens of the scratch text (and of what
    /// [`spill_scratch`](Self::spill_scratch) read of it), plus `extra`;
    /// clears the scratch.
    fn priced(&mut self, extra: usize) -> usize {
        let cost = std::mem::take(&mut self.partial).finish(&self.scratch).saturating_add(extra);
        self.scratch.clear();
        cost
    }

    fn array(&mut self, o: usize, i: usize, len: usize, end: usize) {
        if len == 0 {
            self.set(o, Choice { form: Form::Plain, cost: 1, safe: Form::Plain, safe_cost: 1 });
            return;
        }
        let scalars_only = len == end - i - 1 && !(i + 1..end).any(|j| self.nodes.is_container(j));
        if scalars_only {
            // Items all scalars: no table applies; plain or compact by cost
            // (see `scalar_array_compact`). Its cost is not estimated: a
            // container whose form does not depend on its parent adds the
            // same to every candidate of the parent, so only its stand-in's
            // place in the parent's text can decide.
            let compact =
                self.t.compact_arrays && scalar_array_compact(self.nodes, i, len, end, self.bare, &mut self.scratch);
            let form = if compact { Form::Compact } else { Form::Plain };
            self.set(o, Choice { form, cost: 1 + len, safe: form, safe_cost: 1 + len });
            return;
        }
        // A table's columns come first: in version 1, the rows' own costs
        // are only priced for an array that can be a table (see `object`).
        let mut columns = if len < 2 || !self.t.tables { None } else { self.array_columns(i, len, end) };
        // Version 1: each row priced as a table row, and as an object unless
        // the table is sure to win, each value's shape found once
        // (`price_rows_once`).
        let (mut table_once, mut dense) = (None, false);
        if let Some(columns) = &columns {
            // Version 2: when the table is dense (its cells are the rows'
            // members in order).
            dense = self.is_dense(Rows { first: i + 1, end, len, keyed: false }, columns);
            if !self.v2 || dense {
                table_once = self.price_rows_once(i, len, end, columns);
            }
        }
        // The table beats plain and compact whatever they cost (their
        // lower bound): they are not priced (in tests they are, and must lose).
        let sure = matches!(table_once, Some((_, true)));
        if sure && cfg!(not(test)) {
            if let (Some((cost, _)), Some(columns)) = (table_once, columns.take()) {
                let form = Form::Table(self.tables.len() as u32);
                self.tables.push(columns);
                self.dense.push(dense);
                self.set(o, Choice { form, cost, safe: Form::Plain, safe_cost: cost });
                return;
            }
        }
        // Plain: `[a,b]`.
        self.scratch.push('[');
        let mut extra = 0;
        let mut j = i + 1;
        while j < end {
            self.spill_scratch();
            if j > i + 1 {
                self.scratch.push(',');
            }
            extra += self.price_value(j, false);
            j = self.skip(j);
        }
        // Compact: `[N]:a,b`; safe when its last item is written safe. The
        // same items as plain: priced from plain's text when it is all here
        // (`estimate::two_heads`), else built and priced again.
        let (plain, compact) = if self.t.arrays_of_arrays && self.partial.is_empty() {
            let mut digits = itoa::Buffer::new();
            let digits = digits.format(len).as_bytes();
            let count = digits.len();
            let mut head = [0u8; 24];
            head[0] = b'[';
            head[1..1 + count].copy_from_slice(digits);
            head[1 + count..3 + count].copy_from_slice(b"]:");
            let (plain, compact) = two_heads(&self.scratch, 1, b"]", &head[..3 + count]);
            self.scratch.clear();
            let plain = plain.saturating_add(extra);
            match compact {
                Some(compact) => (plain, compact.saturating_add(extra)),
                None => (plain, self.price_compact(i, end)),
            }
        } else {
            self.scratch.push(']');
            let plain = self.priced(extra);
            (plain, if self.t.arrays_of_arrays { self.price_compact(i, end) } else { usize::MAX })
        };
        let mut best = Choice { form: Form::Plain, cost: plain, safe: Form::Plain, safe_cost: plain };
        if compact < best.cost {
            (best.form, best.cost) = (Form::Compact, compact);
        }
        if !TRAILING_TABLE_CELLS {
            let mut last = i + 1;
            while self.skip(last) < end {
                last = self.skip(last);
            }
            let compact_safe = if self.is_container(last) {
                compact - self.cost(last, false) + self.cost(last, true)
            } else {
                compact
            };
            if compact_safe < best.safe_cost {
                (best.safe, best.safe_cost) = (Form::Compact, compact_safe);
            }
        }
        // Table: `[N]{cols}:cells/cells`, never safe. One row saves no key
        // (the tokenizers measured it a token or two dearer than the estimate).
        if let Some(columns) = columns {
            let rows = Rows { first: i + 1, end, len, keyed: false };
            let cost = match table_once.map(|(cost, _)| cost) {
                Some(cost) => {
                    #[cfg(test)]
                    assert_eq!(cost, self.price_table(rows, &columns, dense), "table at {i}");
                    cost
                }
                None => self.price_table(rows, &columns, dense),
            };
            #[cfg(test)]
            assert!(!sure || cost < best.cost, "table at {i} sure to win costs {cost}, plain or compact {}", best.cost);
            if cost < best.cost {
                best.form = Form::Table(self.tables.len() as u32);
                best.cost = cost;
                self.tables.push(columns);
                self.dense.push(dense);
            }
        }
        self.set(o, best);
    }

    fn object(&mut self, o: usize, i: usize, len: usize, end: usize) {
        if !self.v2 {
            // Version 1 writes every object plain, so its own text decides
            // nothing unless its array prices it as a table row, which
            // `array` then does (`price_object`). Elsewhere its own tokens add
            // the same to every candidate of every container around it, so
            // it stands as one token plus what its containers cost beyond
            // their stand-ins: no text is built or estimated for it.
            let (mut cost, mut k) = (1usize, i + 1);
            while k < end {
                if self.is_container(k + 1) {
                    cost = cost.saturating_add(self.cost(k + 1, false).saturating_sub(1));
                }
                k = self.skip(k + 1);
            }
            self.set(o, Choice { form: Form::Plain, cost, safe: Form::Plain, safe_cost: cost });
            return;
        }
        let rows = Rows { first: i + 1, end, len, keyed: true };
        let mut values: Vec<u32> = Vec::new();
        if len > 1 && self.t.keyed_tables && self.members_are_objects(i, end) {
            values.extend(rows.iter(self.nodes).map(|(_, v)| index32(v)));
            // Unrelated member objects stay members (spec 5.8).
            if !self.rows_related(&values, true) {
                values = Vec::new();
            }
        }
        let keyed = !values.is_empty();
        if !keyed && i > 0 && !matches!(self.nodes.get(i - 1), Some(Node::Key(_))) && TRAILING_TABLE_CELLS {
            // An array's element, plain: priced when first asked for, or
            // with its array's table candidate (one pass for both texts).
            self.set(o, Choice::default());
            self.costs[o] = PENDING;
            return;
        }
        let plain = self.price_object(i, end);
        let mut best = Choice { form: Form::Plain, cost: plain, safe: Form::Plain, safe_cost: plain };
        // Keyed table (v2): `{N}{cols}:key:cells/key:cells`.
        if keyed {
            if let Some(columns) = self.infer(&values, 0) {
                drop(values);
                let dense = self.is_dense(rows, &columns);
                let cost = self.price_table(rows, &columns, dense);
                if cost < best.cost {
                    best.form = Form::Table(self.tables.len() as u32);
                    best.cost = cost;
                    self.tables.push(columns);
                    self.dense.push(dense);
                }
            }
        }
        self.set(o, best);
    }

    /// The shape of the value at `i` as candidate texts hold it (the text
    /// [`price_value`](Self::price_value) appends), and what a container
    /// costs beyond its stand-in.
    #[inline(always)]
    fn value_shape(&mut self, i: usize) -> (Shape, usize) {
        match self.nodes.get(i) {
            Some(Node::Array { .. } | Node::Object { .. }) => {
                let more = self.cost(i, false).saturating_sub(1);
                (self.fixed.stand_in, more)
            }
            Some(Node::String(s)) => {
                let bare = self.bare_at(i);
                let shape = match (s.len() > LONG_STRING, bare) {
                    (true, true) => self.fixed.long_bare,
                    (true, false) => self.fixed.long_quoted,
                    (false, true) => Shape::of(s.as_bytes()),
                    (false, false) => {
                        let mut buf = [b'"'; LONG_STRING + 2];
                        buf[1..1 + s.len()].copy_from_slice(s.as_bytes());
                        Shape::of(&buf[..s.len() + 2])
                    }
                };
                (shape, 0)
            }
            // Most lexemes are digits only: their shape follows from the length.
            Some(Node::Number(n)) if n.bytes().all(|b| b.is_ascii_digit()) => (Shape::digits(n.len()), 0),
            Some(Node::Number(n)) => (Shape::of(n.as_bytes()), 0),
            Some(Node::Null) => (self.fixed.null, 0),
            Some(Node::Bool(true)) => (self.fixed.yes, 0),
            Some(Node::Bool(false)) => (self.fixed.no, 0),
            _ => (Shape::default(), 0),
        }
    }

    /// Version 1, an array of `len` objects with the same keys (`columns`,
    /// from its first row), or a version 2 dense table candidate: the
    /// array's cost as a table, from each value's [`Shape`] (the keys'
    /// shapes found once per column), and whether the table is sure to
    /// beat the array's plain and compact forms (`true`: the rows are not
    /// priced as objects, and need not be).
    ///
    /// First pass: the table's text (`[N]{cols}:v,../..`) and a lower bound
    /// of what the rows cost as objects (every row `{k:v,..}` charges at
    /// least the inner half tokens of its keys and values, and a half token
    /// for each run of punctuation: the one `{` starts, and the one after
    /// each solid key or value (see `Shape::is_solid`); plain `[0,0]` and
    /// compact `[N]:0,0` charge at least a token a stand-in, and add every
    /// row's cost beyond it, see [`Plan::array`]). When the table costs less
    /// than that bound, neither plain nor compact can win, and nothing else
    /// reads a row's cost: version 1 prices rows only for their array, a
    /// version 2 row stays [`PENDING`] (priced if ever asked for). Else a
    /// second pass records each row's cost as an object (version 2: the
    /// rows not priced yet), from the same shapes.
    ///
    /// Exactly what [`price_object`](Self::price_object) and
    /// [`price_table`](Self::price_table) give (checked in tests); `None`
    /// where a shape cannot price the table exactly (then `price_table`
    /// prices it, and the rows are priced).
    #[inline(never)]
    fn price_rows_once(&mut self, i: usize, len: usize, end: usize, columns: &[Column]) -> Option<(usize, bool)> {
        debug_assert!(columns.iter().all(|c| c.sub.is_empty()));
        // The keys' shapes and the header's after its count, kept from the
        // table before when it has the same column names (many small tables
        // of one document do: the rows' nested arrays).
        let cache = &self.column_shapes;
        let hit = cache.keys.len() == columns.len()
            && columns.iter().zip(&cache.keys).all(|(c, &k)| self.nodes.same_text(c.key, k as usize));
        if !hit {
            let mut text = std::mem::take(&mut self.scratch);
            text.clear();
            let cache = &mut self.column_shapes;
            cache.keys.clear();
            cache.shapes.clear();
            for column in columns {
                push_key(&mut text, self.nodes.body(column.key));
                cache.shapes.push(Shape::of(text.as_bytes()));
                cache.keys.push(index32(column.key));
                text.clear();
            }
            text.push(']');
            push_columns(&mut text, self.nodes, columns);
            text.push(':');
            cache.tail = Shape::of(text.as_bytes());
            text.clear();
            self.scratch = text;
        }
        let keys = std::mem::take(&mut self.column_shapes.shapes);
        let priced = self.price_rows_with(i, len, end, &keys);
        self.column_shapes.shapes = keys;
        priced
    }

    /// [`price_rows_once`](Self::price_rows_once) with the columns' key
    /// shapes found (and the header's after its count in
    /// [`Plan::column_shapes`]).
    fn price_rows_with(&mut self, i: usize, len: usize, end: usize, keys: &[Shape]) -> Option<(usize, bool)> {
        // `[N]{cols}:` as `[`, the count's digits and the rest.
        let mut table = Chain::default();
        table.byte(b'[');
        table.push(&Shape::digits(itoa::Buffer::new().format(len).len()));
        table.push(&self.column_shapes.tail);
        // Whether every row's object chain is exact (see `Shape::joins`):
        // a key followed by `:` needs only its own shape exact.
        let mut objects_exact = keys.iter().all(Shape::is_exact);
        let (mut table_extra, mut nested, mut lower) = (0usize, false, 0usize);
        let mut r = i + 1;
        while r < end {
            let row_end = self.skip(r);
            if r > i + 1 {
                table.byte(b'/');
            }
            // The row's `{` starts a run of punctuation (at least a half token).
            let (mut inner, mut k, mut c) = (1usize, r + 1, 0);
            while k < row_end {
                if c > 0 {
                    table.byte(b',');
                }
                let v = k + 1;
                let (shape, more) = self.value_shape(v);
                if let Some(key) = keys.get(c) {
                    inner += key.inner_halves();
                    if matches!(self.nodes.get(v), Some(Node::Array { .. })) {
                        objects_exact &= key.joins(&shape);
                    } else {
                        // A solid key's `:` starts a run of its own.
                        inner += usize::from(key.is_solid());
                    }
                }
                // As does the `,` or `}` after a solid value.
                inner += shape.inner_halves() + usize::from(shape.is_solid());
                nested |= self.is_container(v);
                table.push(&shape);
                table_extra = table_extra.saturating_add(more);
                k = self.skip(v);
                c += 1;
            }
            lower = lower.saturating_add(inner.div_ceil(2));
            r = row_end;
        }
        let table = if !self.t.nested_cells && nested {
            Some(usize::MAX)
        } else {
            table.finish().map(|tokens| tokens.saturating_add(table_extra))
        };
        if let Some(cost) = table {
            // Version 2 only for rows of scalars: there a container's cost
            // depends on where it stands, and the bound does not hold
            // (proptest `v2_encode_then_decode_is_the_identity` found rows
            // of nested objects whose plain form costs what the table does,
            // 58 = 58; see proptest-regressions), so such a table is priced
            // against plain and compact as before.
            if objects_exact && (!nested || !self.v2) && cost < lower.saturating_add(table_extra) {
                #[cfg(test)]
                self.price_rows_as_objects(i, end, keys);
                return Some((cost, true));
            }
        }
        self.price_rows_as_objects(i, end, keys);
        table.map(|cost| (cost, false))
    }

    /// The second pass of [`price_rows_once`](Self::price_rows_once): each
    /// row's cost as an object `{k:v,..}` recorded (version 2: only the rows
    /// still [`PENDING`]), from the keys' shapes and each value's.
    #[inline(never)]
    fn price_rows_as_objects(&mut self, i: usize, end: usize, keys: &[Shape]) {
        let mut r = i + 1;
        while r < end {
            let row_end = self.skip(r);
            let o = self.ordinal(r);
            // Version 2 prices only the rows not priced yet.
            if self.v2 && self.costs[o] != PENDING {
                r = row_end;
                continue;
            }
            let mut object = Chain::default();
            object.byte(b'{');
            let (mut extra, mut k, mut c) = (0usize, r + 1, 0);
            while k < row_end {
                if c > 0 {
                    object.byte(b',');
                }
                if let Some(key) = keys.get(c) {
                    object.push(key);
                }
                let v = k + 1;
                if !matches!(self.nodes.get(v), Some(Node::Array { .. })) {
                    object.byte(b':');
                }
                let (shape, more) = self.value_shape(v);
                object.push(&shape);
                extra += more;
                k = self.skip(v);
                c += 1;
            }
            object.byte(b'}');
            let cost = match object.finish() {
                Some(tokens) => tokens.saturating_add(extra),
                None => self.price_object(r, row_end),
            };
            #[cfg(test)]
            assert_eq!(cost, self.price_object(r, row_end), "row at {r}");
            self.costs[o] = stored(cost);
            if let Some(safe) = self.safe.get_mut(o) {
                safe.1 = stored(cost);
            }
            r = row_end;
        }
    }

    /// Estimated cost of the object at `i` as `{k:v,k2[N]:..}`; a member
    /// array costs what its own form costs (its `:`, if any, merges with the
    /// bracket that follows).
    fn price_object(&mut self, i: usize, end: usize) -> usize {
        self.scratch.push('{');
        let (mut extra, mut k) = (0, i + 1);
        while k < end {
            self.spill_scratch();
            if k > i + 1 {
                self.scratch.push(',');
            }
            push_key(&mut self.scratch, self.nodes.body(k));
            if !matches!(self.nodes.get(k + 1), Some(Node::Array { .. })) {
                self.scratch.push(':');
            }
            extra += self.price_value(k + 1, false);
            k = self.skip(k + 1);
        }
        self.scratch.push('}');
        self.priced(extra)
    }

    /// Whether the objects `rows` (tape indices, every one an object) are
    /// related enough to be one version 2 table's rows (spec 5.8): every
    /// row with members shares more than half of its key names with the
    /// other rows (a name is shared when another row has it too); a keyed
    /// table's rows (`keyed`) also need two names at least between them.
    /// Unrelated objects (GitHub's `{"content":{..},"commit":{..}}`, which
    /// share 3 of their 10 names each) would fill a table mostly with `~`
    /// and cost more tokens than version 1, and a keyed row `key:cell` of
    /// one column reads like a member `key: value`.
    fn rows_related(&self, rows: &[u32], keyed: bool) -> bool {
        let nodes = self.nodes;
        // Each name seen, how many rows have it, and the last row that did.
        let mut names: Vec<(&str, usize, usize)> = Vec::new();
        for (n, r) in rows.iter().map(|&r| r as usize).enumerate() {
            let (mut m, row_end) = (r + 1, self.skip(r));
            while m < row_end {
                let key = nodes.body(m);
                match names.iter().position(|name| name.0 == key) {
                    Some(at) if names[at].2 == n + 1 => {}
                    Some(at) => (names[at].1, names[at].2) = (names[at].1 + 1, n + 1),
                    None if names.len() >= MAX_COLUMNS => return false,
                    None => names.push((key, 1, n + 1)),
                }
                m = self.skip(m + 1);
            }
        }
        if keyed && names.len() < 2 {
            return false;
        }
        // Every row has every name (most tables): each shares all its names.
        if names.iter().all(|name| name.1 == rows.len()) {
            return true;
        }
        // Each row's distinct names, and those of them shared.
        let mut seen: Vec<usize> = vec![usize::MAX; names.len()];
        for (n, r) in rows.iter().map(|&r| r as usize).enumerate() {
            let (mut own, mut shared, mut m, row_end) = (0usize, 0usize, r + 1, self.skip(r));
            while m < row_end {
                let key = nodes.body(m);
                if let Some(at) = names.iter().position(|name| name.0 == key) {
                    if seen[at] != n {
                        seen[at] = n;
                        own += 1;
                        shared += usize::from(names[at].1 > 1);
                    }
                }
                m = self.skip(m + 1);
            }
            if own > 0 && 2 * shared <= own {
                return false;
            }
        }
        true
    }

    /// Whether every member value of the object at `i` is an object.
    fn members_are_objects(&self, i: usize, end: usize) -> bool {
        let mut k = i + 1;
        while k < end {
            if !matches!(self.nodes.get(k + 1), Some(Node::Object { .. })) {
                return false;
            }
            k = self.skip(k + 1);
        }
        true
    }

    /// The element indices of the array at `i`.
    fn elements(&self, i: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
        let mut j = i + 1;
        std::iter::from_fn(move || {
            if j >= end {
                return None;
            }
            let e = j;
            j = self.skip(j);
            Some(e)
        })
    }

    /// The columns of the array at `i` as a table, if it can be one: every
    /// element an object; in v1 all with the same keys in the same order (at
    /// least one), in v2 whatever [`infer`](Self::infer) accepts.
    fn array_columns(&mut self, i: usize, len: usize, end: usize) -> Option<Vec<Column>> {
        if !self.elements(i, end).all(|e| matches!(self.nodes.get(e), Some(Node::Object { .. }))) {
            return None;
        }
        if self.v2 {
            // The rows as `u32` tape indices: 4 bytes a row, only while the
            // columns are inferred.
            let rows: Vec<u32> = self.elements(i, end).map(index32).collect();
            // Unrelated rows (spec 5.8) share no column list; rows with
            // the same keys in the same order are always related.
            if self.rows_related(&rows, false) {
                if let Some(columns) = self.infer(&rows, 0) {
                    return Some(columns);
                }
            }
            // Duplicate keys rule out `~`, not version 1's identical rows.
        }
        let first = i + 1;
        if !matches!(self.nodes.get(first), Some(Node::Object { .. })) || len == 0 {
            return None;
        }
        let keys = self.keys(first);
        if keys.is_empty() || keys.len() > MAX_COLUMNS {
            return None;
        }
        // The first row's key texts, read once; each later row's keys are
        // compared with them.
        let names: Vec<&[u8]> = keys.iter().map(|&key| self.nodes.body(key).as_bytes()).collect();
        let mut r = self.skip(first);
        while r < end {
            if !matches!(self.nodes.get(r), Some(Node::Object { len, .. }) if len == keys.len()) {
                return None;
            }
            let row_end = self.skip(r);
            let mut k = r + 1;
            for &name in &names {
                if k >= row_end || self.nodes.body(k).as_bytes() != name {
                    return None;
                }
                k = self.skip(k + 1);
            }
            r = row_end;
        }
        Some(keys.into_iter().map(|key| Column { key, sub: Vec::new() }).collect())
    }

    /// The key node indices of the object at `i`.
    fn keys(&self, i: usize) -> Vec<usize> {
        let end = self.skip(i);
        let mut keys = Vec::new();
        let mut k = i + 1;
        while k < end {
            keys.push(k);
            k = self.skip(k + 1);
        }
        keys
    }

    /// v2 column inference over `rows` (tape indices of objects): one column
    /// list of which every row's keys are a subsequence (absent members
    /// become `~`; when the rows' orders conflict or a row holds a key twice,
    /// a list that names keys more than once, [`infer_repeated`](Self::infer_repeated)), and a column group wherever
    /// every present value is a non-empty object that fits one and the group
    /// is estimated cheaper than writing those objects as cells. `None` if
    /// the rows cannot share a column list. Recursion is bounded by
    /// [`MAX_GROUP_DEPTH`].
    fn infer(&mut self, rows: &[u32], depth: usize) -> Option<Vec<Column>> {
        // The merged column list, as key nodes.
        let mut columns: Vec<usize> = Vec::new();
        // Their names, read from the tape once.
        let nodes = self.nodes;
        let mut names: Vec<&str> = Vec::new();
        for r in rows.iter().map(|&r| r as usize) {
            let Some(Node::Object { end, .. }) = self.nodes.get(r) else {
                return None;
            };
            let mut pos = 0;
            let mut k = r + 1;
            while k < end {
                let key = nodes.body(k);
                match names.iter().position(|&n| n == key) {
                    Some(at) if at >= pos => pos = at + 1,
                    // Another order, or a key twice: a list naming keys
                    // more than once (spec 5.8), or none.
                    Some(_) => return self.infer_repeated(rows, depth),
                    None => {
                        if columns.len() >= MAX_COLUMNS {
                            return None;
                        }
                        // As late as the row allows: just before the next of
                        // its keys already listed (else at the end), so that
                        // later rows keep the most orders open.
                        let mut at = columns.len();
                        let mut next = self.skip(k + 1);
                        while next < end {
                            let later = nodes.body(next);
                            if let Some(found) = names.iter().position(|&n| n == later) {
                                at = found.max(pos);
                                break;
                            }
                            next = self.skip(next + 1);
                        }
                        columns.insert(at, k);
                        names.insert(at, key);
                        pos = at + 1;
                    }
                }
                k = self.skip(k + 1);
            }
        }
        if columns.is_empty() {
            return None;
        }
        if !self.t.absent_cells
            && rows
                .iter()
                .any(|&r| !matches!(self.nodes.get(r as usize), Some(Node::Object { len, .. }) if len == columns.len()))
        {
            return None;
        }
        self.finish_columns(rows, &columns, depth)
    }

    /// Columns (key nodes) to column list: each column's cells by the greedy
    /// leftmost embedding of every row's members ([`column_cell`], as
    /// [`row_cells`] writes them), and a group wherever it pays.
    fn finish_columns(&mut self, rows: &[u32], columns: &[usize], depth: usize) -> Option<Vec<Column>> {
        debug_assert!(rows.iter().all(|&r| embeds(self.nodes, r as usize, columns)));
        let mut out = Vec::with_capacity(columns.len());
        for (j, &key) in columns.iter().enumerate() {
            let mut column = Column { key, sub: Vec::new() };
            if depth < MAX_GROUP_DEPTH && self.t.column_groups {
                if let Some(sub) = self.group(rows, columns, j, depth) {
                    column.sub = sub;
                }
            }
            out.push(column);
        }
        if depth == 0 {
            narrow(&mut out);
        }
        Some(out)
    }

    /// [`infer`](Self::infer) for rows whose keys come in more than one
    /// order or hold a key twice: a column list that names a key more than
    /// once ([`repeated_columns`]); every row fills one occurrence of each of
    /// its keys and writes `~` in the others, so it needs absent cells.
    fn infer_repeated(&mut self, rows: &[u32], depth: usize) -> Option<Vec<Column>> {
        let columns = repeated_columns(self.nodes, rows.iter().map(|&r| r as usize))?;
        if !self.t.absent_cells
            && rows
                .iter()
                .any(|&r| !matches!(self.nodes.get(r as usize), Some(Node::Object { len, .. }) if len == columns.len()))
        {
            return None;
        }
        self.finish_columns(rows, &columns, depth)
    }

    /// Sub-columns for column `j` of `columns` over `rows` as a group, if every present
    /// value is a non-empty object, they fit one column list, and the group
    /// is estimated cheaper than the objects as cells.
    fn group(&mut self, rows: &[u32], columns: &[usize], j: usize, depth: usize) -> Option<Vec<Column>> {
        let key = self.nodes.body(columns[j]);
        // The present values only (4 bytes each); a row's cell is the next
        // of them if it lies inside the row, else `~` (both ascend).
        let mut values: Vec<u32> = Vec::new();
        for &r in rows {
            if let Some(v) = column_cell(self.nodes, r as usize, columns, j) {
                match self.nodes.get(v) {
                    Some(Node::Object { len, .. }) if len > 0 => values.push(index32(v)),
                    _ => return None,
                }
            }
        }
        if values.is_empty() {
            return None;
        }
        let sub = self.infer(&values, depth + 1)?;
        let (nodes, values) = (self.nodes, &values);
        let cells = || {
            let mut next = 0;
            rows.iter().map(move |&r| {
                let v = values.get(next).map(|&v| v as usize).filter(|&v| v > r as usize && v < nodes.skip(r as usize));
                next += usize::from(v.is_some());
                v
            })
        };
        // As cells: each object's own cost, or `~`.
        let mut as_cells = 0;
        for cell in cells() {
            as_cells += match cell {
                Some(v) => self.cost(v, false),
                None => 1,
            };
        }
        // As a group: the sub-header once, then each row's leaf cells.
        let mut extra = 0;
        self.scratch.push_str(key);
        self.price_columns(&sub);
        let mut leaves = Vec::new();
        let mut names = Vec::new();
        column_names(nodes, &sub, &mut names);
        for cell in cells() {
            self.spill_scratch();
            leaves.clear();
            named_cells(nodes, cell, &sub, &names, &mut 0, &mut leaves);
            self.scratch.push(',');
            for (n, leaf) in leaves.iter().enumerate() {
                if n > 0 {
                    self.scratch.push(',');
                }
                match *leaf {
                    Cell::Value(v) => extra += self.price_value(v, false),
                    Cell::Absent => self.scratch.push('~'),
                }
            }
        }
        let as_group = self.priced(extra);
        (as_group < as_cells).then_some(sub)
    }

    /// Whether a table of `rows` under `columns` is dense (see [`Plan::dense`]):
    /// no column is a group and every row has as many members as there are
    /// columns. Every member of a row fills a column in order (the columns
    /// embed every row), so then each column is filled by the next member.
    fn is_dense(&self, rows: Rows, columns: &[Column]) -> bool {
        columns.iter().all(|c| c.sub.is_empty())
            && rows
                .iter(self.nodes)
                .all(|(_, r)| matches!(self.nodes.get(r), Some(Node::Object { len, .. }) if len == columns.len()))
    }

    /// Whether every leaf cell of the rows is a scalar or `~`.
    fn flat_cells(&self, rows: Rows, columns: &[Column]) -> bool {
        let mut leaves = Vec::new();
        let mut names = Vec::new();
        column_names(self.nodes, columns, &mut names);
        rows.iter(self.nodes).all(|(_, row)| {
            leaves.clear();
            named_cells(self.nodes, Some(row), columns, &names, &mut 0, &mut leaves);
            leaves.iter().all(|leaf| !matches!(*leaf, Cell::Value(v) if self.is_container(v)))
        })
    }

    /// Writes `{a,b{c}}` to the scratch text.
    fn price_columns(&mut self, columns: &[Column]) {
        let mut out = std::mem::take(&mut self.scratch);
        push_columns(&mut out, self.nodes, columns);
        self.scratch = out;
    }

    /// Estimated cost of a table: header, then the rows (`(row key, row
    /// object)`), each cell priced; the last cell of every row but the last
    /// is priced in its safe form.
    fn price_table(&mut self, rows: Rows, columns: &[Column], dense: bool) -> usize {
        if !self.t.nested_cells && !self.flat_cells(rows, columns) {
            return usize::MAX;
        }
        let keyed = rows.keyed;
        self.scratch.push(if keyed { '{' } else { '[' });
        push_count(&mut self.scratch, rows.len);
        self.scratch.push(if keyed { '}' } else { ']' });
        self.price_columns(columns);
        self.scratch.push(':');
        let mut extra = 0;
        let mut leaves = Vec::new();
        let nodes = self.nodes;
        let mut names = Vec::new();
        if !dense {
            column_names(nodes, columns, &mut names);
        }
        for (n, (key, row)) in rows.iter(self.nodes).enumerate() {
            if n > 0 {
                self.spill_scratch();
                self.scratch.push('/');
            }
            if let Some(k) = key {
                push_key(&mut self.scratch, self.nodes.body(k));
                self.scratch.push(':');
            }
            leaves.clear();
            if dense {
                dense_cells(self.nodes, row, &mut leaves);
            } else {
                named_cells(self.nodes, Some(row), columns, &names, &mut 0, &mut leaves);
            }
            let last_row = n + 1 == rows.len;
            for (m, leaf) in leaves.iter().enumerate() {
                if m > 0 {
                    self.scratch.push(',');
                }
                let safe = !TRAILING_TABLE_CELLS && !last_row && m + 1 == leaves.len();
                match *leaf {
                    Cell::Value(v) => extra += self.price_value(v, safe),
                    Cell::Absent => self.scratch.push('~'),
                }
            }
        }
        self.priced(extra)
    }
}

/// Whether the non-empty array of scalars at `i` (items up to `end`) is
/// written compact (`[N]:a,b`) rather than plain (`[a,b]`): as an object
/// member (or table cell) when that is estimated no dearer (a tie keeps the
/// old rules' compact form), or always under the old fixed rule
/// ([`COMPACT_SCALAR_MEMBERS`]); elsewhere never. The two texts differ only around their
/// ends, so each is priced with its first and last item (and the member's
/// key, whose `:` merges with what follows): two short estimates, whatever
/// the array's length. `bare`: strings that qualify are priced unquoted.
pub(crate) fn scalar_array_compact(
    nodes: &Tape<'_>,
    i: usize,
    len: usize,
    end: usize,
    bare: bool,
    scratch: &mut String,
) -> bool {
    let key = match i.checked_sub(1).and_then(|k| nodes.get(k)) {
        Some(Node::Key(k)) => Some(k),
        _ => None,
    };
    let Some(key) = key else {
        // Outside a member, `[N]:` only adds the count to the brackets (no
        // `:` to merge with): plain, without pricing (the estimate chose
        // compact for no such array of the benchmark documents, and pricing
        // two texts per array cost canada 2.5x the instructions of its encode).
        return false;
    };
    if COMPACT_SCALAR_MEMBERS {
        return true;
    }
    let (first, last) = (nodes.get(i + 1), nodes.get(end - 1));
    let ends = |out: &mut String| {
        price_scalar(out, first, bare);
        if len > 1 {
            out.push(',');
            price_scalar(out, last, bare);
        }
    };
    scratch.clear();
    push_key(scratch, key);
    scratch.push(':');
    scratch.push('[');
    ends(scratch);
    scratch.push(']');
    let plain = estimate_tokens(scratch);
    scratch.clear();
    push_key(scratch, key);
    scratch.push('[');
    push_count(scratch, len);
    scratch.push_str("]:");
    ends(scratch);
    let compact = estimate_tokens(scratch);
    scratch.clear();
    compact <= plain
}

/// [`Plan::bare_bits`] of a tape: one pass, each string value judged once.
fn bare_bits(nodes: &Tape<'_>) -> Vec<u64> {
    let mut bits = vec![0u64; nodes.len().div_ceil(64)];
    for i in 0..nodes.len() {
        if let Some(Node::String(s)) = nodes.get(i) {
            if writes_bare(s) {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
    }
    bits
}

/// Appends a scalar as candidate texts hold it: as it is written (see
/// [`write_scalar`]), except a string longer than [`LONG_STRING`] bytes,
/// which stands as `"x"` (or `x` when it is written bare).
pub(crate) fn price_scalar(out: &mut String, node: Option<Node<'_>>, bare: bool) {
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
pub(crate) fn write_scalar(out: &mut String, node: Option<Node<'_>>, bare: bool) {
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
/// In a table row and in an array, [`Plan::sandwiched_at`] may still quote it.
///
/// Decided on the bytes in one pass (ASCII by [`BARE_BYTE`], other
/// characters by [`bare_char_len`]), without decoding characters: exactly
/// `is_bare_string(s)` with an ASCII first character (test
/// `writes_bare_is_the_rule`).
pub(crate) fn writes_bare(s: &str) -> bool {
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
fn push_columns(out: &mut String, nodes: &Tape<'_>, columns: &[Column]) {
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

/// The leaf cells of the object at `row` under `columns` (all `~` when the
/// row or group is absent), comparing keys with `Tape::same_text`: the form
/// of [`named_cells`] kept as its oracle in tests.
#[cfg(test)]
fn row_cells(nodes: &Tape<'_>, row: Option<usize>, columns: &[Column], out: &mut Vec<Cell>) {
    let skip = |i: usize| nodes.skip(i);
    let (mut k, end) = match row {
        Some(r) => (r + 1, skip(r)),
        None => (0, 0),
    };
    for column in columns {
        let present = k < end && nodes.same_text(k, column.key);
        let value = if present { Some(k + 1) } else { None };
        if present {
            k = skip(k + 1);
        }
        if column.sub.is_empty() {
            out.push(value.map_or(Cell::Absent, Cell::Value));
        } else {
            row_cells(nodes, value, &column.sub, out);
        }
    }
}

/// The key texts of `columns` and their sub-columns, in the order
/// [`named_cells`] meets them (a column, then its group's columns).
fn column_names<'t>(nodes: &'t Tape<'_>, columns: &[Column], out: &mut Vec<&'t [u8]>) {
    for column in columns {
        out.push(nodes.body(column.key).as_bytes());
        column_names(nodes, &column.sub, out);
    }
}

/// The leaf cells of the object at `row` under `columns` (all `~` when the
/// row or group is absent). A member whose key does not come next is absent;
/// the plan guarantees every member is matched in order. The columns' key
/// texts are read once for all rows ([`column_names`]; `at` is the next
/// one's index): each of the row's keys is compared with a text, not with
/// another node (`Tape::same_text` reads both; the test oracle `row_cells`).
fn named_cells(
    nodes: &Tape<'_>,
    row: Option<usize>,
    columns: &[Column],
    names: &[&[u8]],
    at: &mut usize,
    out: &mut Vec<Cell>,
) {
    let skip = |i: usize| nodes.skip(i);
    let (mut k, end) = match row {
        Some(r) => (r + 1, skip(r)),
        None => (0, 0),
    };
    for column in columns {
        let name = names.get(*at).copied().unwrap_or_default();
        *at += 1;
        let present = k < end && nodes.body(k).as_bytes() == name;
        let value = if present { Some(k + 1) } else { None };
        if present {
            k = skip(k + 1);
        }
        if column.sub.is_empty() {
            out.push(value.map_or(Cell::Absent, Cell::Value));
        } else {
            named_cells(nodes, value, &column.sub, names, at, out);
        }
    }
}

/// The leaf cells of the row object `row` of a dense table: its member
/// values in order ([`row_cells`] without comparing keys).
fn dense_cells(nodes: &Tape<'_>, row: usize, out: &mut Vec<Cell>) {
    let end = nodes.skip(row);
    let mut k = row + 1;
    while k < end {
        out.push(Cell::Value(k + 1));
        k = nodes.skip(k + 1);
    }
}

/// Most names a column list with repeated names may have, as a multiple of
/// its distinct names (5/4): the readability cap of FLOOR-GAP.md (c1); wider
/// lists leave the rows plain objects.
const REPEATED_COLUMNS_CAP: (usize, usize) = (5, 4);

/// A column list (key nodes) naming keys more than once, for `rows` (tape
/// indices of objects) whose keys do not fit one ordered list: the rows'
/// key sequences merged, each row that is not yet a subsequence of the list
/// (greedy leftmost test) replacing it by a shortest common supersequence of
/// both (the LCS table, at most [`MAX_COLUMNS`] × a row's keys). `None` above
/// [`MAX_COLUMNS`] names or above [`REPEATED_COLUMNS_CAP`] times the distinct
/// names. Deterministic: ties keep the list's name first.
pub(crate) fn repeated_columns(nodes: &Tape<'_>, rows: impl IntoIterator<Item = usize>) -> Option<Vec<usize>> {
    let mut columns: Vec<usize> = Vec::new();
    let mut keys: Vec<usize> = Vec::new();
    let mut lcs: Vec<u16> = Vec::new();
    for r in rows {
        keys.clear();
        let end = nodes.skip(r);
        let mut k = r + 1;
        while k < end {
            keys.push(k);
            k = nodes.skip(k + 1);
        }
        if keys.len() > MAX_COLUMNS {
            return None;
        }
        // Greedy leftmost subsequence test.
        let mut j = 0;
        let fits = keys.iter().all(|&k| {
            while j < columns.len() && !nodes.same_text(columns[j], k) {
                j += 1;
            }
            let found = j < columns.len();
            j += 1;
            found
        });
        if fits {
            continue;
        }
        // Shortest common supersequence by the LCS table.
        let (n, m) = (columns.len(), keys.len());
        lcs.clear();
        lcs.resize((n + 1) * (m + 1), 0);
        for a in (0..n).rev() {
            for b in (0..m).rev() {
                lcs[a * (m + 1) + b] = if nodes.same_text(columns[a], keys[b]) {
                    lcs[(a + 1) * (m + 1) + b + 1] + 1
                } else {
                    lcs[(a + 1) * (m + 1) + b].max(lcs[a * (m + 1) + b + 1])
                };
            }
        }
        let mut merged = Vec::with_capacity(n + m);
        let (mut a, mut b) = (0, 0);
        while a < n && b < m {
            if nodes.same_text(columns[a], keys[b]) {
                merged.push(columns[a]);
                a += 1;
                b += 1;
            } else if lcs[(a + 1) * (m + 1) + b] >= lcs[a * (m + 1) + b + 1] {
                merged.push(columns[a]);
                a += 1;
            } else {
                merged.push(keys[b]);
                b += 1;
            }
        }
        merged.extend_from_slice(&columns[a..]);
        merged.extend_from_slice(&keys[b..]);
        columns = merged;
        if columns.len() > MAX_COLUMNS {
            return None;
        }
    }
    let mut distinct: Vec<&str> = columns.iter().map(|&c| nodes.body(c)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let (num, den) = REPEATED_COLUMNS_CAP;
    if columns.is_empty() || columns.len() * den > distinct.len() * num {
        return None;
    }
    Some(columns)
}

/// The value filling column `j` of `columns` in the row object `r` (`None`:
/// `~`), by the greedy leftmost embedding of the row's members into the
/// columns: the walk [`row_cells`] makes when writing. For a list without
/// repeated names this is the member of that name.
pub(crate) fn column_cell(nodes: &Tape<'_>, r: usize, columns: &[usize], j: usize) -> Option<usize> {
    let end = nodes.skip(r);
    let mut k = r + 1;
    for &c in &columns[..j] {
        if k < end && nodes.same_text(k, c) {
            k = nodes.skip(k + 1);
        }
    }
    (k < end && nodes.same_text(k, columns[j])).then_some(k + 1)
}

/// Whether every member of the row object `r` finds its column in the
/// greedy leftmost embedding (true of every list the planner builds).
fn embeds(nodes: &Tape<'_>, r: usize, columns: &[usize]) -> bool {
    let end = nodes.skip(r);
    let mut k = r + 1;
    for &c in columns {
        if k < end && nodes.same_text(k, c) {
            k = nodes.skip(k + 1);
        }
    }
    k >= end
}

/// Ordinal of the container at tape index `i` in `containers` (ascending tape
/// indices), searched from ordinal `from` on: a gallop, so a container close
/// after `from` is found in a few steps. Falls back to a search of the whole
/// list if `i` lies before `from`.
#[inline]
fn ordinal(containers: &[u32], from: usize, i: usize) -> usize {
    // Beyond u32: no container has that index (a tape holds fewer than 2^32 nodes).
    let i = u32::try_from(i).unwrap_or(u32::MAX);
    // The usual cases: the container itself, or the next one (its first
    // child, or a sibling with no containers inside the one before it).
    if containers.get(from) == Some(&i) {
        return from;
    }
    if containers.get(from + 1) == Some(&i) {
        return from + 1;
    }
    // The first child of the next one (a table's next row is not looked up).
    if containers.get(from + 2) == Some(&i) {
        return from + 2;
    }
    ordinal_search(containers, from, i)
}

/// [`ordinal`] beyond its first guesses.
fn ordinal_search(containers: &[u32], from: usize, i: u32) -> usize {
    let from = from.min(containers.len());
    let rest = &containers[from..];
    if rest.first().is_none_or(|&c| c > i) {
        return containers.partition_point(|&c| c < i);
    }
    let mut step = 1;
    while step < rest.len() && rest[step] < i {
        step *= 2;
    }
    let lo = step / 2;
    let hi = (step + 1).min(rest.len());
    from + lo + rest[lo..hi].partition_point(|&c| c < i)
}

/// What the writer still has to do, innermost last.
#[derive(Debug, Clone, Copy)]
enum Task {
    /// The value at a tape index: `member` after a key (header forms follow
    /// the key directly, the rest after a colon), `safe` where its text must
    /// not end with a table body.
    /// `level` counts the tables around it (the readable indentation).
    Value { i: usize, member: bool, safe: bool, level: u32 },
    /// Fixed text.
    Text(&'static str),
    /// A scalar table cell, written bare if it qualifies and `bare`.
    Scalar { i: usize, bare: bool },
    /// The remaining items of a plain or compact array.
    Items { next: usize, left: usize, first: bool, compact: bool, safe_last: bool, level: u32 },
    /// The remaining members of a plain object.
    Members { next: usize, end: usize, first: bool, level: u32 },
    /// The remaining rows of table `table`, which is the `level`-th table
    /// from the outside.
    Rows { table: u32, next: usize, left: usize, first: bool, keyed: bool, level: u32 },
}

struct Writer<'p, 'd, 'a> {
    plan: &'p Plan<'d, 'a>,
    out: String,
    style: &'static Style,
    tasks: Vec<Task>,
    cells: Vec<Cell>,
    /// The key texts of table `names_of`'s columns ([`column_names`]), for
    /// its rows' cells.
    names: Vec<&'d [u8]>,
    names_of: Option<u32>,
    /// Ordinal of the container written last (containers are written in
    /// document order, so the next one is found from here).
    cursor: usize,
    /// Where the text goes once `out` holds [`ENCODE_CHUNK`] bytes
    /// ([`Document::encode_to`]); `false` from it stops the writer. `None`:
    /// `out` keeps the whole text.
    spill: Option<&'p mut dyn FnMut(&str) -> bool>,
    /// The spill refused a piece: write nothing more.
    stopped: bool,
}

impl Writer<'_, '_, '_> {
    /// Hands `out` on when it holds a piece's worth (streamed output only).
    #[inline]
    fn maybe_spill(&mut self) {
        if self.out.len() >= ENCODE_CHUNK && self.spill.is_some() {
            self.spill_now();
        }
    }

    /// Hands `out` on and empties it (streamed output only).
    fn spill_now(&mut self) {
        if let Some(spill) = self.spill.as_mut() {
            if !self.stopped && !self.out.is_empty() && !spill(&self.out) {
                self.stopped = true;
            }
            self.out.clear();
        }
    }

    fn run(&mut self) {
        // A top-level header form is enclosed in `(` `)` (spec 3.12): the
        // `)` makes the end of the text certain.
        if self.root_is_header() {
            self.out.push('(');
            self.tasks.push(Task::Text(")"));
        }
        self.tasks.push(Task::Value { i: 0, member: false, safe: false, level: 0 });
        while let Some(task) = self.tasks.pop() {
            self.maybe_spill();
            if self.stopped {
                return;
            }
            match task {
                Task::Value { i, member, safe, level } => self.value(i, member, safe, level),
                Task::Text(text) => self.out.push_str(text),
                Task::Scalar { i, bare } => self.plan.write_scalar_at(&mut self.out, i, bare),
                Task::Items { mut next, mut left, mut first, compact, safe_last, level } => {
                    // Scalars straight away; a container waits on the stack.
                    // `prev`: the item before, if a scalar (after a container,
                    // the task resumes with none).
                    let mut prev = None;
                    while left > 0 && !self.stopped {
                        self.maybe_spill();
                        if !first {
                            self.out.push_str(if compact { "," } else { self.style.item });
                        }
                        first = false;
                        if !self.plan.is_container(next) {
                            let after = (left > 1).then_some(next + 1);
                            let bare = self.plan.bare && !self.plan.sandwiched_at(prev, after);
                            self.plan.write_scalar_at(&mut self.out, next, bare);
                            prev = Some(next);
                            next += 1;
                            left -= 1;
                            continue;
                        }
                        let after = self.plan.skip(next);
                        self.tasks.push(Task::Items { next: after, left: left - 1, first, compact, safe_last, level });
                        self.tasks.push(Task::Value { i: next, member: false, safe: safe_last && left == 1, level });
                        break;
                    }
                }
                Task::Members { mut next, end, mut first, level } => {
                    while next < end && !self.stopped {
                        self.maybe_spill();
                        if !first {
                            self.out.push_str(self.style.item);
                        }
                        first = false;
                        push_key(&mut self.out, self.plan.nodes.body(next));
                        if !self.plan.is_container(next + 1) {
                            self.out.push_str(self.style.colon);
                            self.scalar(next + 1);
                            next += 2;
                            continue;
                        }
                        let after = self.plan.skip(next + 1);
                        self.tasks.push(Task::Members { next: after, end, first, level });
                        self.tasks.push(Task::Value { i: next + 1, member: true, safe: false, level });
                        break;
                    }
                }
                Task::Rows { table, next, left, first, keyed, level } => {
                    self.row(table, next, left, first, keyed, level)
                }
            }
        }
    }

    /// Whether the top-level value is written as a compact array, a table
    /// or a keyed table (its plan's form, as [`value`](Self::value) reads it).
    fn root_is_header(&self) -> bool {
        match self.plan.nodes.get(0) {
            Some(Node::Array { len, .. } | Node::Object { len, .. }) if len > 0 => {
                Form::unpack(self.plan.forms.first().copied().unwrap_or(0)) != Form::Plain
            }
            _ => false,
        }
    }

    fn value(&mut self, i: usize, member: bool, safe: bool, level: u32) {
        let node = self.plan.nodes.get(i);
        let (len, end) = match node {
            Some(Node::Array { len, end } | Node::Object { len, end }) => (len, end),
            _ => {
                if member {
                    self.out.push_str(self.style.colon);
                }
                self.scalar(i);
                return;
            }
        };
        let is_array = matches!(node, Some(Node::Array { .. }));
        let o = ordinal(&self.plan.containers, self.cursor, i);
        self.cursor = o;
        let form = if safe && !TRAILING_TABLE_CELLS {
            Form::unpack(self.plan.safe.get(o).map_or(0, |s| s.0))
        } else {
            Form::unpack(self.plan.forms.get(o).copied().unwrap_or(0))
        };
        match form {
            Form::Plain => {
                if member {
                    self.out.push_str(self.style.colon);
                }
                if is_array {
                    self.out.push('[');
                    self.tasks.push(Task::Text("]"));
                    self.tasks.push(Task::Items {
                        next: i + 1,
                        left: len,
                        first: true,
                        compact: false,
                        safe_last: false,
                        level,
                    });
                } else {
                    self.out.push('{');
                    self.tasks.push(Task::Text("}"));
                    self.tasks.push(Task::Members { next: i + 1, end, first: true, level });
                }
            }
            Form::Compact => {
                self.out.push('[');
                push_count(&mut self.out, len);
                self.out.push(']');
                self.out.push_str(self.style.colon);
                self.tasks.push(Task::Items {
                    next: i + 1,
                    left: len,
                    first: true,
                    compact: true,
                    safe_last: safe,
                    level,
                });
            }
            Form::Table(t) => {
                self.out.push(if is_array { '[' } else { '{' });
                push_count(&mut self.out, len);
                self.out.push(if is_array { ']' } else { '}' });
                push_columns(&mut self.out, self.plan.nodes, &self.plan.tables[t as usize]);
                if self.style.lines {
                    self.out.push(':');
                    self.line_break(level + 1);
                } else {
                    self.out.push_str(self.style.colon);
                }
                let keyed = !is_array;
                self.tasks.push(Task::Rows { table: t, next: i + 1, left: len, first: true, keyed, level: level + 1 });
            }
        }
    }

    /// A line break and the indentation of a row of the `level`-th table.
    fn line_break(&mut self, level: u32) {
        self.out.push('\n');
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    fn row(&mut self, table: u32, next: usize, left: usize, first: bool, keyed: bool, level: u32) {
        if left == 0 {
            return;
        }
        if !first {
            self.out.push_str(self.style.row);
            if self.style.lines {
                self.line_break(level);
            }
        }
        let row = if keyed {
            push_key(&mut self.out, self.plan.nodes.body(next));
            self.out.push(':');
            next + 1
        } else {
            next
        };
        let next = self.plan.skip(row);
        self.tasks.push(Task::Rows { table, next, left: left - 1, first: false, keyed, level });
        let mut cells = std::mem::take(&mut self.cells);
        cells.clear();
        if self.plan.dense[table as usize] {
            dense_cells(self.plan.nodes, row, &mut cells);
        } else {
            let columns = &self.plan.tables[table as usize];
            if self.names_of != Some(table) {
                self.names.clear();
                column_names(self.plan.nodes, columns, &mut self.names);
                self.names_of = Some(table);
            }
            named_cells(self.plan.nodes, Some(row), columns, &self.names, &mut 0, &mut cells);
        }
        let count = cells.len();
        // Scalars and `~` straight away; from the first container on, the
        // rest of the row waits on the stack.
        let mut m = 0;
        while m < count {
            if m > 0 {
                self.out.push(',');
            }
            match cells[m] {
                Cell::Absent => self.out.push('~'),
                Cell::Value(v) if !self.plan.is_container(v) => {
                    let bare = self.cell_bare(&cells, m);
                    self.plan.write_scalar_at(&mut self.out, v, bare);
                }
                Cell::Value(v) => {
                    for (r, cell) in cells.iter().enumerate().skip(m + 1).rev() {
                        match *cell {
                            Cell::Value(v) if !self.plan.is_container(v) => {
                                let bare = self.cell_bare(&cells, r);
                                self.tasks.push(Task::Scalar { i: v, bare });
                            }
                            Cell::Value(v) => {
                                let safe = !TRAILING_TABLE_CELLS && left > 1 && r + 1 == count;
                                self.tasks.push(Task::Value { i: v, member: false, safe, level });
                            }
                            Cell::Absent => self.tasks.push(Task::Text("~")),
                        }
                        self.tasks.push(Task::Text(","));
                    }
                    let safe = !TRAILING_TABLE_CELLS && left > 1 && m + 1 == count;
                    self.tasks.push(Task::Value { i: v, member: false, safe, level });
                    break;
                }
            }
            m += 1;
        }
        self.cells = cells;
    }

    /// Whether the scalar cell `m` of a row is written bare if it
    /// qualifies: version 2, and not [`sandwiched`](Plan::sandwiched_at)
    /// between its row neighbours.
    fn cell_bare(&self, cells: &[Cell], m: usize) -> bool {
        let at = |n: Option<usize>| match n.and_then(|n| cells.get(n)) {
            Some(Cell::Value(v)) => Some(*v),
            _ => None,
        };
        self.plan.bare && !self.plan.sandwiched_at(at(m.checked_sub(1)), at(Some(m + 1)))
    }

    fn scalar(&mut self, i: usize) {
        self.plan.write_scalar_at(&mut self.out, i, self.plan.bare);
    }
}

/// The document as STC text: plan, then write.
fn write(nodes: &Tape<'_>, profile: Profile, version: Version, techniques: Techniques) -> String {
    write_to(nodes, profile, version, techniques, None)
}

/// [`write`], handing the text to `spill` in pieces of about
/// [`ENCODE_CHUNK`] bytes when there is one; returns what is left (all of
/// the text without a spill).
fn write_to(
    nodes: &Tape<'_>,
    profile: Profile,
    version: Version,
    techniques: Techniques,
    spill: Option<&mut dyn FnMut(&str) -> bool>,
) -> String {
    if nodes.is_empty() {
        return String::new();
    }
    let plan = Plan::new(nodes, version >= Version::V2, techniques);
    let style = match profile {
        Profile::Readable => &READABLE,
        Profile::Compact => &COMPACT,
    };
    let mut writer = Writer {
        plan: &plan,
        out: String::with_capacity(if spill.is_some() { ENCODE_CHUNK + ENCODE_CHUNK / 4 } else { nodes.len() * 8 }),
        style,
        tasks: Vec::new(),
        cells: Vec::new(),
        names: Vec::new(),
        names_of: None,
        cursor: 0,
        // A shorter borrow, for as long as the plan's.
        spill: spill.map(|f| f as &mut dyn FnMut(&str) -> bool),
        stopped: false,
    };
    writer.run();
    writer.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Chosen;
    use crate::options::Limits;
    use crate::options::Version;

    const TABLE: &str = r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#;

    #[test]
    fn deep_nesting_encodes_on_a_small_stack() {
        // 100,000 nested arrays (the tape built directly: the readers' depth
        // policy is not this test's business), encoded in both versions on a
        // thread with a 256 KiB stack.
        const DEPTH: usize = 100_000;
        let mut nodes = Vec::with_capacity(DEPTH + 1);
        for _ in 0..DEPTH {
            nodes.push(Node::Array { len: 1, end: DEPTH + 1 });
        }
        nodes.push(Node::Number("1"));
        let doc = Document::from_nodes(&nodes);
        let expected = format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let v1 = doc.encode(Profile::Compact);
                let v2 = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(Profile::Readable));
                (v1, v2)
            })
            .unwrap();
        let (v1, v2) = handle.join().unwrap();
        assert_eq!(v1, expected);
        assert_eq!(v2, expected);
        // 100,000 nested objects (v2: groups and keyed tables are candidates).
        let mut nodes = Vec::with_capacity(2 * DEPTH + 1);
        for _ in 0..DEPTH {
            nodes.push(Node::Object { len: 1, end: 2 * DEPTH + 1 });
            nodes.push(Node::Key("a"));
        }
        nodes.push(Node::Null);
        let doc = Document::from_nodes(&nodes);
        let expected = format!("{}null{}", "{a:".repeat(DEPTH), "}".repeat(DEPTH));
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || doc.encode_with(&EncodeOptions::default().version(Version::V2)))
            .unwrap();
        assert_eq!(handle.join().unwrap(), expected);
        // An array of two 50,000-deep chains of objects: a table whose column
        // groups go as deep as the encoder allows; it decodes back at version 2.
        let half = DEPTH / 2;
        let mut nodes = vec![Node::Array { len: 2, end: 4 * half + 3 }];
        for chain in 0..2 {
            let end = 1 + (chain + 1) * (2 * half + 1);
            for _ in 0..half {
                nodes.push(Node::Object { len: 1, end });
                nodes.push(Node::Key("a"));
            }
            nodes.push(Node::Number(if chain == 0 { "1" } else { "2" }));
        }
        let doc = Document::from_nodes(&nodes);
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2));
                let options = crate::DecodeOptions::default().version(Version::V2).max_depth(DEPTH + 2);
                (stc.len(), crate::decode_with(&stc, &options).map(|json| json == doc.to_json()))
            })
            .unwrap();
        let (len, same) = handle.join().unwrap();
        assert!(len > 4 * half, "{len}");
        assert_eq!(same, Ok(true));
    }

    /// The compact planner writes exactly what the per-node planner it
    /// replaced wrote (kept in `write_stc_reference`), on every document of
    /// the shared corpus (`STC_CORPUS` overrides `../shared/corpus`), in both
    /// versions and both profiles.
    #[test]
    fn same_output_as_the_per_node_planner_on_the_corpus() {
        // Hand-made shapes too: nested tables, groups, keyed tables, absent cells.
        let mut docs = corpus();
        for json in [
            TABLE,
            r#"[{"a":[{"c":1},{"c":2}]},{"a":[{"c":3},{"c":4}]},{"a":[{"c":5},{"c":6}]}]"#,
            r#"{"t":[{"b":[{"c":1},{"c":2}],"a":1},{"b":[],"a":2}],"n":1}"#,
            r#"[{"id":1,"u":{"x":1,"y":{"z":[1,2]}}},{"id":2,"u":{"x":2,"y":{"z":[]}}},{"id":3}]"#,
            r#"{"e1":{"n":"a","p":[1,2]},"e2":{"n":"b","p":[3]},"e3":{"n":"c"}}"#,
            r#"[[1,2],[3,4],[[5],[6,[7,{"a":[{"b":1},{"b":2}]}]]]]"#,
            GITHUB_CREATE_FILE,
            r#"{"a":{"m":"x"},"b":{"m":"y"},"c":{"m":"z"}}"#,
            r#"{"x":{"a":1,"b":2,"c":3},"y":{"a":4,"d":5,"e":6}}"#,
        ] {
            docs.push((json.to_string(), json.to_string()));
        }
        for (rows, fields) in [(3, 44), (3, 45), (3, 50)] {
            docs.push((format!("wide_rows({rows}, {fields})"), wide_rows(rows, fields)));
        }
        // The width rule's choices: the narrowest group that fits, else the widest.
        for groups in [&[30, 20][..], &[40, 30, 20], &[25, 25], &[20, 20, 20, 20]] {
            let row = |r: usize| {
                let members: Vec<String> = (0..groups.len())
                    .map(|g| {
                        let fields: Vec<String> = (0..groups[g]).map(|f| format!(r#""g{g}f{f}":{}"#, r + f)).collect();
                        format!(r#""g{g}":{{{}}}"#, fields.join(","))
                    })
                    .collect();
                format!(r#"{{"id":{r},{}}}"#, members.join(","))
            };
            docs.push((format!("groups {groups:?}"), format!("[{}]", (0..3).map(row).collect::<Vec<_>>().join(","))));
        }
        for (name, json) in &docs {
            let doc = Document::parse_json(json, &Limits::default()).unwrap();
            for version in [Version::V1, Version::V2] {
                for profile in [Profile::Compact, Profile::Readable] {
                    let new = write(&doc.nodes, profile, version, Techniques::default());
                    let old = crate::write_stc_reference::write(&doc.nodes, profile, version);
                    assert!(new == old, "{name}: {version:?} {profile:?} differs at byte {}", {
                        new.bytes().zip(old.bytes()).take_while(|(a, b)| a == b).count()
                    });
                }
            }
        }
    }

    /// Tables near the lower bound of `price_rows_once` (two or three rows,
    /// short or empty values, keys that are not identifiers, a key ending in
    /// a digit before an array, non-solid values like `""` and `"-"`): under
    /// `cfg(test)` every table the bound declares sure to win is also priced
    /// the full way and must win, every row's cost is checked against
    /// `price_object`, and the text must be the per-node planner's.
    #[test]
    fn tables_sure_to_win_are_the_tables_chosen() {
        let mut docs = Vec::new();
        let values =
            [r#""""#, r#""-""#, "1", "null", r#""a""#, "[]", "[1,2]", r#"{"q":1}"#, r#""a long string value here""#];
        let keys = [r#""a""#, r#""k1""#, r#""-""#, r#""a b""#, r#""""#, r#""id""#];
        for rows in 2..=3 {
            for (n, v) in values.iter().enumerate() {
                for k in keys {
                    let w = values[(n + 1) % values.len()];
                    let row = format!("{{{k}:{v},\"z\":{w}}}");
                    docs.push(format!("[{}]", vec![row.clone(); rows].join(",")));
                    let other = format!("{{{k}:{w},\"z\":{v}}}");
                    docs.push(format!("{{\"t\":[{row},{other}]}}"));
                }
            }
        }
        for json in &docs {
            let doc = Document::parse_json(json, &Limits::default()).unwrap();
            for version in [Version::V1, Version::V2] {
                for profile in [Profile::Compact, Profile::Readable] {
                    let new = write(&doc.nodes, profile, version, Techniques::default());
                    let old = crate::write_stc_reference::write(&doc.nodes, profile, version);
                    assert_eq!(new, old, "{json}: {version:?} {profile:?}");
                }
            }
        }
    }

    /// `named_cells` (key texts read once) gives `row_cells`' cells (keys
    /// compared node to node) for every row of every table version 2
    /// chooses on the corpus and the hand-made tables, and for absent rows.
    #[test]
    fn named_cells_are_the_row_cells() {
        let mut docs = corpus();
        for json in [
            r#"[{"id":1,"u":{"x":1,"y":{"z":[1,2]}}},{"id":2,"u":{"x":2,"y":{"z":[]}}},{"id":3}]"#,
            r#"{"e1":{"n":"a","p":[1,2]},"e2":{"n":"b","p":[3]},"e3":{"n":"c"}}"#,
            r#"[{"a":1,"b":2},{"b":3,"a":4},{"a":5}]"#,
        ] {
            docs.push((json.to_string(), json.to_string()));
        }
        let mut checked = 0;
        for (name, json) in &docs {
            let doc = Document::parse_json(json, &Limits::default()).unwrap();
            let plan = Plan::new(&doc.nodes, true, Techniques::default());
            for (o, &c) in plan.containers.iter().enumerate() {
                let Form::Table(t) = Form::unpack(plan.forms[o]) else { continue };
                let columns = &plan.tables[t as usize];
                let mut names = Vec::new();
                column_names(&doc.nodes, columns, &mut names);
                let (c, end) = (c as usize, doc.nodes.skip(c as usize));
                let keyed = matches!(doc.nodes.get(c), Some(Node::Object { .. }));
                let rows = Rows { first: c + 1, end, len: 0, keyed };
                for row in rows.iter(&doc.nodes).map(|(_, r)| Some(r)).chain([None]) {
                    let (mut new, mut old) = (Vec::new(), Vec::new());
                    named_cells(&doc.nodes, row, columns, &names, &mut 0, &mut new);
                    row_cells(&doc.nodes, row, columns, &mut old);
                    assert_eq!(format!("{new:?}"), format!("{old:?}"), "{name}: table at {c}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} rows checked");
    }

    #[test]
    fn ordinals_gallop_and_fall_back() {
        let containers = [0, 3, 4, 9, 10, 11, 20, 21, 40];
        for (o, &i) in containers.iter().enumerate() {
            for from in 0..=containers.len() + 1 {
                assert_eq!(ordinal(&containers, from, i as usize), o, "i {i} from {from}");
            }
        }
    }

    fn encode_v(json: &str, version: Version) -> String {
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        doc.encode_with(&EncodeOptions::default().version(version))
    }

    #[test]
    fn nested_cells_and_the_row_end_rule() {
        // Nested objects and arrays as cells (v1).
        let json = r#"[{"id":1,"u":{"x":1},"t":[1,2]},{"id":2,"u":{"x":2},"t":[3]}]"#;
        assert_eq!(encode_v(json, Version::V1), "([2]{id,u,t}:1,{x:1},[1,2]/2,{x:2},[3])");
        // A nested table as the last cell of a row followed by `/`: counts
        // drive reading, so the `/` after its last declared row is the outer one.
        let json = r#"[{"a":[{"c":1},{"c":2}]},{"a":[{"c":3},{"c":4}]},{"a":[{"c":5},{"c":6}]}]"#;
        let stc = encode_v(json, Version::V1);
        assert_eq!(stc, "([3]{a}:[2]{c}:1/2/[2]{c}:3/4/[2]{c}:5/6)");
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        assert_eq!(crate::decode(&stc).unwrap(), doc.to_json());
        // Not in a row's last cell, a nested table is fine.
        let json = r#"[{"a":[{"c":1},{"c":2}],"b":1},{"a":[{"c":3},{"c":4}],"b":2}]"#;
        assert_eq!(encode_v(json, Version::V1), "([2]{a,b}:[2]{c}:1/2,1/[2]{c}:3/4,2)");
        // One row: never a table.
        assert_eq!(encode_v(r#"[{"a":1,"b":2}]"#, Version::V1), "[{a:1,b:2}]");
    }

    /// Each technique switch changes the output of a document that uses the
    /// technique, and every output decodes back (at the version written).
    #[test]
    fn technique_switches_change_the_form_and_stay_lossless() {
        let off = |name: &str| Techniques::default().set(name, false).unwrap();
        let enc = |json: &str, version: Version, t: Techniques| {
            let doc = Document::parse_json(json, &Limits::default()).unwrap();
            let stc = doc.encode_with(&EncodeOptions::default().version(version).techniques(t));
            let back = crate::decode_with(&stc, &crate::DecodeOptions::default().version(version)).unwrap();
            assert_eq!(back, doc.to_json(), "{stc}");
            stc
        };
        let cases: &[(&str, Version, &str, &str, &str)] = &[
            (
                "nested_cells",
                Version::V1,
                r#"[{"a":{"x":1}},{"a":{"x":2}}]"#,
                "([2]{a}:{x:1}/{x:2})",
                "[{a:{x:1}},{a:{x:2}}]",
            ),
            ("tables", Version::V1, r#"[{"a":1},{"a":2}]"#, "([2]{a}:1/2)", "[{a:1},{a:2}]"),
            (
                "column_groups",
                Version::V2,
                r#"[{"u":{"x":1,"y":2}},{"u":{"x":3,"y":4}}]"#,
                "([2]{u{x,y}}:1,2/3,4)",
                "([2]{u}:{x:1,y:2}/{x:3,y:4})",
            ),
            (
                "absent_cells",
                Version::V2,
                r#"{"t":[{"a":1,"b":2,"c":3},{"a":3,"b":4},{"a":5,"b":6,"c":7}]}"#,
                "{t[3]{a,b,c}:1,2,3/3,4,~/5,6,7}",
                "{t:[{a:1,b:2,c:3},{a:3,b:4},{a:5,b:6,c:7}]}",
            ),
            (
                "keyed_tables",
                Version::V2,
                r#"{"m":{"k1":{"a":1,"b":2},"k2":{"a":3,"b":4}}}"#,
                "{m{2}{a,b}:k1:1,2/k2:3,4}",
                "{m:{k1:{a:1,b:2},k2:{a:3,b:4}}}",
            ),
        ];
        for &(name, version, json, on, without) in cases {
            assert_eq!(enc(json, version, Techniques::default()), on, "{name} on");
            assert_eq!(enc(json, version, off(name)), without, "{name} off");
        }
        // Techniques the corpus never needs still leave every output lossless.
        for json in [r#"[[1,2],[3,[4]],{"a":[{"b":1},{"b":2}]}]"#, r#"{"t":["a","b"],"n":[1,2]}"#, TABLE] {
            for &name in Techniques::NAMES {
                for version in [Version::V1, Version::V2] {
                    enc(json, version, off(name));
                }
            }
        }
        assert!(Techniques::default().set("dictionaries", false).is_none());
    }

    /// Version 2: rows whose keys come in different orders (or hold a key
    /// twice) share a column list that names a key more than once; each row
    /// fills one occurrence and writes `~` in the other. The cap keeps a list
    /// to 5/4 of its distinct names; without absent cells there is none.
    #[test]
    fn repeated_column_names_v2() {
        let v2 = crate::DecodeOptions::default().version(Version::V2);
        let cases = [
            // The third row's order differs, also in its group.
            (
                concat!(
                    r#"[{"id":1,"user":{"id":5,"name":"al","x":1,"y":2},"text":"hi","lang":"en"},"#,
                    r#"{"id":2,"user":{"id":6,"name":"bo","x":3,"y":4},"text":"yo","lang":"en"},"#,
                    r#"{"text":"ok","id":3,"user":{"name":"cy","id":7,"x":5,"y":6},"lang":"de"}]"#
                ),
                "([3]{text,id,user{id,name,id,x,y},text,lang}:~,1,5,al,~,1,2,hi,en/~,2,6,bo,~,3,4,yo,en/ok,3,~,cy,7,5,6,~,de)",
            ),
            // Swapped pairs: 5 names for 4 distinct keys, the cap's limit.
            (
                r#"[{"a":1,"b":2,"c":3,"d":4},{"b":5,"a":6,"c":7,"d":8},{"a":9,"b":10,"c":11,"d":12}]"#,
                "([3]{a,b,a,c,d}:1,2,~,3,4/~,5,6,7,8/9,10,~,11,12)",
            ),
        ];
        for (json, expected) in cases {
            let stc = encode_v(json, Version::V2);
            assert_eq!(stc, expected, "{json}");
            assert_eq!(crate::decode_with(&stc, &v2).unwrap(), crate::decode(json).unwrap(), "{stc}");
            // Version 1 never writes them.
            assert!(!encode_v(json, Version::V1).contains('~'));
        }
        // Over the cap (3 names for 2 distinct keys): plain objects.
        let json = r#"[{"a":1,"b":2},{"b":3,"a":4}]"#;
        assert_eq!(encode_v(json, Version::V2), "[{a:1,b:2},{b:3,a:4}]");
        // A key twice in every row, same order: version 1's identical rows, no `~`.
        let json = r#"[{"a":1,"b":2,"a":3},{"a":4,"b":5,"a":6}]"#;
        assert_eq!(encode_v(json, Version::V2), "([2]{a,b,a}:1,2,3/4,5,6)");
        // Without absent cells, rows in different orders stay objects.
        let json = r#"[{"a":1,"b":2,"c":3,"d":4},{"b":5,"a":6,"c":7,"d":8},{"a":9,"b":10,"c":11,"d":12}]"#;
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        let off = Techniques::default().set("absent_cells", false).unwrap();
        let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2).techniques(off));
        assert!(!stc.contains('~') && !stc.starts_with("([3]{"), "{stc}");
        // The list is a supersequence of every row's keys, decided the same way every time.
        assert_eq!(repeated_columns_names(json), ["a", "b", "a", "c", "d"]);
    }

    /// `Tape::same_text` agrees with comparing the decoded texts, for every
    /// pair of nodes: keys in the input and in the arena (escaped), numbers,
    /// strings, empty texts and nodes without text.
    #[test]
    fn same_text_is_text_equality() {
        let json = r#"[{"a":1,"b":"a","\u0061":"1","":"","ab":[],"a\"":null},{"b":1,"a":"b","":0,"ab":{}}]"#;
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        let nodes = &doc.nodes;
        let mut equal = 0;
        for i in 0..nodes.len() + 1 {
            for j in 0..nodes.len() + 1 {
                let same = nodes.body(i) == nodes.body(j);
                assert_eq!(nodes.same_text(i, j), same, "{i} {j}");
                equal += usize::from(same && i != j);
            }
        }
        assert!(equal > 20, "{equal}");
    }

    fn repeated_columns_names(json: &str) -> Vec<String> {
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        let nodes = &doc.nodes;
        let Some(Node::Array { end, .. }) = nodes.get(0) else { panic!("an array") };
        let mut rows = Vec::new();
        let mut r = 1;
        while r < end {
            rows.push(r);
            r = nodes.skip(r);
        }
        let columns = repeated_columns(nodes, rows).unwrap();
        columns.iter().map(|&c| nodes.body(c).to_string()).collect()
    }

    /// A GitHub "create file" response (the example of GitHub's REST
    /// documentation): two unrelated objects, `content` and `commit`.
    const GITHUB_CREATE_FILE: &str = include_str!("../tests/data/github-create-file.json");

    /// An array (member `t`) of `rows` objects, each with `id`, `name`, a `user` of `fields` numbers
    /// and a two-member `geo`: with `fields` past the width rule, a row
    /// flattened would be `fields + 4` cells wide.
    fn wide_rows(rows: usize, fields: usize) -> String {
        let row = |n: usize| {
            let user: Vec<String> = (0..fields).map(|f| format!(r#""field_{f}":{}"#, n * 100 + f)).collect();
            format!(
                r#"{{"id":{n},"name":"row {n}","user":{{{}}},"geo":{{"lat":{n}.5,"lon":-{n}.25}}}}"#,
                user.join(",")
            )
        };
        format!(r#"{{"t":[{}]}}"#, (0..rows).map(row).collect::<Vec<_>>().join(","))
    }

    /// The leaf columns of every table version 2 chooses for `json`, and
    /// whether the table has a column group.
    fn table_widths(json: &str) -> Vec<(usize, bool)> {
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        let plan = Plan::new(&doc.nodes, true, Techniques::default());
        plan.tables.iter().map(|t| (leaf_count(t), t.iter().any(|c| !c.sub.is_empty()))).collect()
    }

    /// The width rule (spec 5.5, 5.8): no table version 2 writes has more
    /// than `MAX_ROW_CELLS` cells a row through column groups. Before it,
    /// Twitter statuses flattened to 114-138 cells a row; now the widest
    /// groups keep their objects in their cells, with keys, and narrower
    /// groups stay. A table of the rows' own keys is never cut.
    #[test]
    fn wide_rows_keep_nested_objects_in_cells() {
        // 3 rows of 2 scalars, a 50-member `user` and a 2-member `geo`:
        // flattened, 54 cells; `user` (the widest group) goes back to its
        // cells, `geo` stays a group.
        let json = wide_rows(3, 50);
        let v2 = encode_v(&json, Version::V2);
        assert!(v2.starts_with("{t[3]{id,name,user,geo{lat,lon}}:0,row 0,{field_0:0,"), "{v2}");
        assert_eq!(
            crate::decode_with(&v2, &crate::DecodeOptions::default().version(Version::V2)).unwrap(),
            crate::decode(&json).unwrap()
        );
        // Up to the width, the group stays: 44 + 4 = 48 cells.
        let v2 = encode_v(&wide_rows(3, 44), Version::V2);
        assert!(v2.starts_with("{t[3]{id,name,user{field_0,"), "{v2}");
        assert_eq!(table_widths(&wide_rows(3, 44)), vec![(48, true)]);
        // 49 cells: `geo` alone brings the row within the width (48), and is
        // narrower than `user`, so `geo` goes back to its cells.
        assert_eq!(table_widths(&wide_rows(3, 45)), vec![(48, true)]);
        assert!(encode_v(&wide_rows(3, 45), Version::V2).starts_with("{t[3]{id,name,user{field_0,"));
        // 54 cells: only `user` brings it within the width.
        assert_eq!(table_widths(&wide_rows(3, 50)), vec![(5, true)]);
        // Own keys past the width: still one table (no group to dissolve).
        let flat: Vec<String> = (0..2)
            .map(|n| format!("{{{}}}", (0..60).map(|f| format!(r#""k{f}":{}"#, n + f)).collect::<Vec<_>>().join(",")))
            .collect();
        assert_eq!(table_widths(&format!("[{}]", flat.join(","))), vec![(60, false)]);
        // Every table of the corpus with a group is at most the width.
        for (name, json) in corpus() {
            for (width, grouped) in table_widths(&json) {
                assert!(!grouped || width <= MAX_ROW_CELLS, "{name}: a table of {width} cells a row");
            }
        }
    }

    /// Tables (spec 5.8) hold related objects only: every row shares more
    /// than half of its key names with the other rows, and a keyed table's
    /// rows have two names at least. GitHub's "create file" response
    /// (`content` and `commit` share 3 of their 10 names each) was one keyed
    /// table of 17 columns, mostly `~`, and dearer than version 1.
    #[test]
    fn tables_hold_related_rows_only() {
        let v2 = encode_v(GITHUB_CREATE_FILE, Version::V2);
        assert!(v2.starts_with("{content:{name:"), "{v2}");
        assert!(!v2.contains('~'), "{v2}");
        let cases = [
            // One column: a row `a:x` would read as the member `a: x`.
            (r#"{"a":{"m":"x"},"b":{"m":"y"},"c":{"m":"z"}}"#, "{a:{m:x},b:{m:y},c:{m:z}}"),
            // `x` shares 1 of its 3 names.
            (r#"{"x":{"a":1,"b":2,"c":3},"y":{"a":4,"d":5,"e":6}}"#, "{x:{a:1,b:2,c:3},y:{a:4,d:5,e:6}}"),
            // Every row shares all its names (`e3` lacks one: `~`).
            (r#"{"m":{"e1":{"n":"a","p":1},"e2":{"n":"b","p":2},"e3":{"n":"c"}}}"#, "{m{3}{n,p}:e1:a,1/e2:b,2/e3:c,~}"),
            // Arrays alike: the first row shares 1 of its 2 names, then none.
            (r#"[{"a":1,"b":2},{"a":3}]"#, "[{a:1,b:2},{a:3}]"),
            (r#"[{"a":1},{"b":2}]"#, "[{a:1},{b:2}]"),
            // Optional members: each row's names are all in other rows.
            (
                r#"{"t":[{"id":1,"name":"a","email":"ann"},{"id":2,"email":"bob"},{"id":3,"name":"c"},{"id":4}]}"#,
                "{t[4]{id,name,email}:1,a,ann/2,~,bob/3,c,~/4,~,~}",
            ),
        ];
        for (json, v2) in cases {
            assert_eq!(encode_v(json, Version::V2), v2, "{json}");
        }
    }

    /// The shared corpus (`STC_CORPUS` overrides `../shared/corpus`), sorted.
    fn corpus() -> Vec<(String, String)> {
        let dir = match std::env::var_os("STC_CORPUS") {
            Some(d) => std::path::PathBuf::from(d),
            None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
        };
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read the corpus at {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        assert!(paths.len() >= 14, "expected the shared corpus in {}", dir.display());
        paths.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap())).collect()
    }

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

    /// Version 2 writes qualifying string values bare in every value
    /// position (first character ASCII; in rows and arrays not between two
    /// quoted strings), and nothing else changes: keys, column names and row
    /// keys keep their rules, version 1 quotes every string.
    #[test]
    fn bare_strings_in_every_value_position_v2_only() {
        let cases = [
            (r#""GET""#, "GET"),
            (
                r#"{"m":"GET","n":"-1","t":"true","u":"True story","e":""}"#,
                r#"{m:GET,n:"-1",t:"true",u:True story,e:""}"#,
            ),
            (
                r#"["a b"," a","a ","a,b","a/b","a:b","a~b","é","a\u00a0b"]"#,
                "[a b,\" a\",\"a \",\"a,b\",\"a/b\",\"a:b\",\"a~b\",\"é\",\"a\u{a0}b\"]",
            ),
            // The first character must be ASCII: other scripts stay quoted.
            (r#"{"n":"Леонард","e":"éa","a":"aé"}"#, r#"{n:"Леонард",e:"éa",a:aé}"#),
            // Between two quoted strings (row cells, array items), a string
            // keeps its quotes; next to a bare one, a number or an end, not.
            (
                r#"[{"n":"Ада","c":"Acme","p":"+7","e":"x@y"},{"n":"Ян","c":"Bo","p":"+8","e":"z"}]"#,
                r#"([2]{n,c,p,e}:"Ада","Acme","+7",x@y/"Ян","Bo","+8",z)"#,
            ),
            (r#"["-1","a","-2","b","c","-3",1,"d","-4"]"#, r#"["-1","a","-2",b,c,"-3",1,d,"-4"]"#),
            (r#"{"a":"-1","b":"x","c":"-2"}"#, r#"{a:"-1",b:x,c:"-2"}"#),
            (r#"[{"k":"x","v":"y"},{"k":"z","v":"1"}]"#, r#"([2]{k,v}:x,y/z,"1")"#),
            (r#"{"o":{"r1":{"n":"ada","m":1},"r2":{"n":"~","m":2}}}"#, r#"{o{2}{n,m}:r1:ada,1/r2:"~",2}"#),
            (r#"{"a b":"c d","GET":"GET"}"#, r#"{"a b":c d,GET:GET}"#),
            (r#"["\u0041B","\/"]"#, r#"[AB,"/"]"#),
        ];
        for (json, v2) in cases {
            assert_eq!(encode_v(json, Version::V2), v2, "{json}");
            let back = crate::decode_with(v2, &crate::DecodeOptions::default().version(Version::V2)).unwrap();
            assert_eq!(back, crate::decode(json).unwrap(), "{v2}");
            // Version 1 output has no bare string: a version 1 reader reads it.
            assert_eq!(crate::decode(&encode_v(json, Version::V1)).unwrap(), crate::decode(json).unwrap());
        }
        assert_eq!(encode_v(r#"{"m":"GET"}"#, Version::V1), r#"{m:"GET"}"#);
        // Readable: a bare string never runs into the separators after it.
        let doc =
            Document::parse_json(r#"{"a":"x y","t":[{"k":"p","v":"q r"},{"k":"s","v":"t"}]}"#, &Limits::default())
                .unwrap();
        let readable = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(Profile::Readable));
        assert_eq!(readable, "{a: x y, t[2]{k,v}:\n  p,q r /\n  s,t}");
        // Switched off, version 2 quotes every string again.
        let quoted = Techniques::default().set("bare_strings", false).unwrap();
        let doc = Document::parse_json(r#"{"m":"GET"}"#, &Limits::default()).unwrap();
        let text = doc.encode_with(&EncodeOptions::default().version(Version::V2).techniques(quoted));
        assert_eq!(text, r#"{m:"GET"}"#);
    }

    /// Every corpus document written as version 2 (both profiles) decodes
    /// back with a version 2 reader, and bare strings were written.
    #[test]
    fn v2_round_trips_on_the_corpus() {
        let v2 = crate::DecodeOptions::default().version(Version::V2);
        let mut bare_docs = 0;
        for (name, json) in corpus() {
            let doc = Document::parse_json(&json, &Limits::default()).unwrap();
            let minified = doc.to_json();
            for profile in [Profile::Compact, Profile::Readable] {
                let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(profile));
                let back = crate::decode_with(&stc, &v2).unwrap_or_else(|e| panic!("{name} {profile}: {e}"));
                assert!(back == minified, "{name} {profile}: decodes to a different value");
                if profile == Profile::Compact && stc.len() < doc.encode(profile).len() {
                    bare_docs += 1;
                }
            }
        }
        assert!(bare_docs >= 10, "only {bare_docs} documents got shorter in version 2");
    }

    mod bare_round_trip {
        use super::*;
        use proptest::prelude::*;
        use serde_json::{Map, Value};

        /// Pieces strings are built from: each near a clause of the bare
        /// string rule (spaces, signs, digits, literal look-alikes, the
        /// structural characters, controls, non-ASCII, other whitespace).
        const PIECES: &[&str] = &[
            "a", "Zed", " ", "  ", "-", "+", ".", "0", "7", "1e5", "true", "True", "FALSE", "null", "NaN", "inf",
            "Infinity", "~", "/", ":", ",", "[", "]", "{", "}", "\"", "\\", "#", "'", "é", "日本", "😀", "\u{a0}",
            "\u{85}", "\u{2028}", "\u{3000}", "\u{7f}", "\t", "\n", "\u{200b}",
        ];
        const KEYS: &[&str] = &["a", "b", "id", "true", "x y", "-k", "é", "~", "1"];

        fn edge_string() -> impl Strategy<Value = String> {
            prop::collection::vec(prop::sample::select(PIECES), 0..4).prop_map(|p| p.concat())
        }

        fn scalar() -> BoxedStrategy<Value> {
            prop_oneof![
                6 => edge_string().prop_map(Value::String),
                1 => Just(Value::Null),
                1 => any::<bool>().prop_map(Value::Bool),
                1 => (-1000i64..1000).prop_map(Value::from),
            ]
            .boxed()
        }

        /// Rows over the columns a, b, c, each member present or not: tables,
        /// absent cells and (when the values are objects) column groups.
        fn rows(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Vec<Value>> {
            prop::collection::vec(prop::collection::vec((any::<bool>(), inner), 3), 2..5).prop_map(|rows| {
                rows.into_iter()
                    .map(|cells| {
                        let mut m = Map::new();
                        for ((keep, v), k) in cells.into_iter().zip(["a", "b", "c"]) {
                            if keep {
                                m.insert(k.to_string(), v);
                            }
                        }
                        Value::Object(m)
                    })
                    .collect()
            })
        }

        fn value() -> impl Strategy<Value = Value> {
            scalar().prop_recursive(3, 40, 5, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                    prop::collection::vec((prop::sample::select(KEYS), inner.clone()), 0..4)
                        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
                    rows(inner.clone()).prop_map(Value::Array),
                    rows(inner).prop_map(|rows| {
                        Value::Object(rows.into_iter().enumerate().map(|(n, r)| (format!("r{n}"), r)).collect())
                    }),
                ]
            })
        }

        /// Arrays of objects with the same keys (version 1 tables), cells
        /// of every kind, nested values included.
        fn same_key_rows() -> impl Strategy<Value = Value> {
            let row = prop::collection::vec(value(), 1..4);
            prop::collection::vec(row, 2..5).prop_map(|rows| {
                let width = rows.iter().map(Vec::len).min().unwrap_or(0);
                Value::Array(
                    rows.into_iter()
                        .map(|cells| {
                            Value::Object(
                                cells.into_iter().take(width).zip(KEYS).map(|(v, k)| (k.to_string(), v)).collect(),
                            )
                        })
                        .collect(),
                )
            })
        }

        proptest! {
            /// Version 1 tables priced in one pass (`price_rows_once`) cost
            /// exactly what the texts cost (the `cfg(test)` comparisons in
            /// the planner), and the output decodes to the input.
            #[test]
            fn v1_rows_priced_once_as_their_texts(v in same_key_rows()) {
                let json = serde_json::to_string(&v).unwrap();
                let doc = Document::parse_json(&json, &Limits::default()).unwrap();
                let minified = doc.to_json();
                for profile in [Profile::Compact, Profile::Readable] {
                    let stc = doc.encode(profile);
                    let back = crate::decode(&stc);
                    prop_assert_eq!(back.as_deref(), Ok(minified.as_str()), "{}", stc);
                }
            }

            /// Version 2 encode then version 2 decode is the identity, in
            /// both profiles, for values whose strings sit at the rule's edges.
            #[test]
            fn v2_encode_then_decode_is_the_identity(v in value()) {
                let json = serde_json::to_string(&v).unwrap();
                let doc = Document::parse_json(&json, &Limits::default()).unwrap();
                let minified = doc.to_json();
                let v2 = crate::DecodeOptions::default().version(Version::V2);
                for profile in [Profile::Compact, Profile::Readable] {
                    let stc = doc.encode_with(&EncodeOptions::default().version(Version::V2).profile(profile));
                    let back = crate::decode_with(&stc, &v2);
                    prop_assert_eq!(back.as_deref(), Ok(minified.as_str()), "{}", stc);
                }
            }
        }
    }

    #[test]
    fn readable_tables_one_row_per_line() {
        let json = r#"{"t":[{"b":[{"c":1},{"c":2}],"a":1},{"b":[],"a":2}],"n":1}"#;
        let doc = Document::parse_json(json, &Limits::default()).unwrap();
        let readable = doc.encode(Profile::Readable);
        assert_eq!(readable, "{t[2]{b,a}:\n  [2]{c}:\n    1 /\n    2,1 /\n  [],2, n: 1}");
        // Whitespace only: the same text as compact once the optional spaces and line breaks go.
        let squeezed: String = readable.split(['\n', ' ']).collect();
        assert_eq!(squeezed, doc.encode(Profile::Compact));
        // Every line break follows a header's `:` or a row's `/`.
        for (n, line) in readable.lines().enumerate().take(readable.lines().count() - 1) {
            assert!(line.ends_with(':') || line.ends_with(" /"), "line {n}: {line:?}");
        }
        assert_eq!(crate::decode(&readable).unwrap(), doc.to_json());
    }

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
        // min_saving applies to the counter's numbers: 61 vs 32 bytes saves 48%.
        let bytes = |t: &str| Ok::<usize, ()>(t.len());
        assert_eq!((TABLE.len(), doc.encode(Profile::Compact).len()), (61, 32));
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
