//! A push message's body, encrypted for one browser as RFC 8291 says (`aes128gcm`, RFC 8188):
//! a fresh P-256 key pair per message, ECDH with the browser's key, HKDF with its auth secret,
//! one AES-128-GCM record. Composed from RustCrypto's primitives (p256, hkdf, aes-gcm).

use aes_gcm::aead::{Aead as _, KeyInit as _};
use aes_gcm::{Aes128Gcm, Nonce};
use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToSec1Point as _;
use p256::{PublicKey, SecretKey};
use sha2_next::Sha256;

/// The record size announced in the header: one record holds the whole (small) message.
const RECORD_SIZE: u32 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncryptError {
    #[error("the subscription's p256dh is not a P-256 public key")]
    BadKey,
    #[error("the message is too long for one record")]
    TooLong,
}

/// The browser's side of a subscription: its public key and auth secret.
pub struct Recipient<'a> {
    /// The uncompressed point (65 bytes).
    pub p256dh: &'a [u8],
    /// 16 bytes.
    pub auth: &'a [u8],
}

/// `plaintext` encrypted for `to`: the whole `aes128gcm` body (header + one record).
pub fn encrypt(to: &Recipient<'_>, plaintext: &[u8]) -> Result<Vec<u8>, EncryptError> {
    let salt: [u8; 16] = rand::random();
    encrypt_with(to, plaintext, &ephemeral(), salt)
}

fn ephemeral() -> SecretKey {
    loop {
        let bytes: [u8; 32] = rand::random();
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            return key;
        }
    }
}

/// [`encrypt`] with the sender's key and salt given (RFC 8291's test vector uses fixed ones).
fn encrypt_with(
    to: &Recipient<'_>,
    plaintext: &[u8],
    sender: &SecretKey,
    salt: [u8; 16],
) -> Result<Vec<u8>, EncryptError> {
    // One record: the plaintext, the 0x02 delimiter of the last record, the 16-byte tag.
    if plaintext.len() + 17 > RECORD_SIZE as usize {
        return Err(EncryptError::TooLong);
    }
    let ua_public = PublicKey::from_sec1_bytes(to.p256dh).map_err(|_| EncryptError::BadKey)?;
    let as_public = sender.public_key().to_sec1_point(false);
    let shared = p256::ecdh::diffie_hellman(sender.to_nonzero_scalar(), ua_public.as_affine());

    // RFC 8291 §3.4: IKM from the ECDH secret and the auth secret, bound to both keys.
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(to.p256dh);
    key_info.extend_from_slice(as_public.as_bytes());
    let mut ikm = [0_u8; 32];
    Hkdf::<Sha256>::new(Some(to.auth), shared.raw_secret_bytes())
        .expand(&key_info, &mut ikm)
        .map_err(|_| EncryptError::TooLong)?;

    // RFC 8188 §2.2–2.3: the content key and nonce from the salt.
    let prk = Hkdf::<Sha256>::new(Some(&salt), &ikm);
    let mut cek = [0_u8; 16];
    let mut nonce = [0_u8; 12];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|_| EncryptError::TooLong)?;
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|_| EncryptError::TooLong)?;

    let mut record = plaintext.to_vec();
    record.push(0x02);
    let cipher = Aes128Gcm::new_from_slice(&cek).map_err(|_| EncryptError::TooLong)?;
    let sealed = cipher
        .encrypt(&Nonce::from(nonce), record.as_slice())
        .map_err(|_| EncryptError::TooLong)?;

    // The header: salt, record size, the sender's public key as the key id.
    let key_id = as_public.as_bytes();
    let mut body = Vec::with_capacity(21 + key_id.len() + sealed.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(u8::try_from(key_id.len()).map_err(|_| EncryptError::BadKey)?);
    body.extend_from_slice(key_id);
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// Whether `bytes` is an uncompressed P-256 point on the curve (what `p256dh` must be).
pub fn is_p256_point(bytes: &[u8]) -> bool {
    bytes.len() == 65 && bytes.first() == Some(&0x04) && PublicKey::from_sec1_bytes(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;

    fn b64(text: &str) -> Vec<u8> {
        URL_SAFE_NO_PAD.decode(text).unwrap()
    }

    #[test]
    fn rfc_8291_appendix_a_is_reproduced_exactly() {
        // The example of RFC 8291 Appendix A: fixed sender key and salt, known output.
        let plaintext = b"When I grow up, I want to be a watermelon";
        let ua_public = b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4");
        let auth = b64("BTBZMqHH6r4Tts7J_aSIgg");
        let as_private = b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw");
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let sender = SecretKey::from_slice(&as_private).unwrap();
        let to = Recipient {
            p256dh: &ua_public,
            auth: &auth,
        };
        let body = encrypt_with(&to, plaintext, &sender, salt).unwrap();
        let want = b64("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN");
        assert_eq!(
            body, want,
            "our encryption must be RFC 8291's, byte for byte, or no browser can read it"
        );
    }

    #[test]
    fn a_key_that_is_no_point_is_refused() {
        let to = Recipient {
            p256dh: &[4_u8; 65],
            auth: &[0_u8; 16],
        };
        assert_eq!(encrypt(&to, b"x"), Err(EncryptError::BadKey));
        assert!(!is_p256_point(&[4_u8; 65]), "not on the curve");
    }
}
