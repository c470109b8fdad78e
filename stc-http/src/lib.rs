//! STC over HTTP: a tower layer that serves application/stc+json, and the reverse proxy behind `stc proxy`.
//!
//! [`StcLayer`] negotiates per request (spec section 7): a client that names
//! `application/stc+json` in `Accept` (the browser-safe way) or `stc` in
//! `Accept-Encoding` (ADR-066) gets JSON responses as STC, when the
//! do-no-harm gate finds that STC saves tokens; every other client, and every
//! other response, passes through unchanged.
//!
//! ```no_run
//! # async fn doc() -> std::io::Result<()> {
//! use axum::{routing::get, Json, Router};
//! let app = Router::new()
//!     .route("/users", get(|| async { Json(vec![1, 2, 3]) }))
//!     .layer(stc_http::StcLayer::new());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! axum::serve(listener, app).await
//! # }
//! ```
#![forbid(unsafe_code)]

mod body;
mod layer;
mod negotiate;
pub mod proxy;
pub mod tls;

pub use body::{BoxError, StcBody};
pub use layer::{
    Action, ResponseFuture, StcConfig, StcLayer, StcOutcome, StcService, EXPOSED_HEADERS, X_STC_RATIO, X_STC_TOKENIZER,
    X_STC_VERSION,
};
pub use negotiate::{Negotiated, Preference, Signal, STC_MEDIA_TYPE};
