//! The test oracle of the STC writer: the encoder as it was before its
//! planner was made compact (side tables by container ordinal), the
//! per-node plan of commit 6788adf. `tests/it/reference.rs` checks that the
//! writer writes byte-identical text on every corpus document and on
//! hand-made shapes, in both versions and both profiles. It reads a
//! document's tape and shares the writer's scalar, column and width rules
//! through `stc_core::__oracle`.
#![allow(dead_code)]

use stc_core::__oracle::{estimate_tokens, is_identifier, Node, Tape};
use stc_core::{Profile, Version};

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

/// Most columns a table may have (wider sets of keys stay plain objects).
const MAX_COLUMNS: usize = 256;

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

/// A container's best form and its estimated cost, and the best form whose
/// text does not end with a table body ("safe" before a row's `/`).
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

/// The encoder's decisions for one document: a [`Choice`] per container
/// (indexed like the tape) and the column lists of the tables chosen.
struct Plan<'d, 'a> {
    nodes: &'d Tape<'a>,
    v2: bool,
    choice: Vec<Choice>,
    tables: Vec<Vec<Column>>,
    /// Scratch text whose estimated tokens price a candidate.
    scratch: String,
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
    fn new(nodes: &'d Tape<'a>, v2: bool) -> Self {
        let mut plan = Plan {
            nodes,
            v2,
            choice: vec![Choice::default(); nodes.len()],
            tables: Vec::new(),
            scratch: String::new(),
        };
        for i in (0..nodes.len()).rev() {
            match nodes.get(i) {
                Some(Node::Array { len, end }) => plan.array(i, len, end),
                Some(Node::Object { len, end }) => plan.object(i, len, end),
                _ => {}
            }
        }
        plan
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
                let c = &self.choice[i];
                (if safe { c.safe_cost } else { c.cost }).saturating_sub(1)
            }
            node => {
                stc_core::__oracle::price_scalar(&mut self.scratch, node, self.v2);
                0
            }
        }
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
            if j > i + 1 {
                self.scratch.push(',');
            }
            extra += self.price_value(j, false);
            j = self.skip(j);
        }
        self.priced(extra)
    }

    /// Estimated tokens of the scratch text, plus `extra`; clears the scratch.
    fn priced(&mut self, extra: usize) -> usize {
        let cost = estimate_tokens(&self.scratch).saturating_add(extra);
        self.scratch.clear();
        cost
    }

    fn array(&mut self, i: usize, len: usize, end: usize) {
        if len == 0 {
            self.choice[i] = Choice { form: Form::Plain, cost: 1, safe: Form::Plain, safe_cost: 1 };
            return;
        }
        let scalars_only = len == end - i - 1 && !(i + 1..end).any(|j| self.nodes.is_container(j));
        if scalars_only {
            // Items all scalars: plain or compact by the current planner's rule.
            let compact = stc_core::__oracle::scalar_array_compact(self.nodes, i, len, end, self.v2, &mut self.scratch);
            let form = if compact { Form::Compact } else { Form::Plain };
            self.choice[i] = Choice { form, cost: 1 + len, safe: form, safe_cost: 1 + len };
            return;
        }
        // Plain: `[a,b]`.
        self.scratch.push('[');
        let mut extra = 0;
        let mut j = i + 1;
        while j < end {
            if j > i + 1 {
                self.scratch.push(',');
            }
            extra += self.price_value(j, false);
            j = self.skip(j);
        }
        self.scratch.push(']');
        let plain = self.priced(extra);
        let mut best = Choice { form: Form::Plain, cost: plain, safe: Form::Plain, safe_cost: plain };
        // Compact: `[N]:a,b`; safe when its last item is written safe.
        let compact = self.price_compact(i, end);
        let mut last = i + 1;
        while self.skip(last) < end {
            last = self.skip(last);
        }
        let compact_safe = if self.is_container(last) {
            compact - self.choice[last].cost + self.choice[last].safe_cost
        } else {
            compact
        };
        if compact < best.cost {
            (best.form, best.cost) = (Form::Compact, compact);
        }
        if compact_safe < best.safe_cost {
            (best.safe, best.safe_cost) = (Form::Compact, compact_safe);
        }
        // Table: `[N]{cols}:cells/cells`, never safe. One row saves no key
        // (the tokenizers measured it a token or two dearer than the estimate).
        if len < 2 {
            self.choice[i] = best;
            return;
        }
        if let Some(columns) = self.array_columns(i, len, end) {
            let rows: Vec<(Option<usize>, usize)> = self.elements(i, end).map(|r| (None, r)).collect();
            let cost = self.price_table(&rows, &columns, false);
            if cost < best.cost {
                best.form = Form::Table(self.tables.len() as u32);
                best.cost = cost;
                self.tables.push(columns);
            }
        }
        self.choice[i] = best;
    }

    fn object(&mut self, i: usize, len: usize, end: usize) {
        // Plain: `{k:v,k2[N]:..}`; a member array costs what its own form
        // costs (its `:`, if any, merges with the bracket that follows).
        self.scratch.push('{');
        let (mut extra, mut k) = (0, i + 1);
        while k < end {
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
        let plain = self.priced(extra);
        let mut best = Choice { form: Form::Plain, cost: plain, safe: Form::Plain, safe_cost: plain };
        // Keyed table (v2): `{N}{cols}:key:cells/key:cells`.
        if self.v2
            && len > 1
            && self.members_are_objects(i, end)
            && self.rows_related(&self.member_values(i, end), true)
        {
            let mut rows = Vec::with_capacity(len);
            let mut k = i + 1;
            while k < end {
                rows.push((Some(k), k + 1));
                k = self.skip(k + 1);
            }
            let values: Vec<usize> = rows.iter().map(|r| r.1).collect();
            if let Some(columns) = self.infer(&values, 0) {
                let cost = self.price_table(&rows, &columns, true);
                if cost < best.cost {
                    best.form = Form::Table(self.tables.len() as u32);
                    best.cost = cost;
                    self.tables.push(columns);
                }
            }
        }
        self.choice[i] = best;
    }

    /// The member values of the object at `i`.
    fn member_values(&self, i: usize, end: usize) -> Vec<usize> {
        let mut values = Vec::new();
        let mut k = i + 1;
        while k < end {
            values.push(k + 1);
            k = self.skip(k + 1);
        }
        values
    }

    /// Spec 5.8's related rows: every row with members shares more than
    /// half of its key names with the other rows (a keyed table's rows: and
    /// two names at least among them). Written apart from
    /// `write_stc::Plan::rows_related`, with a sorted set of names per row.
    fn rows_related(&self, rows: &[usize], keyed: bool) -> bool {
        let mut sets: Vec<Vec<&str>> = Vec::new();
        for &r in rows {
            let row_end = self.skip(r);
            let mut set: Vec<&str> = Vec::new();
            let mut m = r + 1;
            while m < row_end {
                set.push(self.nodes.body(m));
                m = self.skip(m + 1);
            }
            set.sort_unstable();
            set.dedup();
            sets.push(set);
        }
        let mut all: Vec<&str> = sets.concat();
        all.sort_unstable();
        all.dedup();
        if all.len() > MAX_COLUMNS || (keyed && all.len() < 2) {
            return false;
        }
        sets.iter().enumerate().all(|(n, set)| {
            let shared = set
                .iter()
                .filter(|name| sets.iter().enumerate().any(|(o, other)| o != n && other.binary_search(name).is_ok()))
                .count();
            set.is_empty() || 2 * shared > set.len()
        })
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
        let rows: Vec<usize> = self.elements(i, end).collect();
        if self.v2 && self.rows_related(&rows, false) {
            if let Some(columns) = self.infer(&rows, 0) {
                return Some(columns);
            }
            // Duplicate keys rule out `~`, not version 1's identical rows.
        }
        let first = *rows.first()?;
        if !matches!(self.nodes.get(first), Some(Node::Object { .. })) || len == 0 {
            return None;
        }
        let keys = self.keys(first);
        if keys.is_empty() || keys.len() > MAX_COLUMNS {
            return None;
        }
        for &r in &rows[1..] {
            if !matches!(self.nodes.get(r), Some(Node::Object { len, .. }) if len == keys.len()) {
                return None;
            }
            let end = self.skip(r);
            let mut k = r + 1;
            for &key in &keys {
                if k >= end || self.nodes.body(k) != self.nodes.body(key) {
                    return None;
                }
                k = self.skip(k + 1);
            }
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
    /// become `~`), no duplicate keys in a row, and a column group wherever
    /// every present value is a non-empty object that fits one and the group
    /// is estimated cheaper than writing those objects as cells. `None` if
    /// the rows cannot share a column list. Recursion is bounded by
    /// [`MAX_GROUP_DEPTH`].
    fn infer(&mut self, rows: &[usize], depth: usize) -> Option<Vec<Column>> {
        // The merged column list, as key nodes.
        let mut columns: Vec<usize> = Vec::new();
        // Their names, read from the tape once.
        let nodes = self.nodes;
        let mut names: Vec<&str> = Vec::new();
        for &r in rows {
            let Some(Node::Object { end, .. }) = self.nodes.get(r) else {
                return None;
            };
            let mut pos = 0;
            let mut k = r + 1;
            while k < end {
                let key = nodes.body(k);
                match names.iter().position(|&n| n == key) {
                    Some(at) if at >= pos => pos = at + 1,
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
        self.finish_columns(rows, &columns, depth)
    }

    /// Columns to column list, each column's cells by the embedding
    /// ([`column_cell`](stc_core::__oracle::column_cell)), groups where they pay.
    fn finish_columns(&mut self, rows: &[usize], columns: &[usize], depth: usize) -> Option<Vec<Column>> {
        let mut out = Vec::with_capacity(columns.len());
        for (j, &key) in columns.iter().enumerate() {
            let mut column = Column { key, sub: Vec::new() };
            if depth < MAX_GROUP_DEPTH {
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

    /// Repeated column names ([`repeated_columns`](stc_core::__oracle::repeated_columns)).
    fn infer_repeated(&mut self, rows: &[usize], depth: usize) -> Option<Vec<Column>> {
        let columns = stc_core::__oracle::repeated_columns(self.nodes, rows.iter().copied())?;
        self.finish_columns(rows, &columns, depth)
    }

    /// Sub-columns for column `j` of `columns` over `rows` as a group, if every present
    /// value is a non-empty object, they fit one column list, and the group
    /// is estimated cheaper than the objects as cells.
    fn group(&mut self, rows: &[usize], columns: &[usize], j: usize, depth: usize) -> Option<Vec<Column>> {
        let key = self.nodes.body(columns[j]);
        let mut values = Vec::with_capacity(rows.len());
        let mut cells = Vec::with_capacity(rows.len());
        for &r in rows {
            match stc_core::__oracle::column_cell(self.nodes, r, columns, j) {
                Some(v) => match self.nodes.get(v) {
                    Some(Node::Object { len, .. }) if len > 0 => {
                        values.push(v);
                        cells.push(Some(v));
                    }
                    _ => return None,
                },
                None => cells.push(None),
            }
        }
        if values.is_empty() {
            return None;
        }
        let sub = self.infer(&values, depth + 1)?;
        // As cells: each object's own cost, or `~`.
        let mut as_cells = 0;
        for cell in &cells {
            as_cells += match cell {
                Some(v) => self.choice[*v].cost,
                None => 1,
            };
        }
        // As a group: the sub-header once, then each row's leaf cells.
        let mut extra = 0;
        self.scratch.push_str(key);
        self.price_columns(&sub);
        let mut leaves = Vec::new();
        for cell in &cells {
            leaves.clear();
            self.cells(*cell, &sub, &mut leaves);
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

    /// Writes `{a,b{c}}` to the scratch text.
    fn price_columns(&mut self, columns: &[Column]) {
        let mut out = std::mem::take(&mut self.scratch);
        push_columns(&mut out, self.nodes, columns);
        self.scratch = out;
    }

    /// The leaf cells of one row (or of an absent group: all `~`).
    fn cells(&self, row: Option<usize>, columns: &[Column], out: &mut Vec<Cell>) {
        row_cells(self.nodes, row, columns, out);
    }

    /// Estimated cost of a table: header, then the rows (`(row key, row
    /// object)`), each cell priced; the last cell of every row but the last
    /// is priced in its safe form.
    fn price_table(&mut self, rows: &[(Option<usize>, usize)], columns: &[Column], keyed: bool) -> usize {
        self.scratch.push(if keyed { '{' } else { '[' });
        push_count(&mut self.scratch, rows.len());
        self.scratch.push(if keyed { '}' } else { ']' });
        self.price_columns(columns);
        self.scratch.push(':');
        let mut extra = 0;
        let mut leaves = Vec::new();
        for (n, &(key, row)) in rows.iter().enumerate() {
            if n > 0 {
                self.scratch.push('/');
            }
            if let Some(k) = key {
                push_key(&mut self.scratch, self.nodes.body(k));
                self.scratch.push(':');
            }
            leaves.clear();
            self.cells(Some(row), columns, &mut leaves);
            let last_row = n + 1 == rows.len();
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

/// The width rule (spec 5.5, 5.8; `write_stc::MAX_ROW_CELLS`): while the
/// list has more leaf columns than that and a group, a group becomes a plain
/// column: of the groups that alone bring the row within the width the
/// narrowest, else the widest; the first of equals.
fn narrow(columns: &mut [Column]) {
    fn leaves(columns: &[Column]) -> usize {
        columns.iter().map(|c| if c.sub.is_empty() { 1 } else { leaves(&c.sub) }).sum()
    }
    let max = stc_core::__oracle::MAX_ROW_CELLS;
    loop {
        let width = leaves(columns);
        if width <= max {
            break;
        }
        // (leaf columns, column) of each candidate.
        let mut narrowest: Option<(usize, usize)> = None;
        let mut widest: Option<(usize, usize)> = None;
        for (n, column) in columns.iter().enumerate() {
            if column.sub.is_empty() {
                continue;
            }
            let w = leaves(&column.sub);
            if width + 1 - w <= max && narrowest.is_none_or(|(best, _)| w < best) {
                narrowest = Some((w, n));
            }
            if widest.is_none_or(|(best, _)| w > best) {
                widest = Some((w, n));
            }
        }
        match narrowest.or(widest) {
            Some((_, n)) => columns[n].sub.clear(),
            None => break,
        }
    }
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
/// row or group is absent). A member whose key does not come next is absent;
/// the plan guarantees every member is matched in order.
fn row_cells(nodes: &Tape<'_>, row: Option<usize>, columns: &[Column], out: &mut Vec<Cell>) {
    let skip = |i: usize| nodes.skip(i);
    let (mut k, end) = match row {
        Some(r) => (r + 1, skip(r)),
        None => (0, 0),
    };
    for column in columns {
        let present = k < end && nodes.body(k) == nodes.body(column.key);
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
}

impl Writer<'_, '_, '_> {
    fn run(&mut self) {
        self.tasks.push(Task::Value { i: 0, member: false, safe: false, level: 0 });
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Value { i, member, safe, level } => self.value(i, member, safe, level),
                Task::Text(text) => self.out.push_str(text),
                Task::Scalar { i, bare } => {
                    stc_core::__oracle::write_scalar(&mut self.out, self.plan.nodes.get(i), bare)
                }
                Task::Items { mut next, mut left, mut first, compact, safe_last, level } => {
                    // Scalars straight away; a container waits on the stack.
                    // `prev`: the item before, if a scalar (after a container,
                    // the task resumes with none).
                    let mut prev = None;
                    while left > 0 {
                        if !first {
                            self.out.push_str(if compact { "," } else { self.style.item });
                        }
                        first = false;
                        if !self.plan.is_container(next) {
                            let after = (left > 1).then_some(next + 1);
                            let bare = self.plan.v2 && !sandwiched(self.plan.nodes, prev, after, true);
                            stc_core::__oracle::write_scalar(&mut self.out, self.plan.nodes.get(next), bare);
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
                    while next < end {
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
        let choice = &self.plan.choice[i];
        let form = if safe { choice.safe } else { choice.form };
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
        row_cells(self.plan.nodes, Some(row), &self.plan.tables[table as usize], &mut cells);
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
                    stc_core::__oracle::write_scalar(&mut self.out, self.plan.nodes.get(v), bare);
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
    /// qualifies: version 2, and not [`sandwiched`]
    /// between its row neighbours.
    fn cell_bare(&self, cells: &[Cell], m: usize) -> bool {
        let at = |n: Option<usize>| match n.and_then(|n| cells.get(n)) {
            Some(Cell::Value(v)) => Some(*v),
            _ => None,
        };
        self.plan.v2 && !sandwiched(self.plan.nodes, at(m.checked_sub(1)), at(Some(m + 1)), true)
    }

    fn scalar(&mut self, i: usize) {
        stc_core::__oracle::write_scalar(&mut self.out, self.plan.nodes.get(i), self.plan.v2);
    }
}

/// The document as STC text: plan, then write.
pub(crate) fn write(nodes: &Tape<'_>, profile: Profile, version: Version) -> String {
    if nodes.is_empty() {
        return String::new();
    }
    let plan = Plan::new(nodes, version >= Version::V2);
    let style = match profile {
        Profile::Readable => &READABLE,
        Profile::Compact => &COMPACT,
    };
    let mut writer = Writer {
        plan: &plan,
        out: String::with_capacity(nodes.len() * 8),
        style,
        tasks: Vec::new(),
        cells: Vec::new(),
    };
    writer.run();
    // A top-level header form is enclosed in `(` `)` (spec 3.12): told by
    // its text, `[N]:`, `[N]{` or `{N}`.
    let b = writer.out.as_bytes();
    let header = match b.first() {
        Some(b'{') => b.get(1).is_some_and(u8::is_ascii_digit),
        Some(b'[') => {
            let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            digits > 0 && b.get(1 + digits) == Some(&b']') && matches!(b.get(2 + digits), Some(b':' | b'{'))
        }
        _ => false,
    };
    if header {
        writer.out.insert(0, '(');
        writer.out.push(')');
    }
    writer.out
}

/// The writer's rule for a string between two quoted strings, as it was
/// before the planner kept one bit per string (`Plan::sandwiched_at`).
/// Whether a string at the node `i` (if any) is written quoted by
/// [`writes_bare`](stc_core::__oracle::writes_bare) (`bare`: version 2 with bare strings on).
fn quoted_string(nodes: &Tape<'_>, i: Option<usize>, bare: bool) -> bool {
    matches!(i.and_then(|i| nodes.get(i)), Some(Node::String(s)) if !(bare && stc_core::__oracle::writes_bare(s)))
}

/// Whether a string value between the values `prev` and `next` (neighbours
/// in a table row's cells or an array's items; `None` at either end) keeps
/// its quotes although it qualifies: both neighbours are quoted strings. Its
/// quotes then merge with theirs (`","x","` as three tokens); bare, the
/// merges break (`",x,"`): measured a token dearer per such string (spec
/// 5.2, Appendix B). Neighbours are judged by [`writes_bare`](stc_core::__oracle::writes_bare) alone, so the
/// rule is decided per string, in one pass, the same by every writer.
fn sandwiched(nodes: &Tape<'_>, prev: Option<usize>, next: Option<usize>, bare: bool) -> bool {
    bare && quoted_string(nodes, prev, bare) && quoted_string(nodes, next, bare)
}
