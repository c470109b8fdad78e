//! The writer: walks the tape and the plan with its own stack of tasks and
//! writes the chosen forms, in one string or in pieces.

use super::columns::*;
use super::emit::*;
use super::plan::*;
use super::ENCODE_CHUNK;
use crate::document::{Node, Tape};
use crate::options::{Profile, Techniques, Version};

/// What the writer still has to do, innermost last.
#[derive(Debug, Clone, Copy)]
pub(super) enum Task {
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

pub(super) struct Writer<'p, 'd, 'a> {
    pub(super) plan: &'p Plan<'d, 'a>,
    pub(super) out: String,
    pub(super) style: &'static Style,
    pub(super) tasks: Vec<Task>,
    pub(super) cells: Vec<Cell>,
    /// The key texts of table `names_of`'s columns ([`column_names`]), for
    /// its rows' cells.
    pub(super) names: Vec<&'d [u8]>,
    pub(super) names_of: Option<u32>,
    /// Ordinal of the container written last (containers are written in
    /// document order, so the next one is found from here).
    pub(super) cursor: usize,
    /// Where the text goes once `out` holds [`ENCODE_CHUNK`] bytes
    /// ([`Document::encode_to`]); `false` from it stops the writer. `None`:
    /// `out` keeps the whole text.
    pub(super) spill: Option<&'p mut dyn FnMut(&str) -> bool>,
    /// The spill refused a piece: write nothing more.
    pub(super) stopped: bool,
}

impl Writer<'_, '_, '_> {
    /// Hands `out` on when it holds a piece's worth (streamed output only).
    #[inline]
    pub(super) fn maybe_spill(&mut self) {
        if self.out.len() >= ENCODE_CHUNK && self.spill.is_some() {
            self.spill_now();
        }
    }

    /// Hands `out` on and empties it (streamed output only).
    pub(super) fn spill_now(&mut self) {
        if let Some(spill) = self.spill.as_mut() {
            if !self.stopped && !self.out.is_empty() && !spill(&self.out) {
                self.stopped = true;
            }
            self.out.clear();
        }
    }

    pub(super) fn run(&mut self) {
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
                        if self.is_flat_array(next) {
                            // Written whole by `value`, with no task.
                            self.value(next, false, safe_last && left == 1, level);
                            prev = None;
                            next = after;
                            left -= 1;
                            continue;
                        }
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
                        if self.is_flat_array(next + 1) {
                            // Written whole by `value`, with no task.
                            self.value(next + 1, true, false, level);
                            next = after;
                            continue;
                        }
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
    pub(super) fn root_is_header(&self) -> bool {
        match self.plan.nodes.get(0) {
            Some(Node::Array { len, .. } | Node::Object { len, .. }) if len > 0 => {
                Form::unpack(self.plan.forms.first().copied().unwrap_or(0)) != Form::Plain
            }
            _ => false,
        }
    }

    pub(super) fn value(&mut self, i: usize, member: bool, safe: bool, level: u32) {
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
                if is_array && end == i + 1 + len {
                    self.out.push('[');
                    self.flat_items(i, len, false);
                    self.out.push(']');
                } else if is_array {
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
                if end == i + 1 + len {
                    self.flat_items(i, len, true);
                    return;
                }
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

    /// Whether the node at `i` is an array whose items are one node each
    /// (scalars and empty containers), which [`value`](Self::value) writes
    /// whole, pushing no task.
    #[inline]
    pub(super) fn is_flat_array(&self, i: usize) -> bool {
        matches!(self.plan.nodes.get(i), Some(Node::Array { len, end }) if end == i + 1 + len)
    }

    /// The items of the array at `i` (`len` of them, one node each), as the
    /// [`Task::Items`] loop writes them (separators, bare strings unless
    /// sandwiched, a spill check before each).
    pub(super) fn flat_items(&mut self, i: usize, len: usize, compact: bool) {
        let sep = if compact { "," } else { self.style.item };
        let mut prev = None;
        for next in i + 1..i + 1 + len {
            self.maybe_spill();
            if self.stopped {
                return;
            }
            if next > i + 1 {
                self.out.push_str(sep);
            }
            // An item one node long is a scalar or an empty container
            // (always plain).
            match self.plan.nodes.get(next) {
                Some(Node::Array { .. }) => self.out.push_str("[]"),
                Some(Node::Object { .. }) => self.out.push_str("{}"),
                Some(Node::Number(n)) => self.out.push_str(n),
                _ => {
                    let after = (next < i + len).then_some(next + 1);
                    let bare = self.plan.bare && !self.plan.sandwiched_at(prev, after);
                    self.plan.write_scalar_at(&mut self.out, next, bare);
                }
            }
            prev = Some(next);
        }
    }

    /// A line break and the indentation of a row of the `level`-th table.
    pub(super) fn line_break(&mut self, level: u32) {
        self.out.push('\n');
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    pub(super) fn row(&mut self, table: u32, next: usize, left: usize, first: bool, keyed: bool, level: u32) {
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
    pub(super) fn cell_bare(&self, cells: &[Cell], m: usize) -> bool {
        let at = |n: Option<usize>| match n.and_then(|n| cells.get(n)) {
            Some(Cell::Value(v)) => Some(*v),
            _ => None,
        };
        self.plan.bare && !self.plan.sandwiched_at(at(m.checked_sub(1)), at(Some(m + 1)))
    }

    pub(super) fn scalar(&mut self, i: usize) {
        self.plan.write_scalar_at(&mut self.out, i, self.plan.bare);
    }
}

/// The document as STC text: plan, then write.
pub(super) fn write(nodes: &Tape<'_>, profile: Profile, version: Version, techniques: Techniques) -> String {
    write_to(nodes, profile, version, techniques, None)
}

/// [`write`], handing the text to `spill` in pieces of about
/// [`ENCODE_CHUNK`] bytes when there is one; returns what is left (all of
/// the text without a spill).
pub(super) fn write_to(
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

    use crate::document::{Document, Node};
    use crate::options::{EncodeOptions, Limits, Profile, Version};

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
}
