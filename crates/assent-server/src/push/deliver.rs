//! Sending one message to one subscription: encrypted once, posted with a fresh VAPID token
//! per attempt; 2xx is delivered, 404/410 drops the subscription (the browser unsubscribed or
//! the push service forgot it), 429/5xx and network failures are retried with exponential
//! backoff up to [`Retry::attempts`], any other answer gives up. Waits run on the service's
//! clock, so a test moves a fake clock instead of sleeping.

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::{DateTime, Utc};

use super::encrypt::{encrypt, Recipient};
use super::key::PushKey;
use crate::clock::Clock;
use crate::store::{PushSubscriptionRow, Store};

/// How failed pushes are tried again.
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The wait after the first failure; it doubles after each further one.
    pub first_wait: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 5,
            first_wait: Duration::from_secs(2),
        }
    }
}

/// One message for one subscription.
pub struct Message {
    /// The payload's JSON (encrypted per subscription).
    pub plaintext: Vec<u8>,
    pub ttl: i64,
    pub urgency: &'static str,
    /// Until when the message is worth sending (the prompt's expiry).
    pub until: DateTime<Utc>,
}

/// What became of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    /// 404/410: the subscription was dropped.
    Gone,
    /// Refused for good, or still failing after the last attempt (the last status or error).
    Failed(String),
}

/// What sending needs: the key, an HTTP client, the VAPID subject, the clock and the store.
#[derive(Clone)]
pub struct Sender {
    pub key: PushKey,
    pub http: reqwest::Client,
    pub subject: String,
    pub retry: Retry,
    pub clock: Arc<dyn Clock>,
    pub store: Arc<dyn Store>,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("key", &self.key)
            .field("subject", &self.subject)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Sender {
    /// Sends `message` to `to`, retrying as [`Retry`] says.
    pub async fn deliver(&self, to: &PushSubscriptionRow, message: &Message) -> Outcome {
        let body = match self.sealed(to, message) {
            Ok(body) => body,
            Err(why) => return Outcome::Failed(why),
        };
        let mut wait = self.retry.first_wait;
        let mut last = String::new();
        for attempt in 1..=self.retry.attempts.max(1) {
            if attempt > 1 {
                let due = self.clock.now()
                    + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::MAX);
                if due >= message.until {
                    return Outcome::Failed(format!("{last}; the prompt expires before a retry"));
                }
                wait_until(self.clock.as_ref(), due).await;
                wait = wait.saturating_mul(2);
            }
            match self.post(to, message, &body).await {
                Ok(status) if status.is_success() => return Outcome::Delivered,
                Ok(status) if status.as_u16() == 404 || status.as_u16() == 410 => {
                    if let Err(err) = self.store.push_gone(&to.endpoint).await {
                        tracing::warn!(%err, "cannot drop a gone push subscription");
                    }
                    return Outcome::Gone;
                }
                Ok(status) if status.as_u16() == 429 || status.is_server_error() => {
                    last = format!("push service answered {status}");
                }
                Ok(status) => return Outcome::Failed(format!("push service answered {status}")),
                Err(err) => last = format!("cannot reach the push service: {err}"),
            }
            tracing::debug!(attempt, %last, "push not delivered yet");
        }
        Outcome::Failed(last)
    }

    fn sealed(&self, to: &PushSubscriptionRow, message: &Message) -> Result<Vec<u8>, String> {
        let p256dh = URL_SAFE_NO_PAD
            .decode(&to.p256dh)
            .map_err(|_| "stored p256dh is not base64url".to_owned())?;
        let auth = URL_SAFE_NO_PAD
            .decode(&to.auth)
            .map_err(|_| "stored auth is not base64url".to_owned())?;
        let recipient = Recipient {
            p256dh: &p256dh,
            auth: &auth,
        };
        encrypt(&recipient, &message.plaintext).map_err(|err| err.to_string())
    }

    async fn post(
        &self,
        to: &PushSubscriptionRow,
        message: &Message,
        body: &[u8],
    ) -> Result<reqwest::StatusCode, reqwest::Error> {
        let audience = url::Url::parse(&to.endpoint)
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_default();
        // The push service checks `exp` against its own clock (the real one): at most 24 h
        // ahead (RFC 8292 §2), 12 h here.
        let expires = Utc::now().timestamp() + 12 * 3600;
        let response = self
            .http
            .post(&to.endpoint)
            .header(
                "authorization",
                self.key.authorization(&audience, expires, &self.subject),
            )
            .header("content-encoding", "aes128gcm")
            .header("content-type", "application/octet-stream")
            .header("ttl", message.ttl.to_string())
            .header("urgency", message.urgency)
            .body(body.to_vec())
            .send()
            .await?;
        Ok(response.status())
    }
}

/// Returns once `clock` reads `due`: sleeps for the time left, and looks again whenever a
/// fake clock is moved.
async fn wait_until(clock: &dyn Clock, due: DateTime<Utc>) {
    let mut moves = clock.moves();
    loop {
        let left = due - clock.now();
        let Ok(left) = left.to_std() else { return };
        if left.is_zero() {
            return;
        }
        match moves.as_mut() {
            Some(moved) => {
                tokio::select! {
                    () = tokio::time::sleep(left) => {}
                    changed = moved.changed() => if changed.is_err() { moves = None },
                }
            }
            None => tokio::time::sleep(left).await,
        }
    }
}
