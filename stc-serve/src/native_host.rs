//! `stc native-host`: the browser native-messaging bridge of seed 003
//! ("Option A").
//!
//! Chrome and Firefox start the host and exchange messages on its stdin and
//! stdout, each a 32-bit length in native byte order followed by that many
//! bytes of UTF-8 JSON. For each message the host opens a connection to the
//! service, writes the JSON as one line, reads one line back, and returns it
//! as one message. Failures become error envelopes in the protocol's own
//! shape (`{"ok": false, "error": …, "detail": …}`), so the extension handles
//! one kind of answer.
//!
//! Limits: browsers refuse host→browser messages above 1 MiB, so a longer
//! answer is replaced by `response_too_large`; browser→host messages may be
//! far larger (up to 4 GiB by the framing), so the host reads at most
//! `max_message_bytes` of one message, skips the rest of a longer one and
//! answers `message_too_large` without ever buffering it.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde_json::Value;

use crate::protocol::error_line;

/// The browsers' limit on one host→browser message.
pub const MAX_TO_BROWSER: usize = 1024 * 1024;

/// Settings of the native host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Address of `stc serve` (`host:port`).
    pub service: String,
    /// Connect, write and read timeout for each exchange with the service.
    pub timeout: Duration,
    /// Largest browser→host message read; longer ones are skipped and answered
    /// with `message_too_large`.
    pub max_message_bytes: usize,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            service: crate::DEFAULT_ADDR.to_owned(),
            timeout: Duration::from_secs(60),
            max_message_bytes: 1024 * 1024,
        }
    }
}

/// Why the host stopped before its input ended cleanly.
#[derive(Debug)]
pub enum HostError {
    /// Standard input ended inside a message.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes expected.
        expected: u64,
        /// Bytes received.
        got: u64,
    },
    /// Reading standard input or writing standard output failed.
    Io(io::Error),
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Truncated { what, expected, got } => {
                write!(f, "standard input ended inside a {what}: {got} of {expected} bytes")
            }
            HostError::Io(e) => write!(f, "native messaging I/O failed: {e}"),
        }
    }
}

impl std::error::Error for HostError {}

/// Bridges the process's stdin and stdout to the service until stdin ends.
pub fn run(config: &HostConfig) -> Result<(), HostError> {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    bridge(stdin, stdout, config)
}

/// [`run`] over any reader and writer.
pub fn bridge<R: Read, W: Write>(mut input: R, mut output: W, config: &HostConfig) -> Result<(), HostError> {
    loop {
        let mut header = [0u8; 4];
        let got = read_full(&mut input, &mut header)?;
        if got == 0 {
            return Ok(());
        }
        if got < 4 {
            return Err(HostError::Truncated { what: "message length", expected: 4, got: got as u64 });
        }
        let len = u64::from(u32::from_ne_bytes(header));
        let reply = if len > config.max_message_bytes as u64 {
            let skipped = io::copy(&mut (&mut input).take(len), &mut io::sink()).map_err(HostError::Io)?;
            if skipped < len {
                return Err(HostError::Truncated { what: "message", expected: len, got: skipped });
            }
            error_line(
                "message_too_large",
                format!("message of {len} bytes exceeds the host's limit of {} bytes", config.max_message_bytes),
            )
        } else {
            let mut body = vec![0u8; len as usize];
            let got = read_full(&mut input, &mut body)?;
            if got < body.len() {
                return Err(HostError::Truncated { what: "message", expected: len, got: got as u64 });
            }
            match serde_json::from_slice::<Value>(&body) {
                Ok(value) => exchange(&value, config),
                Err(e) => error_line("invalid_json", format!("message is not valid JSON: {e}")),
            }
        };
        write_frame(&mut output, trim_newline(&reply)).map_err(HostError::Io)?;
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> Result<usize, HostError> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(HostError::Io(e)),
        }
    }
    Ok(filled)
}

/// Writes one length-prefixed message.
pub fn write_frame<W: Write>(output: &mut W, message: &[u8]) -> io::Result<()> {
    let len = u32::try_from(message.len()).map_err(|_| io::Error::other("message longer than 4 GiB"))?;
    output.write_all(&len.to_ne_bytes())?;
    output.write_all(message)?;
    output.flush()
}

/// Sends one request line to the service and returns its reply line, or an
/// error envelope saying what went wrong.
fn exchange(request: &Value, config: &HostConfig) -> Vec<u8> {
    let mut line = serde_json::to_vec(request).unwrap_or_default();
    line.push(b'\n');
    let mut stream = match connect(&config.service, config.timeout) {
        Ok(s) => s,
        Err(e) => {
            return error_line(
                "service_unavailable",
                format!("cannot connect to the stc service at {}: {e} (is `stc serve` running?)", config.service),
            )
        }
    };
    let _ = stream.set_read_timeout(Some(config.timeout));
    let _ = stream.set_write_timeout(Some(config.timeout));
    if let Err(e) = stream.write_all(&line) {
        return io_failure(e, config, "sending the request");
    }
    let mut reply = Vec::new();
    let mut reader = BufReader::new(stream).take(MAX_TO_BROWSER as u64 + 2);
    match reader.read_until(b'\n', &mut reply) {
        Ok(_) => {}
        Err(e) => return io_failure(e, config, "reading the reply"),
    }
    if reply.last() != Some(&b'\n') {
        if reply.len() as u64 > MAX_TO_BROWSER as u64 {
            return error_line(
                "response_too_large",
                format!("the service's reply exceeds the browsers' {MAX_TO_BROWSER}-byte limit for one message"),
            );
        }
        return error_line(
            "service_closed",
            format!("the stc service at {} closed the connection before replying", config.service),
        );
    }
    let body = trim_newline(&reply);
    if body.len() > MAX_TO_BROWSER {
        return error_line(
            "response_too_large",
            format!("the service's reply has {} bytes; browsers accept at most {MAX_TO_BROWSER}", body.len()),
        );
    }
    if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
        return error_line("bad_service_response", format!("{} did not answer with a JSON line", config.service));
    }
    body.to_vec()
}

