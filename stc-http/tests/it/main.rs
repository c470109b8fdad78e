//! stc-http's integration tests, one binary: the layer in an axum app
//! (`layer`, `versions`), the proxy in front of a real upstream process
//! (`proxy`, `tls`, `fleet`), over loopback TCP.

mod common;
mod layer;
mod proxy;
mod tls;
mod versions;
