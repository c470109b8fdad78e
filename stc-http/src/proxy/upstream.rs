//! The upstream's base URL, checked once.

use http::uri::{Authority, PathAndQuery, Scheme};
use http::Uri;

use super::Error;

/// The upstream's scheme, authority and base path, checked once.
#[derive(Debug)]
pub(crate) struct Upstream {
    pub(crate) scheme: Scheme,
    pub(crate) authority: Authority,
    /// Base path without a trailing `/` (empty for the root).
    base: String,
    /// The base URL as given, for error bodies.
    pub(crate) display: String,
}

impl Upstream {
    pub(crate) fn parse(uri: &Uri) -> Result<Upstream, Error> {
        let scheme = uri.scheme().cloned().ok_or_else(|| {
            Error::Config(format!("upstream {uri}: no scheme (use http://HOST:PORT or https://HOST)"))
        })?;
        if scheme != Scheme::HTTP && scheme != Scheme::HTTPS {
            return Err(Error::Config(format!("upstream {uri}: only http:// and https:// upstreams are supported")));
        }
        let authority = uri.authority().cloned().ok_or_else(|| Error::Config(format!("upstream {uri}: no host")))?;
        if uri.query().is_some() {
            return Err(Error::Config(format!("upstream {uri}: a base URL cannot have a query")));
        }
        let base = uri.path().trim_end_matches('/').to_string();
        Ok(Upstream { scheme, authority, base, display: uri.to_string() })
    }

    /// Host and port of the upstream, for a TCP connect (the scheme's port when none is given).
    pub(crate) fn host_port(&self) -> (String, u16) {
        let default = if self.scheme == Scheme::HTTPS { 443 } else { 80 };
        let host = self.authority.host().trim_start_matches('[').trim_end_matches(']').to_string();
        (host, self.authority.port_u16().unwrap_or(default))
    }

    pub(crate) fn uri_for(&self, path_and_query: Option<&PathAndQuery>) -> Result<Uri, http::Error> {
        let pq = path_and_query.map_or("/", |p| p.as_str());
        let pq = if pq.starts_with('/') { pq.to_string() } else { format!("/{pq}") };
        Uri::builder()
            .scheme(self.scheme.clone())
            .authority(self.authority.clone())
            .path_and_query(format!("{}{}", self.base, pq))
            .build()
    }
}
