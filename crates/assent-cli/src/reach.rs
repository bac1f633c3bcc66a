//! How a team reaches `assent serve`: beyond loopback only with a `--public-url` (the host the
//! Host check then serves), and HTTPS with `--tls-cert`/`--tls-key`.

use std::net::SocketAddr;
use std::path::PathBuf;

use assent_server::{PublicUrl, ServerTls, TlsError};

/// The team flags of `assent serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReachArgs {
    /// The URL a team reaches this service at, e.g. https://assent.example.com (required to
    /// listen beyond loopback): its host is served besides the loopback names.
    #[arg(long, value_name = "URL")]
    public_url: Option<PublicUrl>,
    /// Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

/// Why the service refuses to be reached as asked.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(
        "--listen {addr} is not a loopback address: a team-reachable service needs --public-url \
         naming the host it answers to (e.g. --public-url https://assent.example.com), \
         or listen on 127.0.0.1"
    )]
    PublicUrlRequired { addr: SocketAddr },
    #[error(
        "--public-url {url} is http:// but --tls-cert makes the service speak HTTPS: use https://"
    )]
    PlainPublicUrl { url: PublicUrl },
    #[error("cannot serve TLS: {0}")]
    Tls(#[from] TlsError),
}

impl ReachError {
    /// A combination of flags that can never work is a usage error (exit 2, as clap's own);
    /// an unusable certificate or key file is a start-up failure (exit 1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, ReachError::Tls(_))
    }
}

/// How the service is reached, checked before anything listens.
#[derive(Debug, Clone)]
pub struct Reach {
    pub public_url: Option<PublicUrl>,
    pub tls: Option<ServerTls>,
}

impl Reach {
    /// Checks the flags against `listen` and loads the certificate and key.
    pub fn check(listen: SocketAddr, args: &ReachArgs) -> Result<Reach, ReachError> {
        if !listen.ip().is_loopback() && args.public_url.is_none() {
            return Err(ReachError::PublicUrlRequired { addr: listen });
        }
        let tls = match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Some(ServerTls::load(cert, key)?),
            _ => None,
        };
        if let (Some(url), Some(_)) = (&args.public_url, &tls) {
            if !url.is_https() {
                return Err(ReachError::PlainPublicUrl { url: url.clone() });
            }
        }
        Ok(Reach {
            public_url: args.public_url.clone(),
            tls,
        })
    }

    /// What clients put in `ASSENT_URL`: the public URL, else the address listened on.
    pub fn client_url(&self, addr: SocketAddr) -> String {
        match &self.public_url {
            Some(url) => url.to_string(),
            None => format!("{}://{addr}", self.scheme()),
        }
    }

    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// Logs what a listener beyond loopback exposes.
    pub fn warn_exposure(&self, addr: SocketAddr) {
        if addr.ip().is_loopback() {
            return;
        }
        if self.tls.is_none() {
            tracing::warn!(
                %addr,
                "listening beyond loopback without TLS: tokens cross the network in clear unless a \
                 proxy in front terminates TLS (--tls-cert/--tls-key serve HTTPS)"
            );
        }
    }
}
