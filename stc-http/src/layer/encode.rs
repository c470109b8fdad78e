//! The encode decision: parse, encode and gate one whole body, off the async
//! workers when it is large.

use std::time::{Duration, Instant};

use bytes::Bytes;
use stc_core::{EncodeOptions, Version};

use super::{Shared, StcConfig};

/// Bodies at least this large are parsed and encoded on tokio's blocking pool
/// (when the layer runs on a tokio runtime), smaller ones in place.
const OFFLOAD_BYTES: usize = 128 << 10;

/// Parses, encodes (in `version`) and gates one body; returns the answer
/// (STC or minified JSON, and both token counts) and the time it took.
pub(crate) async fn encode(
    body: &Bytes,
    shared: &Shared,
    version: Version,
) -> (Result<stc_core::Gated, stc_core::Error>, Duration) {
    if body.len() >= OFFLOAD_BYTES && tokio::runtime::Handle::try_current().is_ok() {
        // Large bodies take milliseconds of CPU: keep them off the async workers.
        let _slot = shared.encoders.acquire().await;
        let (copy, config) = (body.clone(), shared.config);
        if let Ok(done) = tokio::task::spawn_blocking(move || gate(&copy, &config, version)).await {
            return done;
        }
    }
    gate(body, &shared.config, version)
}

fn gate(body: &[u8], config: &StcConfig, version: Version) -> (Result<stc_core::Gated, stc_core::Error>, Duration) {
    let started = Instant::now();
    let options = EncodeOptions::default().profile(config.profile).limits(config.limits).version(version);
    let gated = stc_core::from_utf8(body).and_then(|text| stc_core::encode_gated(text, &options, &config.gate));
    (gated, started.elapsed())
}
