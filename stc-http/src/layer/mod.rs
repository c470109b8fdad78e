//! The tower layer: negotiate per request, transform JSON responses that
//! pass the predicate, stream everything else through.
//!
//! One module per job: [`headers`] (what is read and written), [`not_modified`]
//! (304s), [`collect`] (reading a body ahead), [`encode`] (the gate's
//! decision), [`respond`] (one response through all of them). This module is
//! the tower glue; the proxy calls [`StcLayer::respond`] directly, with the
//! request's facts, and gets the outcome back as a value.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use stc_core::{GateOptions, Limits, Profile, Version};
use tower_layer::Layer;
use tower_service::Service;

use crate::body::{BoxError, StcBody};

mod collect;
mod encode;
mod headers;
mod not_modified;
mod outcome;
mod respond;

pub use headers::{EXPOSED_HEADERS, X_STC_RATIO, X_STC_TOKENIZER, X_STC_VERSION};
pub use outcome::{Action, StcOutcome};
pub(crate) use respond::RequestFacts;

/// Settings of [`StcLayer`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StcConfig {
    /// Largest JSON body transformed, in bytes (default 8 MiB). Up to this
    /// many bytes are buffered; a larger body is streamed through unchanged.
    pub max_body: usize,
    /// The do-no-harm gate: tokenizer and the saving STC must reach.
    pub gate: GateOptions,
    /// Whitespace profile of the STC sent (default compact).
    pub profile: Profile,
    /// Parser limits for upstream JSON (a body beyond them is passed through).
    pub limits: Limits,
    /// The newest STC version sent (default [`Version::LATEST`], version 2):
    /// a client that asks for `application/stc+json; version=2` gets version
    /// 2 unless this is [`Version::V1`]; then it gets version 1, which every
    /// version 2 reader reads. Clients that do not name a version get version 1.
    pub max_version: Version,
}

impl Default for StcConfig {
    fn default() -> Self {
        StcConfig {
            max_body: 8 << 20,
            gate: GateOptions::default(),
            profile: Profile::Compact,
            limits: Limits::default(),
            max_version: Version::LATEST,
        }
    }
}

/// A tower [`Layer`] that sends JSON responses as STC to clients that ask
/// for it (spec section 7). Add it inside a compression layer.
///
/// ```no_run
/// # async fn doc() {
/// let app: axum::Router = axum::Router::new()
///     .route("/users", axum::routing::get(|| async { axum::Json(vec![1, 2, 3]) }))
///     .layer(stc_http::StcLayer::new());
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct StcLayer {
    shared: Arc<Shared>,
}

/// What every service of one layer shares.
#[derive(Debug)]
struct Shared {
    config: StcConfig,
    /// Large bodies encoded at once on the blocking pool: one per CPU, which
    /// bounds the memory of concurrent encodings (each holds the body, its
    /// parsed form and both texts).
    encoders: tokio::sync::Semaphore,
}

impl Default for StcLayer {
    fn default() -> Self {
        StcLayer::with_config(StcConfig::default())
    }
}

impl StcLayer {
    /// A layer with the default [`StcConfig`].
    pub fn new() -> Self {
        StcLayer::default()
    }

    /// A layer with these settings.
    pub fn with_config(config: StcConfig) -> Self {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        StcLayer { shared: Arc::new(Shared { config, encoders: tokio::sync::Semaphore::new(cpus) }) }
    }

    /// This layer with [`StcConfig::max_version`] set: the newest STC
    /// version it sends to clients that ask for it.
    ///
    /// ```
    /// use stc_core::Version;
    /// let layer = stc_http::StcLayer::new().max_version(Version::V1);
    /// assert_eq!(layer.config().max_version, Version::V1);
    /// ```
    #[must_use]
    pub fn max_version(self, version: Version) -> Self {
        StcLayer::with_config(StcConfig { max_version: version, ..self.shared.config })
    }

    /// The settings.
    pub fn config(&self) -> &StcConfig {
        &self.shared.config
    }

    /// Sends `response` to the request described by `facts`: as STC when it
    /// asked and the gate agrees. Returns what was done alongside.
    pub(crate) async fn respond<B>(
        &self,
        response: Response<B>,
        facts: &RequestFacts,
    ) -> (Response<StcBody<B>>, StcOutcome)
    where
        B: Body<Data = Bytes> + Send + Unpin + 'static,
        B::Error: Into<BoxError>,
    {
        respond::respond(response, facts, &self.shared).await
    }
}

impl<S> Layer<S> for StcLayer {
    type Service = StcService<S>;

    fn layer(&self, inner: S) -> StcService<S> {
        StcService { inner, shared: self.shared.clone() }
    }
}

/// The service of [`StcLayer`].
#[derive(Debug, Clone)]
pub struct StcService<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> StcService<S> {
    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

/// The future of [`StcService`].
pub type ResponseFuture<B, E> = Pin<Box<dyn Future<Output = Result<Response<StcBody<B>>, E>> + Send>>;

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for StcService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    ResBody: Body<Data = Bytes> + Send + Unpin + 'static,
    ResBody::Error: Into<BoxError>,
{
    type Response = Response<StcBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<ResBody, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        let facts = RequestFacts::of(&req);
        let layer = StcLayer { shared: self.shared.clone() };
        let future = self.inner.call(req);
        Box::pin(async move {
            let response = future.await?;
            let (mut response, outcome) = layer.respond(response, &facts).await;
            response.extensions_mut().insert(outcome);
            Ok(response)
        })
    }
}
