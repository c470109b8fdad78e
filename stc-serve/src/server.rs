//! The TCP front-end: accept loop, connection limits, per-connection line
//! handling, periodic saving and graceful shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch, Semaphore};
use tokio::task::JoinHandle;

use crate::lines::{Line, LineReader};
use crate::protocol::{error_line, Service};
use crate::store::{self, State};
use crate::{Config, Error};

/// A running service. Dropping it without [`shutdown`](Server::shutdown)
/// stops accepting but skips the final save.
pub struct Server {
    local_addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), Error>>,
}

impl Server {
    /// Checks the address, loads the context file, binds, loads the
    /// tokenizer, and starts serving on the current tokio runtime.
    pub async fn start(config: Config) -> Result<Server, Error> {
        config.check()?;
        if !config.allow_remote && !config.addr.ip().is_loopback() {
            return Err(Error::RemoteRefused(config.addr));
        }
        let state = match &config.context_file {
            Some(path) => {
                let path = path.clone();
                tokio::task::spawn_blocking(move || store::load(&path))
                    .await
                    .map_err(|e| Error::Io(std::io::Error::other(e)))?
                    .map_err(Error::Load)?
            }
            None => State::default(),
        };
        let service = Arc::new(Service::new(state, config.protocol_limits()));
        let warm = service.clone();
        tokio::task::spawn_blocking(move || warm.warm_up()).await.map_err(|e| Error::Io(std::io::Error::other(e)))?;
        let listener =
            TcpListener::bind(config.addr).await.map_err(|source| Error::Bind { addr: config.addr, source })?;
        let local_addr = listener.local_addr().map_err(Error::Io)?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(run(listener, service, config, stopped));
        Ok(Server { local_addr, stop: Some(stop), task })
    }

    /// The address the service listens on (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, closes connections, and saves the context a last
    /// time; every change acknowledged before is in the file.
    pub async fn shutdown(mut self) -> Result<(), Error> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.map_err(|e| Error::Io(std::io::Error::other(e)))?
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.stop.is_some() {
            self.task.abort();
        }
    }
}

/// Writes the context file; never writes an older generation over a newer one.
struct Persister {
    path: PathBuf,
    written: Mutex<u64>,
}

impl Persister {
    fn save(&self, generation: u64, bytes: &[u8]) -> std::io::Result<()> {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if generation <= *written {
            return Ok(());
        }
        store::save_atomic(&self.path, bytes)?;
        *written = generation;
        Ok(())
    }
}

/// Takes a snapshot if the state changed since `since` (or always with `force`).
fn snapshot(service: &Service, since: u64, stopping: bool) -> Option<(u64, Vec<u8>)> {
    let mut state = service.lock();
    if stopping {
        state.shutting_down = true;
        // Strictly above anything the saver may have written.
        state.generation += 1;
    } else if state.generation == since {
        return None;
    }
    Some((state.generation, state.to_file_bytes()))
}

async fn save(persister: &Arc<Persister>, generation: u64, bytes: Vec<u8>) -> Result<(), Error> {
    let p = persister.clone();
    tokio::task::spawn_blocking(move || p.save(generation, &bytes))
        .await
        .map_err(|e| Error::Io(std::io::Error::other(e)))?
        .map_err(|source| Error::Save { path: persister.path.clone(), source })
}

async fn saver(service: Arc<Service>, persister: Arc<Persister>, every: Duration) {
    // The first tick one interval after start (interval() would fire at once).
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut saved = 0;
    loop {
        ticks.tick().await;
        if let Some((generation, bytes)) = snapshot(&service, saved, false) {
            match save(&persister, generation, bytes).await {
                Ok(()) => saved = generation,
                Err(e) => tracing::warn!("{e}; retrying at the next interval"),
            }
        }
    }
}

struct ConnLimits {
    max_line: usize,
    idle: Duration,
}

async fn run(
    listener: TcpListener,
    service: Arc<Service>,
    config: Config,
    mut stopped: oneshot::Receiver<()>,
) -> Result<(), Error> {
    let permits = Arc::new(Semaphore::new(config.max_connections));
    let limits = Arc::new(ConnLimits { max_line: config.max_line_bytes, idle: config.idle_timeout });
    let (closing_tx, closing) = watch::channel(false);
    let persister = config.context_file.clone().map(|path| Arc::new(Persister { path, written: Mutex::new(0) }));
    let saver = persister.clone().map(|p| tokio::spawn(saver(service.clone(), p, config.save_interval)));
    loop {
        tokio::select! {
            _ = &mut stopped => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => match permits.clone().try_acquire_owned() {
                    Ok(permit) => {
                        let (service, limits, closing) = (service.clone(), limits.clone(), closing.clone());
                        tokio::spawn(async move {
                            connection(stream, service, limits, closing).await;
                            drop(permit);
                        });
                    }
                    Err(_) => {
                        let max = config.max_connections;
                        tokio::spawn(refuse(stream, max));
                    }
                },
                // Out of file descriptors and the like: wait a little, keep serving.
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
    let _ = closing_tx.send(true);
    if let Some(s) = saver {
        s.abort();
    }
    if let Some(p) = persister {
        if let Some((generation, bytes)) = snapshot(&service, 0, true) {
            save(&p, generation, bytes).await?;
        }
    } else {
        service.lock().shutting_down = true;
    }
    Ok(())
}

async fn refuse(mut stream: TcpStream, max: usize) {
    let line = error_line("too_many_connections", format!("the service already has {max} connections; retry later"));
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(&line).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

async fn connection(
    stream: TcpStream,
    service: Arc<Service>,
    limits: Arc<ConnLimits>,
    mut closing: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut lines = LineReader::new(BufReader::with_capacity(64 * 1024, read), limits.max_line, limits.idle);
    loop {
        let next = tokio::select! {
            l = lines.next() => l,
            _ = closing.changed() => break,
        };
        let (reply, last) = match next {
            Err(_) | Ok(Line::Eof) => break,
            Ok(Line::Complete(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(Line::Complete(line)) => (handle(&service, line).await, false),
            Ok(Line::TooLong) => (
                error_line(
                    "line_too_long",
                    format!("request line exceeds {} bytes; the rest of this line is discarded", limits.max_line),
                ),
                false,
            ),
            Ok(Line::Idle) => {
                (error_line("idle_timeout", format!("no data for {:?}; closing the connection", limits.idle)), true)
            }
            Ok(Line::Partial(line)) => {
                // A JSON text cannot be cut and stay valid (only trailing
                // whitespace could be lost), so a final line that parses is
                // complete; anything else was cut off.
                if serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok() {
                    (handle(&service, line).await, true)
                } else if line.iter().all(u8::is_ascii_whitespace) {
                    break;
                } else {
                    (
                        error_line(
                            "incomplete_line",
                            format!(
                                "the connection ended after {} bytes of an unterminated line; not executed",
                                line.len()
                            ),
                        ),
                        true,
                    )
                }
            }
        };
        match tokio::time::timeout(limits.idle, write.write_all(&reply)).await {
            Ok(Ok(())) => {}
            _ => break,
        }
        if last {
            break;
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), write.shutdown()).await;
}

/// Runs the handler off the reactor (token counting and base54 are CPU work).
async fn handle(service: &Arc<Service>, line: Vec<u8>) -> Vec<u8> {
    let s = service.clone();
    match tokio::task::spawn_blocking(move || s.handle(&line)).await {
        Ok(reply) => reply,
        Err(_) => error_line("internal_error", "the request handler failed; the service keeps running"),
    }
}
