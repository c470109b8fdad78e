//! Headers (`[N]`, `[N]{columns}`, `{N}` keyed tables), column lists with
//! their groups, and the rows and cells of tables.

use super::*;

impl<'a, 's, E, S: Sink<'a, E>> Parser<'a, 's, S, E> {
    /// After `[count]` (at `:` or `{`): the column list if any, `:`, the
    /// count guard, then the body is opened. `member` is the key of a member
    /// header, whose array level is checked here (a value-position `[` was
    /// counted when met and is counted again here).
    pub(super) fn header(
        &mut self,
        open: usize,
        count_at: usize,
        count: Count,
        member: Option<(JsonStr<'a>, usize)>,
    ) -> Result<Step, Failure<E>> {
        self.top_level_header(open)?;
        if self.peek() == Some(b'{') {
            let first = self.columns.len();
            let leaves = self.column_list()?;
            let count = self.guard(count_at, count, leaves, false)?;
            self.open_body(open, member)?;
            let r = self.sink.begin_array(Some(count));
            self.sink_result(r, open)?;
            self.open_table(open, count_at, count, first, leaves, false)
        } else {
            self.pos += 1; // ':'
            let count = self.guard(count_at, count, 1, false)?;
            self.open_body(open, member)?;
            let r = self.sink.begin_array(Some(count));
            self.sink_result(r, open)?;
            if count == 0 {
                self.depth -= 1;
                let r = self.sink.end_array();
                self.sink_result(r, open)?;
                return Ok(Step::After);
            }
            self.stack.push(Frame::Compact { open, count_at, left: count - 1 });
            self.skip_ws();
            self.compact_value_start(count_at)?;
            if matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.compact_numbers()?;
                return Ok(Step::After);
            }
            Ok(Step::Value)
        }
    }

    /// At the first value of a compact body (the innermost frame), when it
    /// is a number: that number and the numbers that follow, each after its
    /// `,`, read here rather than one trip through the main loop per value.
    /// Stops after the body's last value, or before the `,` of anything
    /// else (and at anything but a `,`), with the frame's count of values
    /// left updated; the main loop continues there. A number is read by the
    /// same call at the same position as there, and the separators are
    /// checked by the main loop's code, so the events and errors are the same.
    #[inline(never)]
    fn compact_numbers(&mut self) -> PResult<E> {
        let top = self.stack.len() - 1;
        let Frame::Compact { open, count_at, mut left } = self.stack[top] else {
            unreachable!("called in a compact body")
        };
        loop {
            let at = self.pos;
            let n = self.number_lexeme()?;
            let r = self.sink.number_parts(n);
            self.sink_result(r, at)?;
            if left == 0 {
                break;
            }
            self.skip_ws();
            if self.peek() != Some(b',') {
                break;
            }
            let comma = self.pos;
            self.pos += 1;
            self.skip_ws();
            if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.pos = comma;
                break;
            }
            left -= 1;
        }
        self.stack[top] = Frame::Compact { open, count_at, left };
        Ok(())
    }

    /// At a header form that is the top-level value (the stack is empty):
    /// an error unless the text opened with `(`; else noted, for the `)`.
    #[inline]
    fn top_level_header(&mut self, open: usize) -> Result<(), Error> {
        if !self.stack.is_empty() {
            return Ok(());
        }
        if !self.enclosed {
            return Err(self.err_at(
                open,
                ErrorKind::UnexpectedChar,
                "a compact array, table or keyed table at the top level must be enclosed in parentheses, \
                 '([N]...)' (STC texts from before this rule lack them: encode the JSON again)"
                    .to_string(),
            ));
        }
        self.top_header = true;
        Ok(())
    }

    /// [v2] After the `{` of a keyed table (whitespace not yet skipped).
    pub(super) fn keyed_header(
        &mut self,
        open: usize,
        member: Option<(JsonStr<'a>, usize)>,
    ) -> Result<Step, Failure<E>> {
        if member.is_none() {
            self.top_level_header(open)?;
        }
        self.skip_ws();
        let count_at = self.pos;
        let count = self.count()?;
        self.skip_ws();
        if self.peek() != Some(b'}') {
            return Err(self.expected("'}' after the keyed table's count").into());
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() != Some(b'{') {
            return Err(self.expected("'{' to start the keyed table's column list").into());
        }
        let first = self.columns.len();
        let leaves = self.column_list()?;
        let count = self.guard(count_at, count, leaves, true)?;
        if member.is_none() {
            // The `{` was counted when met.
            self.depth -= 1;
        }
        self.open_body(open, member)?;
        let r = self.sink.begin_object(Some(count));
        self.sink_result(r, open)?;
        self.open_table(open, count_at, count, first, leaves, true)
    }

    /// Checks the body's own level at `open` and reports a member's key.
    #[inline]
    fn open_body(&mut self, open: usize, member: Option<(JsonStr<'a>, usize)>) -> PResult<E> {
        self.enter(open)?;
        if let Some((key, key_at)) = member {
            let r = self.sink.key(key);
            self.sink_result(r, key_at)?;
        }
        Ok(())
    }

    /// At a compact body's next value (whitespace skipped): `count_mismatch`
    /// at the count if the body ends here.
    #[inline]
    pub(super) fn compact_value_start(&self, count_at: usize) -> Result<(), Error> {
        match self.peek() {
            None | Some(b']' | b'}' | b'/') => Err(self.too_few(count_at, "values")),
            _ => Ok(()),
        }
    }

    /// column-list = "{" column *( "," column ) "}" ":", at `{`; [v2] a column
    /// may carry its own list. Appends the flattened entries to `columns` and
    /// returns the number of leaves.
    fn column_list(&mut self) -> Result<usize, Error> {
        self.pos += 1;
        let mut open_groups = 0usize;
        let mut leaves = 0usize;
        'columns: loop {
            self.skip_ws();
            let key = match self.peek() {
                Some(b) if b == b'"' || (self.dialect == Dialect::Stc && identifier::is_start(b)) => self.key()?,
                _ => return Err(self.expected("a column name")),
            };
            self.skip_ws();
            if self.peek() == Some(b'{') {
                if !self.v2 {
                    return Err(self.newer(self.pos, "a column group"));
                }
                self.pos += 1;
                self.columns.push(Column::Open(key));
                open_groups += 1;
                continue;
            }
            self.columns.push(Column::Leaf(key));
            leaves += 1;
            loop {
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        continue 'columns;
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        if open_groups == 0 {
                            break 'columns;
                        }
                        self.columns.push(Column::Close);
                        open_groups -= 1;
                        self.skip_ws();
                    }
                    _ => return Err(self.expected("',' or '}' in the column list")),
                }
            }
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.expected("':' after the column list"));
        }
        self.pos += 1;
        Ok(leaves)
    }

    /// Opens a table whose columns start at `columns[first]`, after its
    /// guard; reads up to its first cell.
    fn open_table(
        &mut self,
        open: usize,
        count_at: usize,
        count: usize,
        first: usize,
        leaves: usize,
        keyed: bool,
    ) -> Result<Step, Failure<E>> {
        if count == 0 {
            self.columns.truncate(first);
            return self.close_table_now(open, keyed).map(|()| Step::After);
        }
        let end = self.columns.len();
        let grouped = end - first != leaves;
        self.tables.push(Table {
            open,
            count_at,
            count,
            rows_left: count - 1,
            leaves,
            first,
            end,
            at: first,
            row_at: self.pos,
            groups_open: 0,
            groups_emitted: 0,
            groups_base: self.groups.len(),
            keyed,
            grouped,
            row_len: if self.v2 || grouped { None } else { Some(leaves) },
        });
        self.stack.push(Frame::Table);
        self.skip_ws();
        self.start_row()?;
        Ok(if self.cell()? { Step::Value } else { Step::After })
    }

    fn close_table_now(&mut self, open: usize, keyed: bool) -> PResult<E> {
        self.depth -= 1;
        let r = if keyed { self.sink.end_object() } else { self.sink.end_array() };
        self.sink_result(r, open)
    }

    /// At a row's first byte (whitespace skipped): its level, [keyed] its key
    /// and `:`, its object.
    fn start_row(&mut self) -> PResult<E> {
        let ti = self.tables.len() - 1;
        if let None | Some(b']' | b'}') = self.peek() {
            return Err(self.too_few(self.tables[ti].count_at, "rows").into());
        }
        let row_at = self.pos;
        self.enter(row_at)?;
        if self.tables[ti].keyed {
            let key = match self.peek() {
                Some(b) if b == b'"' || identifier::is_start(b) => self.key()?,
                _ => return Err(self.expected("a row key").into()),
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.expected("':' after the row key").into());
            }
            self.pos += 1;
            self.skip_ws();
            let r = self.sink.key(key);
            self.sink_result(r, row_at)?;
        }
        let r = self.sink.begin_object(self.tables[ti].row_len);
        self.sink_result(r, row_at)?;
        let t = &mut self.tables[ti];
        t.row_at = row_at;
        t.at = t.first;
        t.groups_open = 0;
        t.groups_emitted = 0;
        Ok(())
    }

    /// At a cell (whitespace skipped; `tables.last().at` at or before its
    /// leaf: groups opening here are entered first). `true` when a value
    /// follows at `pos`, `false` for an absent cell (already consumed).
    #[inline(always)]
    fn cell(&mut self) -> Result<bool, Failure<E>> {
        let ti = self.tables.len() - 1;
        if self.tables[ti].grouped {
            self.enter_groups(ti);
        }
        let Column::Leaf(name) = self.columns[self.tables[ti].at] else {
            unreachable!("a group holds at least one column")
        };
        let at = self.pos;
        match self.peek() {
            Some(b'~') if self.dialect == Dialect::Stc => {
                if !self.v2 {
                    return Err(self.newer(at, "an absent cell '~'").into());
                }
                self.pos += 1;
                return Ok(false);
            }
            None | Some(b']' | b'}') => return Err(self.too_few(self.tables[ti].count_at, "rows").into()),
            _ => {}
        }
        if self.tables[ti].groups_emitted < self.tables[ti].groups_open {
            self.emit_groups(ti, at)?;
        }
        let r = self.sink.key(name);
        self.sink_result(r, at)?;
        Ok(true)
    }

    /// Enters the groups that open before the current cell's leaf.
    #[inline(always)]
    fn enter_groups(&mut self, ti: usize) {
        let t = &mut self.tables[ti];
        while let Column::Open(name) = self.columns[t.at] {
            self.groups.push(name);
            t.groups_open += 1;
            t.at += 1;
        }
    }

    /// Reports the groups a present cell is the first present leaf of
    /// (outermost first): each is a level, checked at the row's first byte.
    #[cold]
    fn emit_groups(&mut self, ti: usize, at: usize) -> PResult<E> {
        while self.tables[ti].groups_emitted < self.tables[ti].groups_open {
            self.enter(self.tables[ti].row_at)?;
            let t = self.tables[ti];
            let group = self.groups[t.groups_base + t.groups_emitted];
            let r = self.sink.key(group);
            self.sink_result(r, at)?;
            let r = self.sink.begin_object(None);
            self.sink_result(r, at)?;
            self.tables[ti].groups_emitted += 1;
        }
        Ok(())
    }

    /// Leaves the groups that close after the current cell's leaf.
    fn leave_groups(&mut self, ti: usize) -> PResult<E> {
        loop {
            let t = self.tables[ti];
            if t.at >= t.end || !matches!(self.columns[t.at], Column::Close) {
                return Ok(());
            }
            if t.groups_emitted == t.groups_open {
                self.tables[ti].groups_emitted -= 1;
                self.depth -= 1;
                let r = self.sink.end_object();
                self.sink_result(r, t.row_at)?;
            }
            self.groups.pop();
            let t = &mut self.tables[ti];
            t.groups_open -= 1;
            t.at += 1;
        }
    }

    /// After a cell of the innermost table: [`after_cell`](Self::after_cell),
    /// then, while the next cell holds a scalar, that scalar read and
    /// reported here and the next cell's separator checked, without a trip
    /// through the main loop per cell. The same calls at the same positions
    /// as the main loop makes, so the events and errors are the same.
    /// `true` when a value that is no scalar follows at `pos`; `false` as
    /// for `after_cell`.
    #[inline(never)]
    pub(super) fn table_cells(&mut self) -> Result<bool, Failure<E>> {
        loop {
            if !self.after_cell()? {
                return Ok(false);
            }
            if !self.scalar_here()? {
                return Ok(true);
            }
        }
    }

    /// At a value (whitespace skipped): anything but an object or array (a
    /// number, a quoted or [v2] bare string, a literal, or the error there)
    /// read whole and reported as [`value`](Self::value) would (`true`); an
    /// object or array is left to `value` (`false`, `pos` unchanged).
    #[inline(always)]
    fn scalar_here(&mut self) -> Result<bool, Failure<E>> {
        let at = self.pos;
        let r = match self.peek() {
            Some(b'"') => {
                let s = self.string_body()?;
                self.sink.string(s)
            }
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                self.sink.number_parts(lexeme)
            }
            Some(b't') if self.is_word(at, b"true") => {
                self.pos = at + 4;
                self.sink.boolean(true)
            }
            Some(b'f') if self.is_word(at, b"false") => {
                self.pos = at + 5;
                self.sink.boolean(false)
            }
            Some(b'n') if self.is_word(at, b"null") => {
                self.pos = at + 4;
                self.sink.null()
            }
            Some(b'{' | b'[') => return Ok(false),
            _ => match self.not_a_word(at)? {
                Some(s) => self.sink.string(s),
                None => return Ok(true),
            },
        };
        self.sink_result(r, at)?;
        Ok(true)
    }

    /// After a cell of the innermost table. `true` when a value follows at
    /// `pos` (the next cell); `false` when the state moved without one (an
    /// absent cell, or the table ended: continue with the enclosing frame).
    #[inline]
    fn after_cell(&mut self) -> Result<bool, Failure<E>> {
        let ti = self.tables.len() - 1;
        self.tables[ti].at += 1;
        if self.tables[ti].grouped {
            self.leave_groups(ti)?;
        }
        self.skip_ws();
        let t = &self.tables[ti];
        if t.at < t.end {
            return match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    self.cell()
                }
                Some(b'/' | b']' | b'}') => {
                    let message = format!(
                        "row {} ends before its last cell; the header names {}",
                        t.count - t.rows_left,
                        plural(t.leaves, "column")
                    );
                    Err(self.err(ErrorKind::CountMismatch, message).into())
                }
                None => Err(self.too_few(t.count_at, "rows").into()),
                _ => Err(self.expected("',' between row values").into()),
            };
        }
        // The row is complete.
        let (row_at, rows_left) = (t.row_at, t.rows_left);
        self.depth -= 1;
        let r = self.sink.end_object();
        self.sink_result(r, row_at)?;
        if rows_left == 0 {
            let t = self.tables.pop().expect("a table is open");
            self.columns.truncate(t.first);
            self.stack.pop();
            self.close_table_now(t.open, t.keyed)?;
            return Ok(false);
        }
        self.tables[ti].rows_left -= 1;
        match self.peek() {
            Some(b'/') => {
                self.pos += 1;
                self.skip_ws();
                self.start_row()?;
                self.cell()
            }
            Some(b',') => {
                let t = &self.tables[ti];
                let message = format!(
                    "row {} has more cells than the header's {}",
                    t.count - rows_left,
                    plural(t.leaves, "column")
                );
                Err(self.err(ErrorKind::CountMismatch, message).into())
            }
            None | Some(b']' | b'}') => Err(self.too_few(self.tables[ti].count_at, "rows").into()),
            _ => Err(self.expected("'/' between rows").into()),
        }
    }
}
