//! A browser's push subscription, checked before it is stored: an endpoint the service may
//! post to (`https://`, or plain `http://` on a loopback address — a local relay, a test's
//! receiver), keys of the right kind and length.

use assent_protocol::PushSubscriptionJson;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The longest endpoint accepted (the push services' are ~200–600 characters).
pub const MAX_ENDPOINT: usize = 2048;

/// A subscription the service may deliver to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub endpoint: String,
    /// The browser's uncompressed P-256 public key (65 bytes).
    pub p256dh: Vec<u8>,
    /// The browser's auth secret (16 bytes).
    pub auth: Vec<u8>,
    /// When the push service ends it (milliseconds since 1970), if it said.
    pub expires_at_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscriptionError {
    #[error("endpoint must be at most {MAX_ENDPOINT} characters")]
    EndpointTooLong,
    #[error("endpoint is not a URL: {0}")]
    EndpointNotUrl(String),
    #[error("endpoint must be https:// (plain http:// only on a loopback address)")]
    EndpointNotHttps,
    #[error("endpoint must not carry a user name, password or fragment")]
    EndpointCredentials,
    #[error("keys.p256dh must be base64url of an uncompressed P-256 public key (65 bytes)")]
    BadP256dh,
    #[error("keys.auth must be base64url of 16 bytes")]
    BadAuth,
    #[error("expirationTime must be a time in milliseconds since 1970, or null")]
    BadExpiration,
}

impl Subscription {
    /// Checks a browser's `PushSubscription.toJSON()`.
    pub fn parse(json: &PushSubscriptionJson) -> Result<Subscription, SubscriptionError> {
        let endpoint = check_endpoint(&json.endpoint)?;
        let p256dh = decode(&json.keys.p256dh, 65).ok_or(SubscriptionError::BadP256dh)?;
        if !super::encrypt::is_p256_point(&p256dh) {
            return Err(SubscriptionError::BadP256dh);
        }
        let auth = decode(&json.keys.auth, 16).ok_or(SubscriptionError::BadAuth)?;
        let expires_at_ms = match json.expiration_time {
            None => None,
            Some(ms) if ms.is_finite() && (0.0..=1e15).contains(&ms) =>
            {
                #[expect(clippy::cast_possible_truncation, reason = "checked to be in range")]
                Some(ms as i64)
            }
            Some(_) => return Err(SubscriptionError::BadExpiration),
        };
        Ok(Subscription {
            endpoint,
            p256dh,
            auth,
            expires_at_ms,
        })
    }
}

/// The endpoint as given, once it is a URL the service may post to.
pub fn check_endpoint(text: &str) -> Result<String, SubscriptionError> {
    if text.len() > MAX_ENDPOINT {
        return Err(SubscriptionError::EndpointTooLong);
    }
    let url =
        url::Url::parse(text).map_err(|err| SubscriptionError::EndpointNotUrl(err.to_string()))?;
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(SubscriptionError::EndpointCredentials);
    }
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => Ok(text.to_owned()),
        "http" if loopback => Ok(text.to_owned()),
        _ => Err(SubscriptionError::EndpointNotHttps),
    }
}

/// `text` as base64url (padded or not) of exactly `len` bytes.
fn decode(text: &str, len: usize) -> Option<Vec<u8>> {
    if text.len() > 4 * len {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()?;
    (bytes.len() == len).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_https_or_loopback_http() {
        let table = [
            ("https://fcm.googleapis.com/fcm/send/abc", true),
            ("https://updates.push.services.mozilla.com/wpush/v2/x", true),
            ("http://127.0.0.1:9000/push", true),
            ("http://[::1]:9000/push", true),
            ("http://localhost:9000/push", true),
            ("http://push.example.com/x", false), // plain http off loopback: readable en route
            ("http://127.0.0.1.nip.io/x", false),
            ("ftp://127.0.0.1/x", false),
            ("file:///etc/passwd", false),
            ("https://user:pw@push.example.com/x", false),
            ("https://push.example.com/x#frag", false),
            ("not a url", false),
        ];
        for (endpoint, ok) in table {
            assert_eq!(check_endpoint(endpoint).is_ok(), ok, "{endpoint}");
        }
        let long = format!("https://push.example.com/{}", "a".repeat(MAX_ENDPOINT));
        assert_eq!(
            check_endpoint(&long),
            Err(SubscriptionError::EndpointTooLong),
            "no unbounded rows"
        );
    }
}
