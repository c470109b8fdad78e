//! Column inference: which keys a table's column list names (with v2's
//! column groups and repeated names), the width rule, and the cells each
//! row gives under a column list.

use super::plan::*;
use crate::document::{Node, Tape};

/// Deepest nesting of column groups (`a{b{c{d}}}`) the v2 encoder writes; the
/// inference recurses on it, so it stays a small constant, independent of the
/// input's depth. Deeper objects are written as cells.
pub(super) const MAX_GROUP_DEPTH: usize = 4;

/// Most columns a table may have (wider sets of keys stay plain objects).
pub(super) const MAX_COLUMNS: usize = 256;

/// Most cells a table row may hold through column groups (spec 5.5, 5.8):
/// a column list whose groups would make a row wider keeps some groups'
/// objects in their cells, with their keys (`narrow`). The rows' own keys
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
pub const MAX_ROW_CELLS: usize = 48;

/// The number of leaf columns (cells per row) of a column list.
pub(super) fn leaf_count(columns: &[Column]) -> usize {
    columns.iter().map(|c| if c.sub.is_empty() { 1 } else { leaf_count(&c.sub) }).sum()
}

/// The width rule: while `columns` has more than [`MAX_ROW_CELLS`] leaves
/// and a column group, one group is dissolved (its column holds its objects
/// as cells): the narrowest whose leaves alone bring the row within the
/// width, else the widest (the first of equally wide ones, either way), so
/// that as few cells as the width allows leave their groups.
pub(super) fn narrow(columns: &mut [Column]) {
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

/// A column: a key (the tape index of a `Key` node holding it) and, for a v2
/// column group, its sub-columns.
#[derive(Debug, Clone)]
pub(super) struct Column {
    pub(super) key: usize,
    pub(super) sub: Vec<Column>,
}

/// What merging the rows' key orders gives ([`Plan::merged_columns`]).
#[derive(Debug)]
pub(super) enum Merge {
    /// One list of key nodes every row's keys follow.
    List(Vec<usize>),
    /// Orders that conflict, or a key twice: a list naming keys more than once.
    Repeated,
    /// No list: too many columns, a row that is not an object, no keys.
    Refused,
}

/// One cell of a row, in leaf-column order.
#[derive(Debug, Clone, Copy)]
pub(super) enum Cell {
    /// The value at this tape index.
    Value(usize),
    /// `~`: the member is absent (v2).
    Absent,
}

/// The leaf cells of the object at `row` under `columns` (all `~` when the
/// row or group is absent), comparing keys with `Tape::same_text`: the form
/// of [`named_cells`] kept as its oracle in tests.
#[cfg(test)]
pub(super) fn row_cells(nodes: &Tape<'_>, row: Option<usize>, columns: &[Column], out: &mut Vec<Cell>) {
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
pub(super) fn column_names<'t>(nodes: &'t Tape<'_>, columns: &[Column], out: &mut Vec<&'t [u8]>) {
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
pub(super) fn named_cells(
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
pub(super) fn dense_cells(nodes: &Tape<'_>, row: usize, out: &mut Vec<Cell>) {
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
pub(super) const REPEATED_COLUMNS_CAP: (usize, usize) = (5, 4);

/// A column list (key nodes) naming keys more than once, for `rows` (tape
/// indices of objects) whose keys do not fit one ordered list: the rows'
/// key sequences merged, each row that is not yet a subsequence of the list
/// (greedy leftmost test) replacing it by a shortest common supersequence of
/// both (the LCS table, at most `MAX_COLUMNS` × a row's keys). `None` above
/// `MAX_COLUMNS` names or above `REPEATED_COLUMNS_CAP` times the distinct
/// names. Deterministic: ties keep the list's name first.
pub fn repeated_columns(nodes: &Tape<'_>, rows: impl IntoIterator<Item = usize>) -> Option<Vec<usize>> {
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
/// columns: the walk `row_cells` makes when writing. For a list without
/// repeated names this is the member of that name.
pub fn column_cell(nodes: &Tape<'_>, r: usize, columns: &[usize], j: usize) -> Option<usize> {
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
pub(super) fn embeds(nodes: &Tape<'_>, r: usize, columns: &[usize]) -> bool {
    let end = nodes.skip(r);
    let mut k = r + 1;
    for &c in columns {
        if k < end && nodes.same_text(k, c) {
            k = nodes.skip(k + 1);
        }
    }
    k >= end
}

impl<'d, 'a> Plan<'d, 'a> {
    /// Whether the objects `rows` (tape indices, every one an object) are
    /// related enough to be one version 2 table's rows (spec 5.8): every
    /// row with members shares more than half of its key names with the
    /// other rows (a name is shared when another row has it too); a keyed
    /// table's rows (`keyed`) also need two names at least between them.
    /// Unrelated objects (GitHub's `{"content":{..},"commit":{..}}`, which
    /// share 3 of their 10 names each) would fill a table mostly with `~`
    /// and cost more tokens than version 1, and a keyed row `key:cell` of
    /// one column reads like a member `key: value`.
    pub(super) fn rows_related(&self, rows: &[u32], keyed: bool) -> bool {
        // Every row with the same keys (most tables): every name is shared.
        if let Some(keys) = self.identical_keys(rows) {
            return !keyed || keys.len() >= 2;
        }
        let nodes = self.nodes;
        // Each name seen, how many rows have it, and the last row that did.
        let mut names: Vec<(&str, usize, usize)> = Vec::new();
        // The names are distinct, so a name found where the row's previous
        // key was followed is the one `position` finds (rows mostly list
        // their keys in one order).
        let find = |names: &[(&str, usize, usize)], key: &str, hint: usize| {
            if names.get(hint).is_some_and(|name| name.0 == key) {
                Some(hint)
            } else {
                names.iter().position(|name| name.0 == key)
            }
        };
        for (n, r) in rows.iter().map(|&r| r as usize).enumerate() {
            let (mut m, row_end, mut hint) = (r + 1, self.skip(r), 0);
            while m < row_end {
                let key = nodes.body(m);
                let found = find(&names, key, hint);
                hint = found.map_or(names.len() + 1, |at| at + 1);
                match found {
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
            let (mut own, mut shared, mut m, row_end, mut hint) = (0usize, 0usize, r + 1, self.skip(r), 0);
            while m < row_end {
                let key = nodes.body(m);
                let found = find(&names, key, hint);
                hint = found.map_or(0, |at| at + 1);
                if let Some(at) = found {
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

    /// The key nodes of the first of `rows` (tape indices of objects) when
    /// every row has exactly its keys in its order, it names none twice, and
    /// it has between one and [`MAX_COLUMNS`] of them: the column list
    /// [`infer`](Self::infer) merges for such rows, found by comparing each
    /// row's keys with the first row's texts in place.
    pub(super) fn identical_keys(&self, rows: &[u32]) -> Option<Vec<usize>> {
        let first = *rows.first()? as usize;
        let len = match self.nodes.get(first) {
            Some(Node::Object { len, .. }) if len > 0 && len <= MAX_COLUMNS => len,
            _ => return None,
        };
        let keys = self.keys(first);
        let names: Vec<&[u8]> = keys.iter().map(|&k| self.nodes.body(k).as_bytes()).collect();
        for (a, name) in names.iter().enumerate() {
            if names[..a].contains(name) {
                return None;
            }
        }
        for &r in &rows[1..] {
            let r = r as usize;
            let Some(Node::Object { len: l, end }) = self.nodes.get(r) else { return None };
            if l != len {
                return None;
            }
            let mut k = r + 1;
            for &name in &names {
                if k >= end || self.nodes.body(k).as_bytes() != name {
                    return None;
                }
                k = self.skip(k + 1);
            }
        }
        Some(keys)
    }

    /// Whether every member value of the object at `i` is an object.
    pub(super) fn members_are_objects(&self, i: usize, end: usize) -> bool {
        let mut k = i + 1;
        while k < end {
            if !matches!(self.nodes.get(k + 1), Some(Node::Object { .. })) {
                return false;
            }
            k = self.skip(k + 1);
        }
        true
    }

    /// The columns of the array at `i` as a table, if it can be one: every
    /// element an object; in v1 all with the same keys in the same order (at
    /// least one), in v2 whatever [`infer`](Self::infer) accepts.
    pub(super) fn array_columns(&mut self, i: usize, len: usize, end: usize) -> Option<Vec<Column>> {
        if !self.elements(i, end).all(|e| matches!(self.nodes.get(e), Some(Node::Object { .. }))) {
            return None;
        }
        if self.v2 {
            // The rows as `u32` tape indices: 4 bytes a row, only while the
            // columns are inferred.
            let rows: Vec<u32> = self.elements(i, end).map(index32).collect();
            // Unrelated rows (spec 5.8) share no column list; rows with
            // the same keys in the same order are always related, and
            // their list is the first row's keys (found once for both).
            if let Some(keys) = self.identical_keys(&rows) {
                return self.finish_columns(&rows, &keys, 0);
            }
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
    pub(super) fn keys(&self, i: usize) -> Vec<usize> {
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
    /// a list that names keys more than once, [`repeated_columns`]), and a column group wherever
    /// every present value is a non-empty object that fits one and the group
    /// is estimated cheaper than writing those objects as cells. `None` if
    /// the rows cannot share a column list. Recursion is bounded by
    /// [`MAX_GROUP_DEPTH`].
    pub(super) fn infer(&mut self, rows: &[u32], depth: usize) -> Option<Vec<Column>> {
        // Rows with the same keys in the same order, none twice (most
        // tables): the merge below would list the first row's keys.
        if let Some(columns) = self.identical_keys(rows) {
            #[cfg(test)]
            assert!(matches!(self.merged_columns(rows), Merge::List(ref c) if *c == columns), "rows {rows:?}");
            return self.finish_columns(rows, &columns, depth);
        }
        let columns = match self.merged_columns(rows) {
            Merge::List(columns) => columns,
            // Another order, or a key twice: a list naming keys more than
            // once (spec 5.8), or none. Every row fills one occurrence of
            // each of its keys and writes `~` in the others.
            Merge::Repeated => repeated_columns(self.nodes, rows.iter().map(|&r| r as usize))?,
            Merge::Refused => return None,
        };
        if !self.t.absent_cells
            && rows
                .iter()
                .any(|&r| !matches!(self.nodes.get(r as usize), Some(Node::Object { len, .. }) if len == columns.len()))
        {
            return None;
        }
        self.finish_columns(rows, &columns, depth)
    }

    /// The column list (key nodes) of which every row's keys are a
    /// subsequence, merged row by row ([`infer`](Self::infer)'s first step).
    pub(super) fn merged_columns(&self, rows: &[u32]) -> Merge {
        // The merged column list, as key nodes.
        let mut columns: Vec<usize> = Vec::new();
        // Their names, read from the tape once.
        let nodes = self.nodes;
        let mut names: Vec<&str> = Vec::new();
        for r in rows.iter().map(|&r| r as usize) {
            let Some(Node::Object { end, .. }) = self.nodes.get(r) else {
                return Merge::Refused;
            };
            let mut pos = 0;
            let mut k = r + 1;
            while k < end {
                let key = nodes.body(k);
                // The names are distinct: the one at `pos` (the row's keys
                // in the list's order, the usual case) is the only match.
                let found = if names.get(pos).is_some_and(|&n| n == key) {
                    Some(pos)
                } else {
                    names.iter().position(|&n| n == key)
                };
                match found {
                    Some(at) if at >= pos => pos = at + 1,
                    // Another order, or a key twice: a list naming keys
                    // more than once (spec 5.8), or none.
                    Some(_) => return Merge::Repeated,
                    None => {
                        if columns.len() >= MAX_COLUMNS {
                            return Merge::Refused;
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
            return Merge::Refused;
        }
        Merge::List(columns)
    }

    /// Columns (key nodes) to column list: each column's cells by the greedy
    /// leftmost embedding of every row's members ([`column_cell`], as
    /// [`row_cells`] writes them), and a group wherever it pays.
    pub(super) fn finish_columns(&mut self, rows: &[u32], columns: &[usize], depth: usize) -> Option<Vec<Column>> {
        debug_assert!(rows.iter().all(|&r| embeds(self.nodes, r as usize, columns)));
        if depth == 1 && columns.len() > MAX_ROW_CELLS {
            // A group of a table's column: one this wide has more leaves
            // than a row may hold whatever groups its own columns get, so
            // the width rule dissolves it (see `group`); its columns' groups
            // are not looked for.
            return Some(columns.iter().map(|&key| Column { key, sub: Vec::new() }).collect());
        }
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

    /// Sub-columns for column `j` of `columns` over `rows` as a group, if every present
    /// value is a non-empty object, they fit one column list, and the group
    /// is estimated cheaper than the objects as cells.
    pub(super) fn group(&mut self, rows: &[u32], columns: &[usize], j: usize, depth: usize) -> Option<Vec<Column>> {
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
        if depth == 0 && leaf_count(&sub) > MAX_ROW_CELLS {
            // Not priced: `narrow` would dissolve it whatever it cost. While
            // a group wider than a row remains, no other group brings the
            // row within the width alone and the widest is one such group,
            // so every one of them is dissolved before any narrower one,
            // leaving the width and the groups the rule then sees exactly
            // as if they had never been groups.
            return None;
        }
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
    pub(super) fn is_dense(&self, rows: Rows, columns: &[Column]) -> bool {
        columns.iter().all(|c| c.sub.is_empty())
            && rows
                .iter(self.nodes)
                .all(|(_, r)| matches!(self.nodes.get(r), Some(Node::Object { len, .. }) if len == columns.len()))
    }

    /// Whether every leaf cell of the rows is a scalar or `~`.
    pub(super) fn flat_cells(&self, rows: Rows, columns: &[Column]) -> bool {
        let mut leaves = Vec::new();
        let mut names = Vec::new();
        column_names(self.nodes, columns, &mut names);
        rows.iter(self.nodes).all(|(_, row)| {
            leaves.clear();
            named_cells(self.nodes, Some(row), columns, &names, &mut 0, &mut leaves);
            leaves.iter().all(|leaf| !matches!(*leaf, Cell::Value(v) if self.is_container(v)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Document, Node};
    use crate::options::{EncodeOptions, Limits, Techniques, Version};

    use crate::write_stc::tests::{corpus, encode_v, table_widths, wide_rows, GITHUB_CREATE_FILE};

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
}
