//! The service's checkpoint key: an Ed25519 signing key in a file (`audit-key` in the data dir,
//! or `--audit-key FILE`), 32 secret bytes in hex, created on first use with mode 0600.

use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

use super::{key_id, ChainStart, Checkpoint};

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("audit key {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("audit key {0}: not 32 bytes of hex")]
    Malformed(PathBuf),
}

/// The key that signs checkpoints.
#[derive(Clone)]
pub struct AuditKey {
    signing: SigningKey,
}

impl std::fmt::Debug for AuditKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AuditKey({})", self.key_id())
    }
}

impl AuditKey {
    /// Reads the key at `path`, creating it first when there is none.
    pub fn load_or_create(path: &Path) -> Result<AuditKey, KeyError> {
        let io = |source| KeyError::Io {
            path: path.to_owned(),
            source,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    use std::os::unix::fs::DirBuilderExt;
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(dir)
                        .map_err(io)?;
                }
                let secret: [u8; 32] = rand::random();
                crate::atomic_file::write(path, hex::encode(secret).as_bytes(), 0o600)
                    .map_err(io)?;
                Ok(AuditKey {
                    signing: SigningKey::from_bytes(&secret),
                })
            }
            Err(e) => Err(io(e)),
        }
    }

    fn parse(path: &Path, text: &str) -> Result<AuditKey, KeyError> {
        let bytes = hex::decode(text.trim()).map_err(|_| KeyError::Malformed(path.to_owned()))?;
        let secret: [u8; 32] = bytes
            .try_into()
            .map_err(|_| KeyError::Malformed(path.to_owned()))?;
        Ok(AuditKey {
            signing: SigningKey::from_bytes(&secret),
        })
    }

    /// Reads the key at `path` (never creates one).
    pub fn load(path: &Path) -> Result<AuditKey, KeyError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(path, &text)
    }

    /// The public half.
    pub fn public(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    /// The public key, lowercase hex (what `assent audit key` prints).
    pub fn public_hex(&self) -> String {
        hex::encode(self.signing.verifying_key().as_bytes())
    }

    /// The first 16 hex digits of SHA-256 over the public key: named by each checkpoint.
    pub fn key_id(&self) -> String {
        key_id(&self.signing.verifying_key())
    }

    /// Fills in `key_id` and `signature` of `checkpoint`.
    pub fn sign(&self, mut checkpoint: Checkpoint) -> Checkpoint {
        checkpoint.key_id = self.key_id();
        checkpoint.signature = hex::encode(self.signing.sign(&checkpoint.message()).to_bytes());
        checkpoint
    }

    /// Fills in `key_id` and `signature` of the chain's start record.
    pub fn sign_start(&self, mut start: ChainStart) -> ChainStart {
        start.key_id = self.key_id();
        start.signature = hex::encode(self.signing.sign(&start.message()).to_bytes());
        start
    }
}

/// Parses a public key in hex.
pub fn public_from_hex(text: &str) -> Option<VerifyingKey> {
    let bytes: [u8; 32] = hex::decode(text.trim()).ok()?.try_into().ok()?;
    VerifyingKey::from_bytes(&bytes).ok()
}
