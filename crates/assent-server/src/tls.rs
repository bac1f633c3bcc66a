//! TLS for a service a team reaches: the certificate and key read from PEM files, and a
//! listener that completes each handshake beside the accept loop, so one slow or silent
//! client never holds up the others.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// A client that has not finished its handshake by then is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the certificate or key cannot be used; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    NoCertificate { path: PathBuf },
    #[error("{path} is not a valid PEM certificate chain: {reason}")]
    BadCertificate { path: PathBuf, reason: String },
    #[error("{path} holds no PEM private key (PKCS#8, PKCS#1 or SEC1): {reason}")]
    BadKey { path: PathBuf, reason: String },
    #[error("the key {key} cannot serve the certificate {cert}: {reason}")]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
}

/// The service's TLS identity: a certificate chain and its private key.
#[derive(Clone)]
pub struct ServerTls {
    config: Arc<ServerConfig>,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerTls { .. }")
    }
}

impl ServerTls {
    /// Reads the PEM chain in `cert` (leaf first) and the PEM private key in `key`.
    pub fn load(cert: &Path, key: &Path) -> Result<ServerTls, TlsError> {
        let chain = read_chain(cert)?;
        let key_der = read_key(key)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mismatch = |err: rustls::Error| TlsError::Mismatch {
            cert: cert.into(),
            key: key.into(),
            reason: err.to_string(),
        };
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(mismatch)?
            .with_no_client_auth()
            .with_single_cert(chain, key_der)
            .map_err(mismatch)?;
        // The service speaks HTTP/1.1 only (axum without http2).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(ServerTls {
            config: Arc::new(config),
        })
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.into(),
        source,
    })
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read_file(path)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| TlsError::BadCertificate {
            path: path.into(),
            reason: err.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate { path: path.into() });
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let pem = read_file(path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|err| TlsError::BadKey {
        path: path.into(),
        reason: err.to_string(),
    })
}

/// Accepts TCP connections and hands axum only those that completed a TLS handshake.
pub(crate) struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    handshakes: JoinSet<Option<(TlsStream<TcpStream>, SocketAddr)>>,
}

impl TlsListener {
    pub(crate) fn new(tcp: TcpListener, tls: &ServerTls) -> TlsListener {
        TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(tls.config.clone()),
            handshakes: JoinSet::new(),
        }
    }

    fn start_handshake(&mut self, mut stream: TcpStream, peer: SocketAddr) {
        crate::listener::no_delay(&mut stream);
        let acceptor = self.acceptor.clone();
        self.handshakes.spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => Some((tls, peer)),
                Ok(Err(err)) => {
                    tracing::debug!(%peer, %err, "TLS handshake failed");
                    None
                }
                Err(_) => {
                    tracing::debug!(%peer, "TLS handshake timed out");
                    None
                }
            }
        });
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            tokio::select! {
                accepted = self.tcp.accept() => match accepted {
                    Ok((stream, peer)) => self.start_handshake(stream, peer),
                    Err(err) => accept_failed(err).await,
                },
                Some(done) = self.handshakes.join_next(), if !self.handshakes.is_empty() => {
                    if let Ok(Some(ready)) = done {
                        return ready;
                    }
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// As axum's own listener: a dropped connection is nothing; anything else (out of file
/// descriptors) is logged and retried after a pause rather than spinning.
async fn accept_failed(err: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(%err, "accept failed");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
