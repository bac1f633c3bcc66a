//! Outbound webhooks: a platform admin registers a URL (`POST /v1/webhooks`) and the events
//! it takes; every such event is written to an outbox in its own transaction
//! (`store/sql/webhooks.rs`), and the delivery loop ([`deliver`]) posts it, signed with the
//! webhook's secret as Standard Webhooks do (the `standardwebhooks` crate), at least once.

pub mod deliver;
pub mod destination;
pub mod payload;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

pub use deliver::Deliverer;
pub use destination::{Resolver, Resolving, SystemResolver};

/// The prefix of a webhook's secret; the base64 after it is the HMAC-SHA256 key.
pub const SECRET_PREFIX: &str = "whsec_";

/// A new secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    let key: [u8; 32] = rand::random();
    format!("{SECRET_PREFIX}{}", STANDARD.encode(key))
}

/// A new webhook id.
pub fn new_id() -> String {
    format!("wh_{}", uuid::Uuid::new_v4().simple())
}

/// `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` under `secret` (Standard Webhooks'
/// reference implementation).
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Result<String, String> {
    let hook = standardwebhooks::Webhook::new(secret)
        .map_err(|_| "the stored secret is not whsec_ and base64".to_owned())?;
    hook.sign(id, timestamp, body.as_bytes())
        .map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_the_reference_library_and_fails_when_tampered() {
        let secret = new_secret();
        assert!(
            secret.starts_with("whsec_"),
            "Standard Webhooks' secret form"
        );
        let body = r#"{"type":"approval.settled","timestamp":"2026-03-01T09:00:00Z","data":{}}"#;
        let now = chrono::Utc::now().timestamp();
        let signature = sign(&secret, "msg_1_wh_x", now, body).unwrap();
        assert!(signature.starts_with("v1,"), "versioned signature");
        let mut headers = http::HeaderMap::new();
        headers.insert("webhook-id", "msg_1_wh_x".parse().unwrap());
        headers.insert("webhook-timestamp", now.to_string().parse().unwrap());
        headers.insert("webhook-signature", signature.parse().unwrap());
        let verifier = standardwebhooks::Webhook::new(&secret).unwrap();
        verifier
            .verify(body.as_bytes(), &headers)
            .expect("the receiver's library accepts our signature");
        assert!(
            verifier.verify(b"{\"type\":\"forged\"}", &headers).is_err(),
            "another body does not verify"
        );
        let other = standardwebhooks::Webhook::new(&new_secret()).unwrap();
        assert!(
            other.verify(body.as_bytes(), &headers).is_err(),
            "another secret does not verify"
        );
    }
}
