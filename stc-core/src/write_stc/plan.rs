//! The planner: every container's form, decided children first by walking
//! the tape backwards, kept packed in side tables by container ordinal.

use super::columns::*;
use super::emit::*;
use super::price::*;
use crate::document::{Node, Tape};
use crate::estimate::{Partial, Shape};
use crate::options::Techniques;

/// Whether a value whose text ends with a table body may be the last cell of
/// a row that is not the last row (`[2]{a}: [1]{c}:2 / 3`). Counts drive
/// reading (spec 4.1, design rule D.1), so a decoder knows that the `/` after
/// the inner table's last declared row belongs to the outer table. Readers
/// before that rule took it for one more inner row; `false` would keep such
/// values out of that position (in a form that ends with `]` or `}`).
pub(super) const TRAILING_TABLE_CELLS: bool = true;

/// Version 1's old fixed rule for an object member whose value is a
/// non-empty array of scalars: always compact (`tags[2]: "a","b"`). Off: the
/// form is chosen by estimated cost like every other container's, which
/// gives plain JSON (`tags: ["a","b"]`: one merged `:["` against `[`, the
/// count and `]:"`). Measured on the benchmark documents (issue 16, session
/// 4), plain is cheaper on every document that has such arrays, with both
/// OpenAI tokenizers: 2,046 o200k / 2,045 cl100k tokens on the nested class
/// in version 1, none dearer.
pub(super) const COMPACT_SCALAR_MEMBERS: bool = false;

/// The form chosen for a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Form {
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
    pub(super) fn pack(self) -> u32 {
        match self {
            Form::Plain => 0,
            Form::Compact => 1,
            Form::Table(t) => t.saturating_add(2),
        }
    }

    pub(super) fn unpack(packed: u32) -> Form {
        match packed {
            0 => Form::Plain,
            1 => Form::Compact,
            t => Form::Table(t - 2),
        }
    }
}

/// A cost as stored in the plan: `u32`, saturating (only a container of more
/// than four billion estimated tokens could reach the cap).
pub(super) fn stored(cost: usize) -> u32 {
    u32::try_from(cost).unwrap_or(PENDING - 1).min(PENDING - 1)
}

/// The stored cost of a version 2 object that is an array's element and is
/// priced only when first asked for ([`Plan::cost`]), or with its array's
/// table candidate in one pass ([`Plan::price_rows_once`]).
pub(super) const PENDING: u32 = u32::MAX;

/// A container's best form and its estimated cost, and the best form whose
/// text does not end with a table body ("safe" before a row's `/`), while it
/// is being decided; the plan keeps it packed (see [`Plan`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Choice {
    pub(super) form: Form,
    pub(super) cost: usize,
    pub(super) safe: Form,
    pub(super) safe_cost: usize,
}

/// The encoder's decisions for one document, in side tables indexed by
/// container ordinal (the rank of a container among the tape's containers,
/// in document order), never by tape index: a scalar or key costs the plan
/// nothing, a container 12 bytes while planning (its tape index as `u32`,
/// its packed form and its cost) and 8 while writing (the costs are dropped
/// once every form is decided). Plus the column lists of the tables chosen.
pub(super) struct Plan<'d, 'a> {
    pub(super) nodes: &'d Tape<'a>,
    pub(super) v2: bool,
    /// The techniques that may be used (all, except in benchmarks).
    pub(super) t: Techniques,
    /// Version 2 with bare strings: every string value that qualifies
    /// ([`is_bare_string`](crate::strings::is_bare_string)) is written, and priced, without quotes.
    pub(super) bare: bool,
    /// Version 2 with bare strings: bit `i` (of word `i / 64`) is set when
    /// the node at `i` is a string value that [`writes_bare`]; decided once
    /// per string (a string is looked at by every candidate that holds it
    /// and by the writer, for itself and for its neighbours). One bit a node;
    /// empty otherwise.
    pub(super) bare_bits: Vec<u64>,
    /// Tape index of every container, ascending.
    /// (`u32`: a tape holds fewer than 2^32 nodes.)
    pub(super) containers: Vec<u32>,
    /// Packed [`Form`] of each container (by ordinal).
    pub(super) forms: Vec<u32>,
    /// Estimated cost of each container's best form (by ordinal); emptied
    /// before writing.
    pub(super) costs: Vec<u32>,
    /// Safe form and cost of each container (by ordinal); only kept when
    /// [`TRAILING_TABLE_CELLS`] is off (otherwise no text needs a safe form).
    pub(super) safe: Vec<(u32, u32)>,
    /// Ordinal of the container being decided: the containers it prices are
    /// all after it, so ordinal searches start there.
    pub(super) base: usize,
    /// Ordinal of the container found last.
    pub(super) hint: usize,
    pub(super) tables: Vec<Vec<Column>>,
    /// For each table, whether it is dense: no group, and every row has a
    /// member for every column, so its cells are its members in order (read
    /// without comparing keys; see [`dense_cells`]).
    pub(super) dense: Vec<bool>,
    /// Scratch text whose estimated tokens price a candidate.
    pub(super) scratch: String,
    /// The scratch text of a pending object priced while a candidate's
    /// text is in [`scratch`](Self::scratch) ([`Plan::price_pending`]).
    pub(super) pending_scratch: String,
    /// What the scratch text held before its unread tail (see
    /// [`spill_scratch`](Self::spill_scratch)), already estimated.
    pub(super) partial: Partial,
    /// The shapes of the fixed texts a value can stand as, found once.
    pub(super) fixed: FixedShapes,
    /// The key shapes of the last table priced by
    /// [`price_rows_once`](Self::price_rows_once).
    pub(super) column_shapes: ColumnShapes,
    /// The shapes of keys priced in objects ([`Plan::key_shape`]), by key
    /// text: direct-mapped, [`KEY_SHAPES`] slots of (a key node holding
    /// the text, its shape); `u32::MAX` marks an empty slot.
    pub(super) key_shapes: Vec<(u32, Shape)>,
    /// The text of a key that needs quotes, while its shape is found.
    pub(super) key_text: String,
}

