//! `StreamJson`: decoded JSON streamed to standard output in chunks.

use std::io::Write;

use stc_core::Sink;

/// How much decoded JSON [`StreamJson`] collects before handing it on: big
/// enough that each hand-over is one large write, small enough to stay in
/// the allocator's heap (below glibc's 128 KiB mmap threshold).
pub(crate) const CHUNK: usize = 64 << 10;

/// A [`Sink`](stc_core::Sink) that forwards every event to the core's
/// [`JsonWriter`](stc_core::JsonWriter) and hands the text written so far to
/// `out` whenever about [`CHUNK`] bytes have collected, so decoded JSON goes
/// out as it is made. All JSON is written by the core's writer; the one
/// thing this adapter must know is the separator rule across a hand-over:
/// a fresh writer does not know that the last thing written was a complete
/// value, so when the next event is a value or key (not a closing bracket)
/// the adapter writes that `,` itself. (With a core hook that empties the
/// writer's buffer in place, keeping its state, this would go away.)
pub(crate) struct StreamJson<W: Write> {
    writer: stc_core::JsonWriter,
    out: W,
    /// Hand the text on at about this many bytes ([`CHUNK`]; smaller in tests).
    chunk: usize,
    /// About how many bytes `writer` holds.
    pending: usize,
    /// The last event before the hand-over completed a value.
    complete: bool,
    /// A `,` is due before the next value or key (a hand-over after a complete value).
    comma_due: bool,
    /// The first write error; the parse is aborted when it happens.
    pub(crate) error: Option<std::io::Error>,
}

impl<W: Write> StreamJson<W> {
    pub(crate) fn new(out: W, chunk: usize) -> Self {
        StreamJson {
            writer: stc_core::JsonWriter::with_capacity(chunk + chunk / 4),
            out,
            chunk,
            pending: 0,
            complete: false,
            comma_due: false,
            error: None,
        }
    }

    /// Before an event: the comma owed from a hand-over, unless a bracket closes.
    fn before(&mut self, closing: bool) -> Result<(), stc_core::Abort> {
        if std::mem::take(&mut self.comma_due) && !closing {
            self.io(|out| out.write_all(b","))?;
        }
        Ok(())
    }

    /// After an event of about `bytes` bytes: hand the text on when a chunk is full.
    fn after(&mut self, bytes: usize, complete: bool) -> Result<(), stc_core::Abort> {
        self.complete = complete;
        self.pending += bytes;
        if self.pending >= self.chunk {
            let fresh = stc_core::JsonWriter::with_capacity(self.chunk + self.chunk / 4);
            let text = std::mem::replace(&mut self.writer, fresh).into_string();
            self.pending = 0;
            self.comma_due = self.complete;
            self.io(|out| out.write_all(text.as_bytes()))?;
        }
        Ok(())
    }

    fn io(&mut self, f: impl FnOnce(&mut W) -> std::io::Result<()>) -> Result<(), stc_core::Abort> {
        f(&mut self.out).map_err(|e| {
            self.error = Some(e);
            stc_core::Abort
        })
    }

    /// The rest of the text, the final newline, and a flush.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let text = std::mem::take(&mut self.writer).into_string();
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

impl<'a, W: Write> Sink<'a> for StreamJson<W> {
    fn null(&mut self) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.null()?;
        self.after(5, true)
    }
    fn boolean(&mut self, value: bool) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.boolean(value)?;
        self.after(6, true)
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.number(lexeme)?;
        self.after(lexeme.len() + 1, true)
    }
    fn string(&mut self, value: stc_core::JsonStr<'a>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        let bytes = value.raw().len() + 3;
        self.writer.string(value)?;
        self.after(bytes, true)
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.begin_array(len)?;
        self.after(2, false)
    }
    fn end_array(&mut self) -> Result<(), stc_core::Abort> {
        self.before(true)?;
        self.writer.end_array()?;
        self.after(1, true)
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        self.writer.begin_object(len)?;
        self.after(2, false)
    }
    fn key(&mut self, key: stc_core::JsonStr<'a>) -> Result<(), stc_core::Abort> {
        self.before(false)?;
        let bytes = key.raw().len() + 4;
        self.writer.key(key)?;
        self.after(bytes, false)
    }
    fn end_object(&mut self) -> Result<(), stc_core::Abort> {
        self.before(true)?;
        self.writer.end_object()?;
        self.after(1, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stc_core::Limits;

    /// Every chunk size from 1 byte up puts a hand-over after every kind of
    /// event (a value, a key, an opening or closing bracket): the streamed
    /// text must equal the core's one-piece decode each time.
    #[test]
    fn stream_json_equals_the_cores_decode_at_every_chunk_size() {
        let texts = [
            r#"{a:1,"b c":[2]:true,null,e:{},f:[],g:[[],[{}]],h:"x\u00e9\n",i:-0.5e3}"#,
            r#"([3]{id,name,tags}: 1,"a",[2]:"x","y" / 2,"b",[0]: / 3,"c",[1]:[])"#,
            r#"[[1,2],[3,[4,[5]]],{"k":[{"l":null}]},"s",false]"#,
            "7",
            r#""only a string""#,
        ];
        for text in texts {
            let expected = stc_core::decode(text).unwrap();
            for chunk in 1..expected.len() + 2 {
                let mut sink = StreamJson::new(Vec::new(), chunk);
                stc_core::parse_stc(text, &Limits::default(), &mut sink).unwrap();
                assert!(sink.error.is_none());
                let mut out = Vec::new();
                let rest = std::mem::take(&mut sink.writer).into_string();
                out.extend_from_slice(&sink.out);
                out.extend_from_slice(rest.as_bytes());
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{text} at chunk {chunk}");
            }
        }
    }
}
