//! Pricing: the estimated token cost of each candidate text of a container
//! (plain, compact, a table), built in scratch text from the children's
//! already-decided costs.

use super::columns::*;
use super::emit::*;
use super::plan::*;
use crate::document::{Node, Tape};
use crate::estimate::{estimate_tokens, two_heads, Chain, Shape};
use crate::identifier::is_identifier;

/// How much scratch text a candidate may gather before what is complete of
/// it is estimated and dropped (`Plan::spill_scratch`).
pub(super) const SCRATCH_SPILL: usize = 16 << 10;

/// Slots of [`Plan::key_shapes`].
pub(super) const KEY_SHAPES: usize = 512;

/// The columns of a table candidate as its prices need them: each key's
/// [`Shape`] (the text `push_key` writes) and the shape of the header after
/// its count (`]{cols}:`), with the key nodes they were found for.
#[derive(Debug, Default)]
pub(super) struct ColumnShapes {
    pub(super) keys: Vec<u32>,
    pub(super) shapes: Vec<Shape>,
    pub(super) tail: Shape,
}

/// The [`Shape`]s of the texts that stand for a value whatever it holds: a
/// container's stand-in `0`, a long string's `x` and `"x"`, and the three
/// literals ([`Plan::value_shape`] needs them for every such value of every
/// row priced).
#[derive(Debug, Clone, Copy)]
pub(super) struct FixedShapes {
    pub(super) stand_in: Shape,
    pub(super) long_bare: Shape,
    pub(super) long_quoted: Shape,
    pub(super) null: Shape,
    pub(super) yes: Shape,
    pub(super) no: Shape,
}