/// The rows of a table candidate, read off the tape as they are priced
/// (no list of them is kept): the elements of an array, or (`keyed`) the
/// members of an object, from the node `first` up to `end`, `len` of them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rows {
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) len: usize,
    pub(super) keyed: bool,
}

impl Rows {
    /// Each row as `(its key, if keyed; the row object)`.
    pub(super) fn iter<'t>(self, nodes: &'t Tape<'_>) -> impl Iterator<Item = (Option<usize>, usize)> + 't {
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
pub(super) fn index32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// [`Plan::bare_bits`] of a tape: one pass, each string value judged once.
pub(super) fn bare_bits(nodes: &Tape<'_>) -> Vec<u64> {
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

/// Ordinal of the container at tape index `i` in `containers` (ascending tape
/// indices), searched from ordinal `from` on: a gallop, so a container close
/// after `from` is found in a few steps. Falls back to a search of the whole
/// list if `i` lies before `from`.
#[inline]
pub(super) fn ordinal(containers: &[u32], from: usize, i: usize) -> usize {
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
pub(super) fn ordinal_search(containers: &[u32], from: usize, i: u32) -> usize {
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

impl<'d, 'a> Plan<'d, 'a> {
    /// Decides every container's form, children before parents: the tape is
    /// in document order, so walking it backwards visits each child before
    /// its container, with no recursion and no stack at all.
    #[inline(never)]
    pub(super) fn new(nodes: &'d Tape<'a>, v2: bool, t: Techniques) -> Self {
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
            key_shapes: if v2 { vec![(u32::MAX, Shape::default()); KEY_SHAPES] } else { Vec::new() },
            key_text: String::new(),
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
    pub(super) fn set(&mut self, o: usize, choice: Choice) {
        self.forms[o] = choice.form.pack();
        self.costs[o] = stored(choice.cost);
        if let Some(safe) = self.safe.get_mut(o) {
            *safe = (choice.safe.pack(), stored(choice.safe_cost));
        }
    }

    /// Ordinal of the container at tape index `i` (after the one being
    /// decided), searched from the last one found when that one comes
    /// before it (a container's children are priced in order).
    pub(super) fn ordinal(&mut self, i: usize) -> usize {
        let from = if self.hint > self.base && self.containers.get(self.hint).is_some_and(|&c| c as usize <= i) {
            self.hint
        } else {
            self.base
        };
        let o = ordinal(&self.containers, from, i);
        self.hint = o;
        o
    }

    /// Index of the node after the value at `i`.
    #[inline]
    pub(super) fn skip(&self, i: usize) -> usize {
        self.nodes.skip(i)
    }

    pub(super) fn is_container(&self, i: usize) -> bool {
        self.nodes.is_container(i)
    }

    /// Whether the node at `i` is a string value written bare when its
    /// position allows ([`writes_bare`], looked up in [`Plan::bare_bits`]).
    #[inline]
    pub(super) fn bare_at(&self, i: usize) -> bool {
        self.bare_bits.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// [`write_scalar`] of the node at `i`, a string bare when `bare` (its
    /// position allows it) and it qualifies.
    #[inline]
    pub(super) fn write_scalar_at(&self, out: &mut String, i: usize, bare: bool) {
        match self.nodes.get(i) {
            // The usual scalars first, without `write_scalar`'s second match.
            Some(Node::Number(n)) => out.push_str(n),
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
    pub(super) fn sandwiched_at(&self, prev: Option<usize>, next: Option<usize>) -> bool {
        let quoted = |i: Option<usize>| {
            i.is_some_and(|i| matches!(self.nodes.get(i), Some(Node::String(_))) && !(self.bare && self.bare_at(i)))
        };
        self.bare && quoted(prev) && quoted(next)
    }

    pub(super) fn array(&mut self, o: usize, i: usize, len: usize, end: usize) {
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
        // Plain `[a,b]` and compact `[N]:a,b` (safe when its last item is
        // written safe): from the items' shapes, both in one pass with no
        // text built (`price_array_shapes`); where a shape cannot say, from
        // their texts.
        let shapes = self.price_array_shapes(i, len, end);
        let (plain, compact) = match shapes {
            Some(both) => {
                #[cfg(test)]
                assert_eq!(both, self.price_array_texts(i, len, end), "array at {i}");
                both
            }
            None => self.price_array_texts(i, len, end),
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

    pub(super) fn object(&mut self, o: usize, i: usize, len: usize, end: usize) {
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

    /// The element indices of the array at `i`.
    pub(super) fn elements(&self, i: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::options::{EncodeOptions, Limits, Profile, Techniques, Version};

    use crate::write_stc::writer::write;

    use crate::write_stc::tests::{encode_v, TABLE};

    /// Tables near the lower bound of `price_rows_once` (two or three rows,
    /// short or empty values, keys that are not identifiers, a key ending in
    /// a digit before an array, non-solid values like `""` and `"-"`): under
    /// `cfg(test)` every table the bound declares sure to win is also priced
    /// the full way and must win, every row's cost is checked against
    /// `price_object` (the same shapes are compared with the per-node
    /// planner by `tests/it/reference.rs`).
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
                    let stc = write(&doc.nodes, profile, version, Techniques::default());
                    let back = crate::decode_with(&stc, &crate::DecodeOptions::default().version(version));
                    assert_eq!(back, Ok(doc.to_json()), "{json}: {version:?} {profile:?}");
                }
            }
        }
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
}
