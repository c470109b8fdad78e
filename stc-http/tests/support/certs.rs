//! Certificates for the `https://` upstream tests, made with the system's
//! `openssl`: a CA of their own and a server certificate it signs for
//! 127.0.0.1. Shared by stc-http's tests (tests/it/tls.rs) and stc-cli's
//! process tests (stc-cli/tests/it/mcp/http.rs), which include this file.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").current_dir(dir).args(args).output().expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A CA (`ca.pem`) and a server certificate for 127.0.0.1 signed by it
/// (`server.pem`, `server.key`), in a fresh directory of the temp dir named
/// after `name`; the caller removes it.
pub fn make_certificates(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stc-http-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend(["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=stc test CA"]);
    openssl(&dir, &ca);
    let mut csr = vec!["req"];
    csr.extend(ec);
    csr.extend(["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
    openssl(&dir, &csr);
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(
        &dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
    );
    dir
}
