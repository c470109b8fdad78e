//! `/healthz` and `/readyz`, answered by the proxy itself for a load balancer.
//!
//! `/healthz` is 200 while the process serves. `/readyz` is 200 when the
//! upstream accepts a TCP connection (checked at most once a second, within
//! a second) and the proxy is not draining; else 503 with the reason.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use http::{Response, StatusCode};

use super::forward::json_string;
use super::upstream::Upstream;
use super::Error;

/// How long a readiness answer is reused.
const CACHE_FOR: Duration = Duration::from_secs(1);
/// Longest wait for the upstream's TCP connect in a readiness check.
const CHECK_WITHIN: Duration = Duration::from_secs(1);

/// Which probe a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    Alive,
    Ready,
}

/// The probes' paths and the readiness state.
#[derive(Debug)]
pub(crate) struct Health {
    healthz: String,
    readyz: String,
    host: String,
    port: u16,
    check_within: Duration,
    draining: AtomicBool,
    /// The last upstream check: when, and its failure if it failed.
    last: Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Health {
    /// Probes at `PREFIX/healthz` and `PREFIX/readyz`; `prefix` is empty or
    /// starts with `/` and does not end with one.
    pub(crate) fn new(prefix: &str, upstream: &Upstream, connect_timeout: Duration) -> Result<Health, Error> {
        let valid = prefix.is_empty()
            || (prefix.starts_with('/')
                && !prefix.ends_with('/')
                && prefix.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'?' | b'#')));
        if !valid {
            return Err(Error::Config(format!(
                "health prefix {prefix:?}: give a path such as /_stc (starting with /, not ending with /, no ? or #), or nothing"
            )));
        }
        let (host, port) = upstream.host_port();
        Ok(Health {
            healthz: format!("{prefix}/healthz"),
            readyz: format!("{prefix}/readyz"),
            host,
            port,
            check_within: connect_timeout.min(CHECK_WITHIN),
            draining: AtomicBool::new(false),
            last: Mutex::new(None),
        })
    }

    /// The probe at `path`, if it is one.
    pub(crate) fn probe(&self, path: &str) -> Option<Probe> {
        if path == self.healthz {
            Some(Probe::Alive)
        } else if path == self.readyz {
            Some(Probe::Ready)
        } else {
            None
        }
    }

    /// From now on `/readyz` answers 503 (`draining`).
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// The answer to `probe`: a status and a short JSON body.
    pub(crate) async fn answer(&self, probe: Probe) -> Response<Bytes> {
        let state = match probe {
            Probe::Alive => Ok(()),
            Probe::Ready if self.draining.load(Ordering::SeqCst) => Err("draining".to_string()),
            Probe::Ready => self.upstream_reachable().await,
        };
        let (status, body) = match state {
            Ok(()) => (
                StatusCode::OK,
                if probe == Probe::Alive {
                    r#"{"status":"alive"}"#.to_string()
                } else {
                    r#"{"status":"ready"}"#.to_string()
                },
            ),
            Err(reason) => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("{{\"status\":\"not_ready\",\"reason\":{}}}", json_string(&reason)),
            ),
        };
        let mut response = Response::new(Bytes::from(body));
        *response.status_mut() = status;
        response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }

    /// Whether the upstream accepts a TCP connection, from the last check when it is recent.
    async fn upstream_reachable(&self) -> Result<(), String> {
        if let Some((at, result)) = &*self.last.lock().expect("never poisoned") {
            if at.elapsed() < CACHE_FOR {
                return result.clone();
            }
        }
        let address = (self.host.as_str(), self.port);
        let result = match tokio::time::timeout(self.check_within, tokio::net::TcpStream::connect(address)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(format!("upstream {}:{} unreachable: {e}", self.host, self.port)),
            Err(_) => Err(format!(
                "upstream {}:{} unreachable: no connection within {} ms",
                self.host,
                self.port,
                self.check_within.as_millis()
            )),
        };
        *self.last.lock().expect("never poisoned") = Some((Instant::now(), result.clone()));
        result
    }
}
