//! Reading a response body ahead, up to the layer's limit.

use bytes::{Bytes, BytesMut};
use http::HeaderMap;
use http_body::Body;
use http_body_util::BodyExt;

use crate::body::BoxError;

/// What reading a body ahead gave.
pub(crate) enum Collected<B> {
    /// The whole body, and its trailers if it had any.
    Whole(Bytes, Option<HeaderMap>),
    /// More than the limit: the bytes read so far and the rest, unread.
    TooLarge(Bytes, B),
    /// The body failed after these bytes.
    Failed(Bytes, BoxError),
}

/// Reads `body` until its end, its trailers, an error, or more than `max` bytes.
/// `declared` (the `Content-Length`, at most `max`) sizes the buffer once.
pub(crate) async fn collect<B>(mut body: B, declared: Option<u64>, max: usize) -> Collected<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    let mut buffer = BytesMut::with_capacity(declared.unwrap_or(0).min(max as u64) as usize);
    loop {
        match body.frame().await {
            None => return Collected::Whole(buffer.freeze(), None),
            Some(Err(e)) => return Collected::Failed(buffer.freeze(), e.into()),
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => {
                    buffer.extend_from_slice(&data);
                    if buffer.len() > max {
                        return Collected::TooLarge(buffer.freeze(), body);
                    }
                }
                Err(frame) => {
                    if let Ok(trailers) = frame.into_trailers() {
                        return Collected::Whole(buffer.freeze(), Some(trailers));
                    }
                }
            },
        }
    }
}
