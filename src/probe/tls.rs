//! https for the probe: rustls (with the `aws-lc-rs` provider; no OpenSSL), verifying the server's
//! certificate against the platform's roots plus `SSL_CERT_FILE` / `SSL_CERT_DIR` when set plus
//! `--cacert FILE`. A certificate problem is a failure with code `tls`, and the handshake is
//! bounded by the probe's deadline like every other read and write.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rustls::pki_types::ServerName;
use rustls::{CertificateError, ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::FailureCode;
use super::{Failure, fail};

/// The system CA bundles, first found wins (the list Go's `crypto/x509` reads on Linux and the
/// BSDs). Read in addition to `SSL_CERT_FILE` / `SSL_CERT_DIR` when those are set; otherwise
/// the platform's store comes from `rustls-native-certs`.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// The TLS client configuration of one probe run, built on first use (loading the roots reads
/// a few hundred kilobytes) and shared by every server.
#[derive(Debug, Default)]
pub(super) struct Tls {
    cacert: Option<PathBuf>,
    config: OnceLock<Result<Arc<ClientConfig>, String>>,
}

impl Tls {
    pub(super) fn new(cacert: Option<PathBuf>) -> Tls {
        Tls {
            cacert,
            config: OnceLock::new(),
        }
    }

    fn config(&self) -> Result<Arc<ClientConfig>, Failure> {
        self.config
            .get_or_init(|| build_config(self.cacert.as_deref()).map(Arc::new))
            .clone()
            .map_err(|m| fail(FailureCode::Tls, m))
    }

    /// Run the TLS handshake over a connected socket, within the deadline.
    pub(super) fn handshake(
        &self,
        mut tcp: TcpStream,
        host: &str,
        deadline: Instant,
    ) -> Result<Stream, Failure> {
        let config = self.config()?;
        let name = ServerName::try_from(host.to_string()).map_err(|_| {
            fail(
                FailureCode::InvalidConfig,
                "the url's host is not a valid TLS name",
            )
        })?;
        let mut conn = ClientConnection::new(config, name)
            .map_err(|e| fail(FailureCode::Tls, format!("cannot start TLS: {e}")))?;
        while conn.is_handshaking() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(fail(
                    FailureCode::Timeout,
                    "the TLS handshake did not finish in time",
                ));
            }
            let r = tcp
                .set_read_timeout(Some(left))
                .and_then(|_| tcp.set_write_timeout(Some(left)))
                .and_then(|_| conn.complete_io(&mut tcp));
            if let Err(e) = r {
                return Err(handshake_failure(host, &e));
            }
        }
        Ok(Stream::Tls(Box::new(StreamOwned::new(conn, tcp))))
    }
}

/// The failure for a handshake error: `tls` unless the deadline ran out.
fn handshake_failure(host: &str, e: &io::Error) -> Failure {
    if matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    ) {
        return fail(
            FailureCode::Timeout,
            "the TLS handshake did not finish in time",
        );
    }
    let Some(err) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) else {
        return fail(
            FailureCode::Tls,
            format!("the TLS handshake with `{host}` failed: {e} (is it an https server?)"),
        );
    };
    let why = match err {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => {
                "its certificate is not trusted (unknown issuer; see `--cacert` and SSL_CERT_FILE)"
                    .to_string()
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "its certificate has expired".to_string()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "its certificate is not valid yet".to_string()
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!("its certificate is not valid for `{host}`")
            }
            CertificateError::Revoked => "its certificate is revoked".to_string(),
            other => format!("its certificate is rejected: {other:?}"),
        },
        other => format!("the TLS handshake failed: {other}"),
    };
    fail(FailureCode::Tls, format!("`{host}`: {why}"))
}

fn build_config(cacert: Option<&Path>) -> Result<ClientConfig, String> {
    let roots = load_roots(cacert)?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// The trusted roots: the platform's, plus `SSL_CERT_FILE` / `SSL_CERT_DIR`, plus `cacert`.
fn load_roots(cacert: Option<&Path>) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    let env_file = std::env::var_os("SSL_CERT_FILE").filter(|v| !v.is_empty());
    let env_dirs: Vec<PathBuf> = std::env::var_os("SSL_CERT_DIR")
        .map(|d| {
            std::env::split_paths(&d)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if env_file.is_none() && env_dirs.is_empty() {
        roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    } else {
        // The variables add to the system bundle rather than replace it.
        if let Some(f) = SYSTEM_BUNDLES.iter().map(Path::new).find(|p| p.is_file()) {
            roots.add_parsable_certificates(
                rustls_native_certs::load_certs_from_paths(Some(f), None).certs,
            );
        }
        if let Some(f) = &env_file {
            let r = rustls_native_certs::load_certs_from_paths(Some(Path::new(f)), None);
            if r.certs.is_empty() {
                return Err(format!(
                    "SSL_CERT_FILE (`{}`) holds no readable certificate",
                    Path::new(f).display()
                ));
            }
            roots.add_parsable_certificates(r.certs);
        }
        for d in &env_dirs {
            roots.add_parsable_certificates(
                rustls_native_certs::load_certs_from_paths(None, Some(d)).certs,
            );
        }
    }
    if let Some(c) = cacert {
        let r = rustls_native_certs::load_certs_from_paths(Some(c), None);
        if r.certs.is_empty() {
            return Err(format!(
                "`--cacert {}` holds no readable PEM certificate",
                c.display()
            ));
        }
        let (added, _) = roots.add_parsable_certificates(r.certs);
        if added == 0 {
            return Err(format!(
                "`--cacert {}` holds no usable CA certificate",
                c.display()
            ));
        }
    }
    if roots.is_empty() {
        return Err(
            "no trusted root certificate was found (set SSL_CERT_FILE or pass --cacert)".into(),
        );
    }
    Ok(roots)
}

/// A connection to an HTTP server, plain or TLS.
pub(super) enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    /// The socket underneath (for its timeouts).
    pub(super) fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => &s.sock,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}
