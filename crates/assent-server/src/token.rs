//! Tokens: how one is made and how it is stored. The local install's tokens ([`crate::config`])
//! and the people and agents ([`crate::identities`]) both make them.

use assent_core::IdentityKind;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A new token: 256 random bits, hex, prefixed by kind so a person can tell which is which
/// (and a secret scanner can find them).
pub fn new_token(kind: IdentityKind) -> String {
    let mut bytes = [0_u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let prefix = match kind {
        IdentityKind::Person => "assent_p_",
        IdentityKind::Agent => "assent_a_",
    };
    format!("{prefix}{}", hex::encode(bytes))
}

/// How a token is stored: SHA-256, hex. Tokens carry 256 random bits, so no slow hash is
/// needed to resist guessing; a leaked database holds no usable token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.trim().as_bytes()))
}
