//! stc-mcp's integration tests, one binary. The library runs in-process:
//! [`listen`] serves `http::listen::serve` on a loopback listener, on a
//! runtime of its own, around a real MCP server (the official Python SDK's,
//! `tests/fixtures/http_server.py`, over stdio or under uvicorn), with real
//! SDK clients (`tests/fixtures/http_client.py`: 2.x `Client` in legacy and
//! auto modes, 1.x `ClientSession`) or raw HTTP (reqwest).
//! Needs target/mcp2-venv and target/mcp-venv (scripts/prereqs/30-mcp.sh).
//! The `stc` binary's own flags, exit codes, signals and log format are
//! tested in stc-cli.

use stc_mcp::http::listen::{self, ListenOptions};
use stc_mcp::http::upstream::UpstreamOptions;
use stc_mcp::ProxyOptions;
use std::net::SocketAddr;
use std::time::Duration;

mod http;
#[path = "../support/peers.rs"]
mod peers;
mod stdio;

use peers::*;

/// `http::listen::serve` running in-process on 127.0.0.1 (any free port);
/// stopped (its shutdown future completed) and joined on drop.
struct Listening {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serves `proxy` with `options` (whose address is replaced by 127.0.0.1:0).
fn listen_in_process(proxy: ProxyOptions, mut options: ListenOptions) -> Listening {
    options.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    options.drain_grace = Duration::from_secs(5);
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = listen::bind(&options).await.unwrap();
            let shutdown = async {
                let _ = stopped.await;
            };
            let announce = |addr| {
                let _ = addr_tx.send(addr);
            };
            listen::serve(listener, proxy, options, shutdown, announce).await.unwrap();
        });
        runtime.shutdown_timeout(Duration::from_secs(5));
    });
    let addr = addr_rx.recv_timeout(Duration::from_secs(60)).expect("the service did not start");
    Listening { url: format!("http://{addr}/mcp"), stop: Some(stop), thread: Some(thread) }
}

/// The 2.x fixture server over stdio, behind the in-process service.
fn listen_around_the_fixture(configure: impl FnOnce(&mut ProxyOptions, &mut ListenOptions)) -> Listening {
    let mut proxy = ProxyOptions::new(python2(), vec![fixture("http_server.py").into()]);
    let mut options = ListenOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
    configure(&mut proxy, &mut options);
    listen_in_process(proxy, options)
}

/// The in-process service in front of a remote server at `url`.
fn listen_upstream(url: &str) -> Listening {
    let mut options = ListenOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
    options.upstream = Some(UpstreamOptions::new(url.parse().unwrap()));
    // No child with an upstream: the command is not run.
    listen_in_process(ProxyOptions::new("unused", Vec::new()), options)
}
