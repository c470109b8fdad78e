//! stc-http's integration tests, one binary: the layer in an axum app
//! (`layer`, `versions`), the proxy in front of a real upstream process
//! (`proxy`, `tls`, `fleet`), over loopback TCP.

#[path = "../support/certs.rs"]
mod certs;
mod common;
mod layer;
mod proxy;
#[path = "../support/samples.rs"]
mod samples;
mod tls;
mod versions;
