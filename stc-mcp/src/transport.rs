//! The stdio transport of `stc mcp`: one JSON-RPC message per line, with
//! protocol errors for lines that are not messages.
//!
//! rmcp's own line codec drops a line it cannot parse without a word; this
//! transport answers it, as JSON-RPC 2.0 asks: `-32700 Parse error` (id
//! `null`) for a line that is not JSON, `-32600 Invalid Request` (with the
//! line's id when it has one) for JSON that is not an MCP message, and
//! `-32600` for a line longer than the cap, which is skipped without being
//! held in memory. The connection stays usable after each of them.

use std::sync::Arc;

use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::frame::{LineReader, Piece};
use crate::rewrite::Envelope;

/// Newline-delimited JSON-RPC over a byte stream pair, for the server role.
pub struct LineTransport<R, W> {
    reader: LineReader<R>,
    writer: Arc<Mutex<W>>,
    cap: usize,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    /// A transport reading messages of up to `cap` bytes from `input`.
    pub fn new(input: R, output: W, cap: usize) -> Self {
        LineTransport { reader: LineReader::new(input, cap), writer: Arc::new(Mutex::new(output)), cap }
    }
}

/// Writes one message line and flushes.
async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, mut line: Vec<u8>) -> std::io::Result<()> {
    line.push(b'\n');
    let mut w = writer.lock().await;
    w.write_all(&line).await?;
    w.flush().await
}

/// The JSON-RPC error response for a line that is not a message.
fn error_for(line: &[u8]) -> Vec<u8> {
    let (code, message, id) = match serde_json::from_slice::<serde_json::Value>(line) {
        Err(e) => (-32700, format!("Parse error: not JSON ({e})"), serde_json::Value::Null),
        Ok(_) => {
            let id = std::str::from_utf8(line)
                .ok()
                .and_then(|t| serde_json::from_str::<Envelope>(t).ok())
                .and_then(|e| e.id.and_then(|id| serde_json::from_str(id.get()).ok()))
                .unwrap_or(serde_json::Value::Null);
            let detail = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
                Err(e) => e.to_string(),
                Ok(_) => String::new(),
            };
            (-32600, format!("Invalid Request: not an MCP JSON-RPC message ({detail})"), id)
        }
    };
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes()
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        let line = serde_json::to_vec(&item);
        async move {
            let line = line.map_err(std::io::Error::other)?;
            write_line(&writer, line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.reader.next().await {
                Ok(None) | Err(_) => return None,
                Ok(Some(Piece::Line(line))) => {
                    let body = line.trim_ascii();
                    if body.is_empty() {
                        continue;
                    }
                    match serde_json::from_slice(body) {
                        Ok(message) => return Some(message),
                        Err(_) => {
                            if write_line(&self.writer, error_for(body)).await.is_err() {
                                return None;
                            }
                        }
                    }
                }
                Ok(Some(Piece::Part { last, .. })) => {
                    if last {
                        let error = serde_json::json!({
                            "jsonrpc": "2.0", "id": null,
                            "error": {"code": -32600, "message": format!("Invalid Request: message longer than {} bytes", self.cap)}
                        });
                        if write_line(&self.writer, error.to_string().into_bytes()).await.is_err() {
                            return None;
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.writer.lock().await.shutdown().await
    }
}
