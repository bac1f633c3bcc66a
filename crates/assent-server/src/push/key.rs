//! The service's VAPID key (RFC 8292): a P-256 key pair made once. A service on SQLite keeps
//! it in its data dir (`push-key`, 32 secret bytes in hex, mode 0600, like `audit-key`); on
//! PostgreSQL the database keeps it, so every replica signs with the same key and a browser's
//! subscription (bound to the key it subscribed with) works whichever replica sends.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToSec1Point as _;

/// The push key's file in the data dir.
pub const PUSH_KEY_FILE: &str = "push-key";

#[derive(Debug, thiserror::Error)]
pub enum PushKeyError {
    #[error("push key {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("push key {0}: not a P-256 secret key (32 bytes of hex)")]
    Malformed(String),
}

/// The key that signs VAPID tokens.
#[derive(Clone)]
pub struct PushKey {
    signing: SigningKey,
}

impl std::fmt::Debug for PushKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PushKey({})", self.public_b64())
    }
}

impl PushKey {
    /// A new random key.
    pub fn generate() -> PushKey {
        loop {
            // Of 2^256 random strings all but ~2^-32 are a valid scalar: this loops once.
            let secret: [u8; 32] = rand::random();
            if let Ok(key) = SigningKey::from_slice(&secret) {
                return PushKey { signing: key };
            }
        }
    }

    /// The key in hex (what the file or the database row holds).
    pub fn to_hex(&self) -> String {
        hex::encode(self.signing.to_bytes())
    }

    /// Parses a key in hex; `what` names where it came from, for the error.
    pub fn from_hex(text: &str, what: &str) -> Result<PushKey, PushKeyError> {
        let malformed = || PushKeyError::Malformed(what.to_owned());
        let bytes = hex::decode(text.trim()).map_err(|_| malformed())?;
        let signing = SigningKey::from_slice(&bytes).map_err(|_| malformed())?;
        Ok(PushKey { signing })
    }

    /// Reads the key at `path`, making it first when there is none.
    pub fn load_or_create(path: &Path) -> Result<PushKey, PushKeyError> {
        let io = |source| PushKeyError::Io {
            path: path.to_owned(),
            source,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => PushKey::from_hex(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    use std::os::unix::fs::DirBuilderExt;
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(dir)
                        .map_err(io)?;
                }
                let key = PushKey::generate();
                crate::atomic_file::write(path, key.to_hex().as_bytes(), 0o600).map_err(io)?;
                Ok(key)
            }
            Err(e) => Err(io(e)),
        }
    }

    /// The uncompressed public point (65 bytes).
    pub fn public_point(&self) -> Vec<u8> {
        self.signing
            .verifying_key()
            .as_affine()
            .to_sec1_point(false)
            .as_bytes()
            .to_vec()
    }

    /// The public key as `applicationServerKey` takes it: base64url, no padding.
    pub fn public_b64(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.public_point())
    }

    /// The `Authorization` header of a push to `endpoint_origin`: `vapid t=JWT, k=KEY` with
    /// an ES256 token for that audience, valid until `expires` (seconds since 1970).
    pub fn authorization(&self, endpoint_origin: &str, expires: i64, subject: &str) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": endpoint_origin,
            "exp": expires,
            "sub": subject,
        });
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let signature: Signature = self.signing.sign(signed.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(signature.to_bytes());
        format!("vapid t={signed}.{signature}, k={}", self.public_b64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_kept_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PUSH_KEY_FILE);
        let made = PushKey::load_or_create(&path).unwrap();
        let again = PushKey::load_or_create(&path).unwrap();
        assert_eq!(
            made.public_b64(),
            again.public_b64(),
            "a browser's subscription is bound to the key: a restart must not change it"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_default();
        assert_eq!(mode, 0o600, "the secret key is readable by its owner only");
        assert_eq!(made.public_point().len(), 65, "an uncompressed P-256 point");
    }

    #[test]
    fn a_damaged_key_file_is_refused() {
        assert!(PushKey::from_hex("not hex", "f").is_err(), "not hex");
        assert!(
            PushKey::from_hex(&"00".repeat(32), "f").is_err(),
            "zero is no key"
        );
    }
}
