//! Reading newline-terminated lines from an untrusted stream: bounded
//! length, bounded silence, and a clear outcome for every case.

use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What [`LineReader::next`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Complete(Vec<u8>),
    /// The line grew past the limit. Reported as soon as that happens; the
    /// rest of the line, up to its `\n`, is read and dropped by the following
    /// calls, so the next `Complete` is the next line.
    TooLong,
    /// The stream ended in the middle of a line: these are the bytes after
    /// the last `\n`.
    Partial(Vec<u8>),
    /// The stream ended after a complete line (or nothing).
    Eof,
    /// No byte arrived within the idle timeout.
    Idle,
}

/// Splits a byte stream into lines of at most `max` bytes.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    idle: Duration,
    discarding: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// A reader of lines up to `max` bytes that gives up after `idle` without data.
    pub fn new(inner: R, max: usize, idle: Duration) -> Self {
        LineReader { inner, max, idle, discarding: false }
    }

    /// The next line, or how the stream ended.
    pub async fn next(&mut self) -> std::io::Result<Line> {
        let mut line = Vec::new();
        loop {
            let buf = match tokio::time::timeout(self.idle, self.inner.fill_buf()).await {
                Err(_) => return Ok(Line::Idle),
                Ok(r) => r?,
            };
            if buf.is_empty() {
                let discarded = std::mem::take(&mut self.discarding);
                return Ok(if line.is_empty() || discarded { Line::Eof } else { Line::Partial(line) });
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let too_long = !self.discarding && line.len() + i > self.max;
                    if !self.discarding && !too_long {
                        line.extend_from_slice(&buf[..i]);
                    }
                    self.inner.consume(i + 1);
                    if std::mem::take(&mut self.discarding) {
                        // The end of a line already reported as too long.
                        continue;
                    }
                    if too_long {
                        return Ok(Line::TooLong);
                    }
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    return Ok(Line::Complete(line));
                }
                None => {
                    let n = buf.len();
                    if !self.discarding {
                        if line.len() + n > self.max {
                            self.inner.consume(n);
                            self.discarding = true;
                            return Ok(Line::TooLong);
                        }
                        line.extend_from_slice(buf);
                    }
                    self.inner.consume(n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncWriteExt, BufReader};

    async fn lines(input: &[u8], max: usize, chunk: usize) -> Vec<Line> {
        let (mut w, r) = tokio::io::duplex(7);
        let data = input.to_vec();
        let writer = tokio::spawn(async move {
            for c in data.chunks(chunk) {
                w.write_all(c).await.unwrap();
            }
        });
        let mut reader = LineReader::new(BufReader::with_capacity(5, r), max, Duration::from_secs(30));
        let mut out = Vec::new();
        loop {
            let l = reader.next().await.unwrap();
            let end = matches!(l, Line::Eof | Line::Partial(_));
            out.push(l);
            if end {
                break;
            }
        }
        writer.await.unwrap();
        out
    }

    #[tokio::test]
    async fn splits_limits_and_recovers() {
        for chunk in [1, 3, 64] {
            let got = lines(b"ab\r\n\n0123456789\nxyz\n0123456789abc\nok\ntail", 10, chunk).await;
            assert_eq!(
                got,
                vec![
                    Line::Complete(b"ab".to_vec()),
                    Line::Complete(vec![]),
                    Line::Complete(b"0123456789".to_vec()),
                    Line::Complete(b"xyz".to_vec()),
                    Line::TooLong,
                    Line::Complete(b"ok".to_vec()),
                    Line::Partial(b"tail".to_vec()),
                ],
                "chunk {chunk}"
            );
        }
        assert_eq!(lines(b"a\n", 10, 1).await, vec![Line::Complete(b"a".to_vec()), Line::Eof]);
        assert_eq!(lines(b"0123456789abcdef", 10, 4).await, vec![Line::TooLong, Line::Eof]);
    }

    /// What the reader must return, computed the obvious way on the whole input.
    fn reference(input: &[u8], max: usize) -> Vec<Line> {
        let mut out = Vec::new();
        let mut parts: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        let tail = parts.pop().unwrap_or_default();
        for p in parts {
            out.push(if p.len() > max {
                Line::TooLong
            } else {
                Line::Complete(p.strip_suffix(b"\r").unwrap_or(p).to_vec())
            });
        }
        out.push(match tail.len() {
            0 => Line::Eof,
            n if n > max => Line::TooLong,
            _ => Line::Partial(tail.to_vec()),
        });
        if out.last() == Some(&Line::TooLong) {
            out.push(Line::Eof);
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn matches_the_reference_for_any_input_and_chunking(
            input in proptest::collection::vec(proptest::sample::select(b"ab\r\n".to_vec()), 0..200),
            max in 0usize..12,
            chunk in 1usize..9,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let got = runtime.block_on(lines(&input, max, chunk));
            proptest::prop_assert_eq!(got, reference(&input, max));
        }
    }

    #[tokio::test]
    async fn silence_is_reported() {
        let (_w, r) = tokio::io::duplex(8);
        let mut reader = LineReader::new(BufReader::new(r), 10, Duration::from_millis(20));
        assert_eq!(reader.next().await.unwrap(), Line::Idle);
    }
}
