//! Newline-delimited framing with a size cap, for the proxy's two streams.
//!
//! MCP's stdio transport sends one JSON-RPC message per line. A line up to the
//! cap comes back whole, so it can be inspected; a longer line comes back in
//! parts, so it can be forwarded without holding it in memory. Reading is
//! cancel-safe: [`LineReader::next`] can be used in `tokio::select!`.

use std::pin::Pin;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, BufReader};

/// What [`LineReader::next`] returns.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// A whole line of at most the cap, with its `\n` when it had one (the
    /// last line of a stream may lack it).
    Line(Vec<u8>),
    /// Part of a line longer than the cap; `last` is set on the part that
    /// ends the line (with its `\n`, or at the end of the stream).
    Part {
        /// The bytes of this part.
        bytes: Vec<u8>,
        /// Whether this part ends the line.
        last: bool,
    },
}

/// Reads lines of at most `cap` bytes whole, and longer ones in parts.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
    cap: usize,
    buf: Vec<u8>,
    oversize: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader that returns lines of up to `cap` bytes (not counting `\n`) whole.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use stc_mcp::frame::{LineReader, Piece};
    /// let mut r = LineReader::new(&b"{}\n[1,2,3,4]\n"[..], 8);
    /// assert_eq!(r.next().await.unwrap(), Some(Piece::Line(b"{}\n".to_vec())));
    /// assert_eq!(r.next().await.unwrap(), Some(Piece::Part { bytes: b"[1,2,3,4]\n".to_vec(), last: true }));
    /// assert_eq!(r.next().await.unwrap(), None);
    /// # });
    /// ```
    pub fn new(inner: R, cap: usize) -> LineReader<R> {
        LineReader { inner: BufReader::with_capacity(64 * 1024, inner), cap, buf: Vec::new(), oversize: false }
    }

    /// The next line or part of a line; `None` at the end of the stream.
    pub async fn next(&mut self) -> std::io::Result<Option<Piece>> {
        loop {
            // Only `fill_buf` awaits; the state changes below happen without an
            // await in between, which keeps this method cancel-safe.
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                let bytes = std::mem::take(&mut self.buf);
                if std::mem::take(&mut self.oversize) {
                    return Ok(Some(Piece::Part { bytes, last: true }));
                }
                return Ok(if bytes.is_empty() { None } else { Some(self.whole(bytes)) });
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.buf.extend_from_slice(&available[..=i]);
                    Pin::new(&mut self.inner).consume(i + 1);
                    let bytes = std::mem::take(&mut self.buf);
                    if std::mem::take(&mut self.oversize) {
                        return Ok(Some(Piece::Part { bytes, last: true }));
                    }
                    return Ok(Some(self.whole(bytes)));
                }
                None => {
                    let n = available.len();
                    self.buf.extend_from_slice(available);
                    Pin::new(&mut self.inner).consume(n);
                    if self.oversize || self.buf.len() > self.cap {
                        self.oversize = true;
                        return Ok(Some(Piece::Part { bytes: std::mem::take(&mut self.buf), last: false }));
                    }
                }
            }
        }
    }

    /// A line read in one go: whole if it fits the cap, else one last part.
    fn whole(&self, bytes: Vec<u8>) -> Piece {
        let len = bytes.len() - usize::from(bytes.ends_with(b"\n"));
        if len > self.cap {
            Piece::Part { bytes, last: true }
        } else {
            Piece::Line(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], cap: usize) -> Vec<Piece> {
        // A tiny inner buffer exercises lines that span several reads.
        let mut r = LineReader { inner: BufReader::with_capacity(3, input), cap, buf: Vec::new(), oversize: false };
        let mut out = Vec::new();
        while let Some(p) = r.next().await.unwrap() {
            out.push(p);
        }
        out
    }

    fn run<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn whole_lines_and_a_last_line_without_newline() {
        let pieces = run(all(b"ab\n\ncdef\nxyz", 4));
        assert_eq!(
            pieces,
            vec![
                Piece::Line(b"ab\n".to_vec()),
                Piece::Line(b"\n".to_vec()),
                Piece::Line(b"cdef\n".to_vec()),
                Piece::Line(b"xyz".to_vec())
            ]
        );
    }

    #[test]
    fn oversize_lines_come_in_parts_that_add_up() {
        let input = b"0123456789abcdef\nok\n0123456789";
        let pieces = run(all(input, 4));
        let mut joined = Vec::new();
        let mut lasts = 0;
        for p in &pieces {
            match p {
                Piece::Line(b) => {
                    assert_eq!(b, b"ok\n");
                    joined.extend_from_slice(b)
                }
                Piece::Part { bytes, last } => {
                    joined.extend_from_slice(bytes);
                    lasts += usize::from(*last);
                }
            }
        }
        assert_eq!(joined, input.to_vec());
        assert_eq!(lasts, 2, "{pieces:?}");
        assert!(pieces.contains(&Piece::Line(b"ok\n".to_vec())));
    }
}
