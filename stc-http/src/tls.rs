//! TLS for `https://` upstreams: rustls (ring provider) trusting the system's
//! root certificates (`rustls-native-certs`) and, optionally, the CA
//! certificates of one extra PEM file. Shared by `stc proxy` and the
//! Streamable HTTP client of `stc mcp-proxy --upstream`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

/// Builds the client TLS settings: the system's roots, plus every certificate
/// of `extra_ca` (a PEM file) when given. Fails with a message naming the
/// file when it cannot be read or holds no certificate, or when no root at
/// all could be loaded.
pub fn client_config(extra_ca: Option<&Path>) -> Result<rustls::ClientConfig, String> {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    let (added, _ignored) = roots.add_parsable_certificates(native.certs);
    let mut total = added;
    if let Some(path) = extra_ca {
        let mut in_file = 0usize;
        let iter = CertificateDer::pem_file_iter(path)
            .map_err(|e| format!("--upstream-ca {}: cannot read: {e}", path.display()))?;
        for cert in iter {
            let cert = cert.map_err(|e| format!("--upstream-ca {}: not PEM certificates: {e}", path.display()))?;
            roots.add(cert).map_err(|e| format!("--upstream-ca {}: unusable certificate: {e}", path.display()))?;
            in_file += 1;
        }
        if in_file == 0 {
            return Err(format!("--upstream-ca {}: no certificate in the file", path.display()));
        }
        total += in_file;
    }
    if total == 0 {
        let why = native.errors.first().map_or(String::new(), |e| format!(" ({e})"));
        return Err(format!(
            "no trusted root certificate: none found in the system's store{why}; pass --upstream-ca FILE"
        ));
    }
    // ring rather than aws-lc-rs: no C library to build with cmake. rustls
    // 0.23.48 deprecates ring's provider only because it lacks post-quantum
    // key exchange; X25519 and the NIST curves are still offered.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}

/// A connector for `http://` and `https://` URLs (HTTP/1.1), with this TLS
/// setup and a TCP connect timeout.
pub fn connector(tls: rustls::ClientConfig, connect_timeout: Duration) -> HttpsConnector<HttpConnector> {
    let mut http = HttpConnector::new();
    http.set_connect_timeout(Some(connect_timeout));
    http.set_nodelay(true);
    http.enforce_http(false);
    hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http().enable_http1().wrap_connector(http)
}

/// `Some(message)` when a client error was a TLS failure (certificate not
/// trusted, name mismatch, handshake refused): rustls errors travel inside
/// `std::io::Error`s, whose `source()` skips them, so each link is inspected.
pub fn tls_failure(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = current {
        if let Some(t) = err.downcast_ref::<rustls::Error>() {
            return Some(t.to_string());
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            // The connector may wrap the rustls error in more than one io::Error.
            if let Some(inner) = io.get_ref() {
                current = Some(inner as &(dyn std::error::Error + 'static));
                continue;
            }
        }
        current = err.source();
    }
    None
}

/// The whole chain of causes of an upstream client error, `": "`-joined, for
/// a message (hyper's own text says only "client error (Connect)").
pub fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
