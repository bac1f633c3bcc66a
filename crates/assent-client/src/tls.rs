//! Whom a client trusts on `https://`: the system's roots plus, optionally, the CA in the PEM
//! file named by `ASSENT_CA_FILE` (a team's private CA, a self-signed service). Built only
//! for an `https://` URL, so a loopback `http://` gate pays nothing for it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig as TlsConfig, RootCertStore};

use crate::error::ClientError;

/// Environment variable naming a PEM file of extra CA certificates to trust.
pub const CA_FILE_ENV: &str = "ASSENT_CA_FILE";

/// What an `https://` client trusts besides the system's roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trust {
    /// A PEM file of CA certificates (one or more).
    pub ca_file: Option<PathBuf>,
}

impl Trust {
    /// `ASSENT_CA_FILE` when set and not empty.
    pub fn from_env() -> Trust {
        Trust {
            ca_file: std::env::var_os(CA_FILE_ENV)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from),
        }
    }

    /// A rustls client configuration trusting the system roots and `ca_file`.
    pub(crate) fn tls_config(&self) -> Result<Arc<TlsConfig>, ClientError> {
        let mut roots = RootCertStore::empty();
        // Unreadable entries of the system store are skipped: one bad file there must not
        // stop a client that trusts ASSENT_CA_FILE, and no roots at all is refused below.
        roots.add_parsable_certificates(system_roots());
        if let Some(path) = &self.ca_file {
            add_ca_file(&mut roots, path)?;
        }
        if roots.is_empty() {
            return Err(ClientError::Config(format!(
                "no trusted CA certificates for https://: the system store is empty and {CA_FILE_ENV} is not set"
            )));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = TlsConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|err| ClientError::Config(format!("TLS set-up: {err}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

/// Where distributions keep the whole system store as one PEM bundle (as openssl-probe
/// looks for them).
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// The system's roots, read from one file when possible: the gate runs once per tool call,
/// and the hashed per-certificate directory (the same certificates again, hundreds of
/// files) costs it milliseconds. `SSL_CERT_FILE` names that file, else `SSL_CERT_DIR` a
/// directory; else the distribution's bundle; else the full search of rustls-native-certs.
fn system_roots() -> Vec<CertificateDer<'static>> {
    let named = |name| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let found = if let Some(file) = named("SSL_CERT_FILE") {
        rustls_native_certs::load_certs_from_paths(Some(&file), None)
    } else if let Some(dir) = named("SSL_CERT_DIR") {
        rustls_native_certs::load_certs_from_paths(None, Some(&dir))
    } else if let Some(bundle) = SYSTEM_BUNDLES.iter().map(Path::new).find(|p| p.is_file()) {
        rustls_native_certs::load_certs_from_paths(Some(bundle), None)
    } else {
        rustls_native_certs::load_native_certs()
    };
    found.certs
}

fn add_ca_file(roots: &mut RootCertStore, path: &Path) -> Result<(), ClientError> {
    let named =
        |what: String| ClientError::Config(format!("{CA_FILE_ENV}={}: {what}", path.display()));
    let pem = std::fs::read(path).map_err(|err| named(format!("cannot read it: {err}")))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| named(format!("not a PEM certificate file: {err}")))?;
    if certs.is_empty() {
        return Err(named(
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    for cert in certs {
        roots
            .add(cert)
            .map_err(|err| named(format!("not a usable CA certificate: {err}")))?;
    }
    Ok(())
}

/// A TLS failure in words a person can act on: the whole chain of causes, and for a refused
/// certificate what to change.
pub(crate) fn explain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    if let Some(hint) = certificate_hint(&text) {
        text.push_str(" (");
        text.push_str(&hint);
        text.push(')');
    }
    text
}

fn certificate_hint(text: &str) -> Option<String> {
    if text.contains("CaUsedAsEndEntity") {
        Some(format!(
            "the service presents a CA certificate (basicConstraints CA:TRUE) as its own: give \
             it a server certificate with CA:FALSE signed by that CA, and name the CA in {CA_FILE_ENV}"
        ))
    } else if text.contains("NotValidForName") {
        Some("the service's certificate does not name the host of the service URL".to_owned())
    } else if text.contains("invalid peer certificate") {
        Some(format!(
            "the service's certificate is not trusted here: if it comes from a private CA or is \
             self-signed, set {CA_FILE_ENV} to that CA's PEM file"
        ))
    } else {
        None
    }
}
