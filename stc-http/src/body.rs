//! The response body of the layer: a buffered body (transformed or not), or
//! the inner body streamed through, after the prefix that was read ahead.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

/// Errors of a body, boxed (the type tower-http and axum use).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pin_project! {
    /// Body of a response that passed [`StcLayer`](crate::StcLayer).
    pub struct StcBody<B> {
        #[pin]
        kind: Kind<B>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<B> {
        /// The whole body in memory, then optional trailers.
        Full { data: Option<Bytes>, trailers: Option<HeaderMap> },
        /// Bytes read ahead, then the rest of the inner body as it comes.
        Stream { prefix: Option<Bytes>, #[pin] rest: B },
        /// Bytes read ahead, then the error the inner body gave.
        Failed { prefix: Option<Bytes>, error: Option<BoxError> },
    }
}

impl<B> StcBody<B> {
    pub(crate) fn full(data: Bytes, trailers: Option<HeaderMap>) -> Self {
        let data = (!data.is_empty()).then_some(data);
        StcBody { kind: Kind::Full { data, trailers } }
    }

    pub(crate) fn stream(prefix: Bytes, rest: B) -> Self {
        let prefix = (!prefix.is_empty()).then_some(prefix);
        StcBody { kind: Kind::Stream { prefix, rest } }
    }

    pub(crate) fn failed(prefix: Bytes, error: BoxError) -> Self {
        let prefix = (!prefix.is_empty()).then_some(prefix);
        StcBody { kind: Kind::Failed { prefix, error: Some(error) } }
    }
}

impl<B> Body for StcBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project().kind.project() {
            KindProj::Full { data, trailers } => {
                if let Some(d) = data.take() {
                    return Poll::Ready(Some(Ok(Frame::data(d))));
                }
                Poll::Ready(trailers.take().map(|t| Ok(Frame::trailers(t))))
            }
            KindProj::Stream { prefix, rest } => {
                if let Some(p) = prefix.take() {
                    return Poll::Ready(Some(Ok(Frame::data(p))));
                }
                rest.poll_frame(cx).map(|f| f.map(|r| r.map_err(Into::into)))
            }
            KindProj::Failed { prefix, error } => {
                if let Some(p) = prefix.take() {
                    return Poll::Ready(Some(Ok(Frame::data(p))));
                }
                Poll::Ready(error.take().map(Err))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Full { data, trailers } => data.is_none() && trailers.is_none(),
            Kind::Stream { prefix, rest } => prefix.is_none() && rest.is_end_stream(),
            Kind::Failed { prefix, error } => prefix.is_none() && error.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full { data, .. } => SizeHint::with_exact(data.as_ref().map_or(0, |d| d.len() as u64)),
            Kind::Stream { prefix, rest } => {
                let extra = prefix.as_ref().map_or(0, |p| p.len() as u64);
                let inner = rest.size_hint();
                let mut hint = SizeHint::new();
                hint.set_lower(inner.lower() + extra);
                if let Some(upper) = inner.upper() {
                    hint.set_upper(upper + extra);
                }
                hint
            }
            // Not exact: the body ends in an error, not after these bytes. An
            // exact hint would let hyper frame the response by it and never
            // poll the error, leaving the client waiting for the bytes the
            // upstream's Content-Length promised.
            Kind::Failed { prefix, .. } => {
                let mut hint = SizeHint::new();
                hint.set_lower(prefix.as_ref().map_or(0, |p| p.len() as u64));
                hint
            }
        }
    }
}