fn io_failure(e: io::Error, config: &HostConfig, doing: &str) -> Vec<u8> {
    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) {
        error_line(
            "service_timeout",
            format!("the stc service at {} did not answer within {:?} while {doing}", config.service, config.timeout),
        )
    } else {
        error_line(
            "service_closed",
            format!("connection to the stc service at {} failed while {doing}: {e}", config.service),
        )
    }
}

fn connect(service: &str, timeout: Duration) -> io::Result<TcpStream> {
    let addrs: Vec<SocketAddr> = service.to_socket_addrs()?.collect();
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the address resolved to nothing");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write_frame(&mut out, body).unwrap();
        out
    }

    fn frames(mut bytes: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let len = u32::from_ne_bytes(bytes[..4].try_into().unwrap()) as usize;
            out.push(serde_json::from_slice(&bytes[4..4 + len]).unwrap());
            bytes = &bytes[4 + len..];
        }
        out
    }

    /// A port nothing listens on (bound, then released).
    fn closed_port() -> String {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    }

    #[test]
    fn service_down_oversize_and_bad_json_get_error_envelopes() {
        let config = HostConfig { service: closed_port(), max_message_bytes: 16, ..HostConfig::default() };
        let mut input = frame(br#"{"action":"ping"}"#[..16].as_ref());
        input.extend(frame(br#"{"action":"ping"}"#));
        input.extend(frame(b"[1,2]"));
        let mut out = Vec::new();
        bridge(&input[..], &mut out, &config).unwrap();
        let got = frames(&out);
        let codes: Vec<_> = got.iter().map(|v| v["error"].as_str().unwrap().to_owned()).collect();
        assert_eq!(codes, ["invalid_json", "message_too_large", "service_unavailable"]);
        assert!(got[2]["detail"].as_str().unwrap().contains(&config.service));
    }

    /// A one-connection-at-a-time fake service on loopback that answers each
    /// request with `reply` (`None`: never answers; empty: closes at once).
    fn fake_service(reply: Option<&'static [u8]>, connections: usize) -> (String, std::thread::JoinHandle<()>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let handle = std::thread::spawn(move || {
            for _ in 0..connections {
                let (mut stream, _) = listener.accept().unwrap();
                let mut line = String::new();
                BufReader::new(stream.try_clone().unwrap()).read_line(&mut line).unwrap();
                assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'), "{line:?}");
                match reply {
                    Some(r) => stream.write_all(r).unwrap(),
                    // Hold the connection until the host gives up.
                    None => {
                        let _ = stream.read(&mut [0u8; 1]);
                    }
                }
            }
        });
        (addr, handle)
    }

    #[test]
    fn misbehaving_services_get_clear_errors() {
        for (reply, code) in [
            (Some(&b"hello\n"[..]), "bad_service_response"),
            (Some(&b""[..]), "service_closed"),
            (Some(&b"{\"ok\":true,\"result\":{}}"[..]), "service_closed"),
            (None, "service_timeout"),
        ] {
            let (addr, service) = fake_service(reply, 1);
            let config = HostConfig { service: addr, timeout: Duration::from_millis(300), ..HostConfig::default() };
            let mut out = Vec::new();
            bridge(&frame(b"{\"action\":\n\"ping\"}")[..], &mut out, &config).unwrap();
            let got = frames(&out);
            assert_eq!(got[0]["error"], code, "{:?}: {}", reply.map(String::from_utf8_lossy), got[0]);
            service.join().unwrap();
        }
        let (addr, service) = fake_service(Some(b"{\"ok\":true}\r\n"), 2);
        let config = HostConfig { service: addr, ..HostConfig::default() };
        let mut input = frame(b"{}");
        input.extend(frame(b"{}"));
        let mut out = Vec::new();
        bridge(&input[..], &mut out, &config).unwrap();
        assert_eq!(frames(&out), vec![serde_json::json!({"ok": true}); 2]);
        service.join().unwrap();
    }

    #[test]
    fn truncated_input_is_an_error() {
        let config = HostConfig { service: closed_port(), ..HostConfig::default() };
        let err = bridge(&[1u8, 0][..], Vec::new(), &config).unwrap_err();
        assert!(err.to_string().contains("message length"), "{err}");
        let mut input = 10u32.to_ne_bytes().to_vec();
        input.extend(b"{}");
        let err = bridge(&input[..], Vec::new(), &config).unwrap_err();
        assert!(err.to_string().contains("2 of 10"), "{err}");
        assert!(bridge(&[][..], Vec::new(), &config).is_ok());
    }
}