impl FixedShapes {
    pub(super) fn new() -> Self {
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

/// Whether the non-empty array of scalars at `i` (items up to `end`) is
/// written compact (`[N]:a,b`) rather than plain (`[a,b]`): as an object
/// member (or table cell) when that is estimated no dearer (a tie keeps the
/// old rules' compact form), or always under the old fixed rule
/// (`COMPACT_SCALAR_MEMBERS`); elsewhere never. The two texts differ only around their
/// ends, so each is priced with its first and last item (and the member's
/// key, whose `:` merges with what follows): two short estimates, whatever
/// the array's length. `bare`: strings that qualify are priced unquoted.
pub fn scalar_array_compact(
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

impl<'d, 'a> Plan<'d, 'a> {
    /// Decided cost of the container at tape index `i`: its best form's, or
    /// its safe form's.
    pub(super) fn cost(&mut self, i: usize, safe: bool) -> usize {
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
    pub(super) fn price_pending(&mut self, o: usize, i: usize) -> usize {
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

    /// Appends the value at `i` to the scratch text: a scalar as itself, a
    /// container as the one-token stand-in `0`, returning what the container
    /// costs beyond that stand-in (its best form, or its safe one).
    pub(super) fn price_value(&mut self, i: usize, safe: bool) -> usize {
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

    /// Estimated costs of the array at `i` (`len` items up to `end`) as
    /// plain `[a,b]` and as compact `[N]:a,b` (`usize::MAX` when compact
    /// arrays of arrays are off), from each item's [`Shape`] (the text
    /// [`price_value`](Self::price_value) appends: a container's stand-in,
    /// a number's digits, a short string) pushed to both chains in one pass:
    /// no text is built or read again, and a container item costs a lookup.
    /// Exactly what [`price_array_texts`](Self::price_array_texts) gives
    /// (checked in tests); `None` where a shape cannot price its text
    /// exactly (then the texts are priced).
    #[inline(never)]
    pub(super) fn price_array_shapes(&mut self, i: usize, len: usize, end: usize) -> Option<(usize, usize)> {
        let mut plain = Chain::default();
        plain.byte(b'[');
        let mut compact = Chain::default();
        compact.byte(b'[');
        compact.push(&Shape::digits(itoa::Buffer::new().format(len).len()));
        compact.byte(b']');
        compact.byte(b':');
        // Items all containers (arrays of arrays or of objects): each is the
        // stand-in, so both chains take it `len` times (`Chain::repeat`).
        let (mut extra, mut j, mut containers) = (0usize, i + 1, true);
        while j < end && containers {
            containers = self.is_container(j);
            if containers {
                extra = extra.saturating_add(self.cost(j, false).saturating_sub(1));
            }
            j = self.skip(j);
        }
        if containers {
            let stand_in = self.fixed.stand_in;
            for chain in [&mut plain, &mut compact] {
                chain.push(&stand_in);
                chain.repeat(b',', &stand_in, len - 1);
            }
            plain.byte(b']');
            let plain = plain.finish()?.saturating_add(extra);
            let compact = if self.t.arrays_of_arrays { compact.finish()?.saturating_add(extra) } else { usize::MAX };
            return Some((plain, compact));
        }
        let (mut extra, mut j) = (0usize, i + 1);
        while j < end {
            if j > i + 1 {
                plain.byte(b',');
                compact.byte(b',');
            }
            let (shape, more) = self.value_shape(j);
            plain.push(&shape);
            compact.push(&shape);
            extra = extra.saturating_add(more);
            j = self.skip(j);
        }
        plain.byte(b']');
        let plain = plain.finish()?.saturating_add(extra);
        let compact = if self.t.arrays_of_arrays { compact.finish()?.saturating_add(extra) } else { usize::MAX };
        Some((plain, compact))
    }

    /// [`price_array_shapes`](Self::price_array_shapes) from the texts: plain
    /// built and estimated, compact priced from plain's text when it is all
    /// here (`estimate::two_heads`), else built and priced again.
    pub(super) fn price_array_texts(&mut self, i: usize, len: usize, end: usize) -> (usize, usize) {
        self.scratch.push('[');
        let extra = self.push_items(i, end);
        if self.t.arrays_of_arrays && self.partial.is_empty() {
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
        }
    }

    /// Estimated cost of the array at `i` as `[N]:a,b`.
    pub(super) fn price_compact(&mut self, i: usize, end: usize) -> usize {
        self.scratch.push('[');
        let len = match self.nodes.get(i) {
            Some(Node::Array { len, .. }) => len,
            _ => 0,
        };
        push_count(&mut self.scratch, len);
        self.scratch.push_str("]:");
        let extra = self.push_items(i, end);
        self.priced(extra)
    }

    /// Appends the items of the array at `i` (up to `end`) to the scratch
    /// text, separated by `,` ([`price_value`](Self::price_value) each),
    /// returning what its containers cost beyond their stand-ins.
    pub(super) fn push_items(&mut self, i: usize, end: usize) -> usize {
        let (mut extra, mut j) = (0, i + 1);
        while j < end {
            self.spill_scratch();
            if j > i + 1 {
                self.scratch.push(',');
            }
            extra += self.price_value(j, false);
            j = self.skip(j);
        }
        extra
    }

    /// Estimates the scratch text read so far once it holds [`SCRATCH_SPILL`]
    /// bytes and keeps only its unread tail (one estimator piece): a big
    /// candidate (a table of 100,000 rows) is priced row by row, the same
    /// cost as from one text, without ever holding that text.
    #[inline]
    pub(super) fn spill_scratch(&mut self) {
        if self.scratch.len() >= SCRATCH_SPILL {
            let read = self.partial.feed(&self.scratch);
            self.scratch.drain(..read);
        }
    }

    /// Estimated tokens of the scratch text (and of what
    /// [`spill_scratch`](Self::spill_scratch) read of it), plus `extra`;
    /// clears the scratch.
    pub(super) fn priced(&mut self, extra: usize) -> usize {
        let cost = std::mem::take(&mut self.partial).finish(&self.scratch).saturating_add(extra);
        self.scratch.clear();
        cost
    }

    /// The shape of the value at `i` as candidate texts hold it (the text
    /// [`price_value`](Self::price_value) appends), and what a container
    /// costs beyond its stand-in.
    #[inline(always)]
    pub(super) fn value_shape(&mut self, i: usize) -> (Shape, usize) {
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
    pub(super) fn price_rows_once(
        &mut self,
        i: usize,
        len: usize,
        end: usize,
        columns: &[Column],
    ) -> Option<(usize, bool)> {
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
    pub(super) fn price_rows_with(
        &mut self,
        i: usize,
        len: usize,
        end: usize,
        keys: &[Shape],
    ) -> Option<(usize, bool)> {
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
    pub(super) fn price_rows_as_objects(&mut self, i: usize, end: usize, keys: &[Shape]) {
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

    /// The [`Shape`] of the key at `k` as [`push_key`] writes it, found
    /// once per key text among the slots of [`Plan::key_shapes`] (a
    /// document's objects repeat a few keys; a slot holds the last key text
    /// met whose bytes hash to it).
    #[inline]
    pub(super) fn key_shape(&mut self, k: usize) -> Shape {
        let body = self.nodes.body(k);
        let b = body.as_bytes();
        let hash = match (b.first(), b.last()) {
            (Some(&first), Some(&last)) => {
                b.len().wrapping_mul(0x9e37) ^ usize::from(first).wrapping_mul(31) ^ usize::from(last) << 4
            }
            _ => 0,
        };
        let slot = hash % KEY_SHAPES;
        if let Some(&(at, shape)) = self.key_shapes.get(slot) {
            if at != u32::MAX && self.nodes.same_text(at as usize, k) {
                return shape;
            }
        }
        let shape = if is_identifier(body) {
            Shape::of(b)
        } else {
            let mut text = std::mem::take(&mut self.key_text);
            text.clear();
            push_key(&mut text, body);
            let shape = Shape::of(text.as_bytes());
            self.key_text = text;
            shape
        };
        if let Some(entry) = self.key_shapes.get_mut(slot) {
            *entry = (index32(k), shape);
        }
        shape
    }

    /// [`price_object`](Self::price_object) from the keys' shapes (found
    /// once per key text, [`key_shape`](Self::key_shape)) and the values'
    /// ([`value_shape`](Self::value_shape)): no text is built. `None` where
    /// a shape cannot price the text exactly (a key meeting its array with
    /// no `:` between, where their bytes could merge).
    #[inline(never)]
    pub(super) fn price_object_shapes(&mut self, i: usize, end: usize) -> Option<usize> {
        let mut object = Chain::default();
        object.byte(b'{');
        let (mut extra, mut k) = (0usize, i + 1);
        while k < end {
            if k > i + 1 {
                object.byte(b',');
            }
            let key = self.key_shape(k);
            object.push(&key);
            let v = k + 1;
            if !matches!(self.nodes.get(v), Some(Node::Array { .. })) {
                object.byte(b':');
            }
            let (shape, more) = self.value_shape(v);
            object.push(&shape);
            extra = extra.saturating_add(more);
            k = self.skip(v);
        }
        object.byte(b'}');
        Some(object.finish()?.saturating_add(extra))
    }

    /// Estimated cost of the object at `i` as `{k:v,k2[N]:..}`; a member
    /// array costs what its own form costs (its `:`, if any, merges with the
    /// bracket that follows). Version 2 prices it from shapes
    /// ([`price_object_shapes`](Self::price_object_shapes)) where they can
    /// say (in tests, both ways, which must agree), else from its text.
    pub(super) fn price_object(&mut self, i: usize, end: usize) -> usize {
        if self.v2 {
            if let Some(cost) = self.price_object_shapes(i, end) {
                #[cfg(test)]
                assert_eq!(cost, self.price_object_text(i, end), "object at {i}");
                return cost;
            }
        }
        self.price_object_text(i, end)
    }

    /// [`price_object`](Self::price_object) from its text.
    pub(super) fn price_object_text(&mut self, i: usize, end: usize) -> usize {
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

    /// Writes `{a,b{c}}` to the scratch text.
    pub(super) fn price_columns(&mut self, columns: &[Column]) {
        let mut out = std::mem::take(&mut self.scratch);
        push_columns(&mut out, self.nodes, columns);
        self.scratch = out;
    }

    /// Estimated cost of a table: header, then the rows (`(row key, row
    /// object)`), each cell priced; the last cell of every row but the last
    /// is priced in its safe form.
    pub(super) fn price_table(&mut self, rows: Rows, columns: &[Column], dense: bool) -> usize {
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
