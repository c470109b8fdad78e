//! The grammar of values: the main loop over the reader's own stack,
//! scalars, bare strings (version 2), objects and arrays (JSON arrays and
//! compact bodies). Tables and their column groups are `tables.rs`'.

use super::*;

impl<'a, 's, E, S: Sink<'a, E>> Parser<'a, 's, S, E> {
    /// Reads one value at `pos` (whitespace skipped) and everything it holds.
    pub(super) fn read(&mut self) -> PResult<E> {
        let base = self.stack.len();
        loop {
            if self.value()? == Step::Value {
                continue;
            }
            // A value is complete: continue the innermost open container
            // until it needs another value.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                let top = self.stack.len() - 1;
                match self.stack[top] {
                    Frame::Array { open } => {
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                break;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.depth -= 1;
                                let r = self.sink.end_array();
                                self.sink_result(r, open)?;
                            }
                            _ => return Err(self.expected("',' or ']' after array element").into()),
                        }
                    }
                    Frame::Object { open } => {
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                if self.member()? {
                                    break;
                                }
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.depth -= 1;
                                let r = self.sink.end_object();
                                self.sink_result(r, open)?;
                            }
                            _ => return Err(self.expected("',' or '}' after object member").into()),
                        }
                    }
                    Frame::Compact { open, count_at, left } => {
                        if left == 0 {
                            self.stack.pop();
                            self.depth -= 1;
                            let r = self.sink.end_array();
                            self.sink_result(r, open)?;
                            continue;
                        }
                        self.stack[top] = Frame::Compact { open, count_at, left: left - 1 };
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                self.compact_value_start(count_at)?;
                                break;
                            }
                            None | Some(b']' | b'}' | b'/') => return Err(self.too_few(count_at, "values").into()),
                            _ => return Err(self.expected("',' between array values").into()),
                        }
                    }
                    Frame::Table => {
                        if self.table_cells()? {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// value = object / array / string / number / true / false / null, at
    /// `pos`. A scalar is read whole ([`Step::After`]); a container is opened
    /// and its first content read as far as the next value ([`Step::Value`])
    /// or its end.
    #[inline]
    fn value(&mut self) -> Result<Step, Failure<E>> {
        let at = self.pos;
        // One call of `sink.string` for quoted and bare strings alike (it
        // stays inlined into the reader).
        let s = match self.peek() {
            Some(b'"') => self.string_body()?,
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                let r = self.sink.number_parts(lexeme);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(),
            Some(b't') if self.is_word(at, b"true") => {
                self.pos = at + 4;
                let r = self.sink.boolean(true);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'f') if self.is_word(at, b"false") => {
                self.pos = at + 5;
                let r = self.sink.boolean(false);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'n') if self.is_word(at, b"null") => {
                self.pos = at + 4;
                let r = self.sink.null();
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            _ => match self.not_a_word(at)? {
                Some(s) => s,
                None => return Ok(Step::After),
            },
        };
        let r = self.sink.string(s);
        self.sink_result(r, at)?;
        Ok(Step::After)
    }

    /// Whether the literal `word` is written at `at` and is the whole value
    /// there: in STC a bare run must not go on after it (`true story`,
    /// `nullable` are runs, read by [`bare`](Self::bare)). One byte is
    /// looked at after the word on the fast path.
    #[inline]
    pub(super) fn is_word(&self, at: usize, word: &[u8]) -> bool {
        self.bytes[at..].starts_with(word)
            && (self.dialect == Dialect::Json
                || !self.bytes.get(at + word.len()).is_some_and(|&b| b >= 0x80 || BARE_BYTE[b as usize]))
    }

    /// At a value position that holds no literal alone and starts no quoted
    /// string, number, array, header or object. JSON: the error of the
    /// literal the first byte begins, or "expected a value". STC: the bare
    /// run there: a literal (reported here; `None`), [v2] a bare string to
    /// report, or the error (see [`bare`](Self::bare)).
    #[inline(never)]
    pub(super) fn not_a_word(&mut self, at: usize) -> Result<Option<JsonStr<'a>>, Failure<E>> {
        if self.dialect == Dialect::Stc {
            if let Some(run) = self.bare(at)? {
                return Ok(run);
            }
        }
        let word = match self.peek() {
            Some(b't') => "true",
            Some(b'f') => "false",
            Some(b'n') => "null",
            _ => return Err(self.expected("a value").into()),
        };
        // A misspelt literal (or one followed by a run that is no bare
        // string, which the rule never gives: such runs always qualify).
        self.literal(word)?;
        let r = match word {
            "true" => self.sink.boolean(true),
            "false" => self.sink.boolean(false),
            _ => self.sink.null(),
        };
        self.sink_result(r, at)?;
        Ok(None)
    }

    /// The bare run at `at` (spec "Bare strings"): the longest stretch of
    /// characters allowed in a bare string, trailing spaces not included.
    /// Exactly `true`, `false` or `null`: that literal, reported
    /// (`Some(None)`). A bare string: [v2] that string, to report
    /// (`Some(Some(_))`); [v1] `newer_version` at `at`. Otherwise [v2] a
    /// non-empty run is `unexpected_char` at `at` (it must be quoted); `None`
    /// leaves the version 1 error (and an empty run's) to the caller.
    fn bare(&mut self, at: usize) -> Result<Option<Option<JsonStr<'a>>>, Failure<E>> {
        match self.text[at..].chars().next() {
            Some(c) if is_bare_first(c) => {}
            Some(c) if c.is_ascii() && RESERVED_START[c as usize] => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::NewerVersion,
                        format!(
                            "'{c}' where a value is due is reserved for a later version of STC; a string that \
                             starts with it must be quoted"
                        ),
                    )
                    .into());
            }
            Some(c) if self.v2 && !c.is_ascii() => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::UnexpectedChar,
                        format!(
                            "'{}' (U+{:04X}) may not start a bare string: only ASCII letters and the letters listed \
                             in the spec do; quote the string",
                            c.escape_debug(),
                            c as u32
                        ),
                    )
                    .into());
            }
            Some('+' | '.') if self.v2 => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::UnexpectedChar,
                        "a string that starts with '+' or '.' must be quoted (a number starts with '-' or a digit)"
                            .to_string(),
                    )
                    .into());
            }
            _ => return Ok(None),
        }
        let end = self.run_end(at);
        let run = self.text.get(at..end).unwrap_or("");
        let literal = match run {
            "true" => Some(self.sink.boolean(true)),
            "false" => Some(self.sink.boolean(false)),
            "null" => Some(self.sink.null()),
            _ => None,
        };
        if let Some(r) = literal {
            self.pos = end;
            self.sink_result(r, at)?;
            return Ok(Some(None));
        }
        if is_bare_run(run) {
            if !self.v2 {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::NewerVersion,
                        "a bare (unquoted) string is STC version 2; decode with version 2 or quote the string"
                            .to_string(),
                    )
                    .into());
            }
            self.pos = end;
            return Ok(Some(Some(JsonStr::bare_unchecked(run, S::ASCII_FLAGS && run.is_ascii()))));
        }
        if !self.v2 || run.is_empty() {
            return Ok(None);
        }
        let shown: String = run.chars().take(24).collect();
        let shown = if shown.len() < run.len() { format!("{shown}...") } else { shown };
        debug_assert!(is_literal_lookalike(run), "{run:?}");
        let why = "the literals true, false and null are lowercase, and a string spelled like true, false, null, \
                   nan, inf, infinity, none, nil or undefined (in any letter case) must be quoted";
        Err(self.err_at(at, ErrorKind::UnexpectedChar, format!("'{shown}' is not a value: {why}")).into())
    }

    /// Where the bare run starting at `at` ends: after its last character
    /// that is not a space.
    #[inline]
    fn run_end(&self, at: usize) -> usize {
        let bytes = self.bytes;
        let mut i = at;
        loop {
            while i < bytes.len() && BARE_BYTE[bytes[i] as usize] {
                i += 1;
            }
            match bytes.get(i) {
                Some(&b) if b >= 0x80 => match bare_char_len(&bytes[i..]) {
                    0 => break,
                    n => i += n,
                },
                _ => break,
            }
        }
        while i > at && bytes[i - 1] == b' ' {
            i -= 1;
        }
        i
    }

    /// At `{` in value position: an object, or [v2] a keyed table.
    fn object(&mut self) -> Result<Step, Failure<E>> {
        let open = self.pos;
        self.enter(open)?;
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                let r = self.sink.begin_object(Some(0));
                self.sink_result(r, open)?;
                let r = self.sink.end_object();
                self.sink_result(r, open)?;
                Ok(Step::After)
            }
            Some(b'0'..=b'9') if self.dialect == Dialect::Stc => {
                if !self.v2 {
                    return Err(self.newer(open, "a keyed table").into());
                }
                // The `{` is this table's level, counted above.
                self.keyed_header(open, None)
            }
            _ => {
                let r = self.sink.begin_object(None);
                self.sink_result(r, open)?;
                self.stack.push(Frame::Object { open });
                Ok(if self.member()? { Step::Value } else { Step::After })
            }
        }
    }

    /// member = key ":" value / key header / [v2] key keyed-table, at the
    /// key. `true` when a value follows at `pos`; `false` when the member is
    /// complete (a header whose body was empty) or a table's first cell was
    /// handled.
    #[inline(always)]
    fn member(&mut self) -> Result<bool, Failure<E>> {
        let key_at = self.pos;
        let key = self.key()?;
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                let r = self.sink.key(key);
                self.sink_result(r, key_at)?;
                self.skip_ws();
                Ok(true)
            }
            Some(b'[') if self.dialect == Dialect::Stc => {
                let open = self.pos;
                self.pos += 1;
                self.skip_ws();
                let count_at = self.pos;
                let count = self.count()?;
                self.skip_ws();
                if self.peek() != Some(b']') {
                    return Err(self.expected("']' after the array count").into());
                }
                self.pos += 1;
                self.skip_ws();
                match self.peek() {
                    Some(b':' | b'{') => {}
                    _ => return Err(self.expected("':' or '{' after the array header").into()),
                }
                Ok(self.header(open, count_at, count, Some((key, key_at)))? == Step::Value)
            }
            Some(b'{') if self.dialect == Dialect::Stc => {
                let open = self.pos;
                if !self.v2 {
                    return Err(self.newer(open, "a keyed table").into());
                }
                self.pos += 1;
                Ok(self.keyed_header(open, Some((key, key_at)))? == Step::Value)
            }
            _ => Err(self.expected("':' after object key").into()),
        }
    }

    /// After the first number of a JSON array, read at its bracket: the
    /// numbers that follow, each after its `,`, read here rather than one
    /// trip through the main loop per number. Stops before the `,` of
    /// anything else (and at anything but a `,`), where the main loop
    /// continues; a number is read by the same call at the same position
    /// as there, so errors are unchanged.
    #[inline(never)]
    fn number_run(&mut self) -> PResult<E> {
        loop {
            self.skip_ws();
            if self.peek() != Some(b',') {
                return Ok(());
            }
            let comma = self.pos;
            self.pos += 1;
            self.skip_ws();
            let at = self.pos;
            if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.pos = comma;
                return Ok(());
            }
            let lexeme = self.number_lexeme()?;
            let r = self.sink.number_parts(lexeme);
            self.sink_result(r, at)?;
        }
    }

    /// At `[` in value position: a JSON array or a header.
    fn array(&mut self) -> Result<Step, Failure<E>> {
        let open = self.pos;
        self.enter(open)?;
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                let r = self.sink.begin_array(Some(0));
                self.sink_result(r, open)?;
                let r = self.sink.end_array();
                self.sink_result(r, open)?;
                return Ok(Step::After);
            }
            Some(b'-' | b'0'..=b'9') if self.dialect == Dialect::Stc => {
                // `[candidate]` followed by ':' or '{' is a header; anything
                // else makes the number the first element of a JSON array.
                let num_at = self.pos;
                // Fast path: a well-formed number that ends the candidate is
                // read once, whichever it turns out to be.
                if let Ok(shape) = scan_number_shape(self.bytes, num_at) {
                    let end = shape.end;
                    if !self.bytes.get(end).is_some_and(|&b| is_count_byte(b)) {
                        self.pos = end;
                        self.skip_ws();
                        let is_header = self.peek() == Some(b']') && {
                            self.pos += 1;
                            self.skip_ws();
                            matches!(self.peek(), Some(b':' | b'{'))
                        };
                        if is_header {
                            let after = self.pos;
                            self.pos = num_at;
                            let count = self.count()?;
                            self.pos = after;
                            // The `[` is this array's level, counted above.
                            self.depth -= 1;
                            return self.header(open, num_at, count, None);
                        }
                        let r = self.sink.begin_array(None);
                        self.sink_result(r, open)?;
                        self.stack.push(Frame::Array { open });
                        let r = self.sink.number_parts(self.number_at(num_at, shape));
                        self.sink_result(r, num_at)?;
                        self.pos = end;
                        self.number_run()?;
                        return Ok(Step::After);
                    }
                }
                let len = self.bytes[num_at..].iter().take_while(|&&b| is_count_byte(b)).count();
                self.pos = num_at + len;
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.skip_ws();
                    if let Some(b':' | b'{') = self.peek() {
                        let after = self.pos;
                        self.pos = num_at;
                        let count = self.count()?;
                        self.pos = after;
                        // The `[` is this array's level, counted above.
                        self.depth -= 1;
                        return self.header(open, num_at, count, None);
                    }
                }
                self.pos = num_at;
            }
            _ => {}
        }
        let r = self.sink.begin_array(None);
        self.sink_result(r, open)?;
        self.stack.push(Frame::Array { open });
        Ok(Step::Value)
    }
}
