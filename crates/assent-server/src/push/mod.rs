//! Web Push: each person a prompt asks gets a message on each browser they subscribed (`POST /v1/push/subscriptions`), encrypted for that browser
//! (RFC 8291, [`encrypt`]) and signed with the service's VAPID key (RFC 8292, [`key`]).
//!
//! Who gets a prompt's push is routing's answer, not this module's: each step of a prompt
//! (`crate::routing::notify_step`: the people its first step asks, then the people its
//! escalation adds) calls [`push_to`] with exactly those people. Each step runs once across
//! replicas (the submission that opened the prompt, the one sweep that escalated it), so a
//! person is pushed a prompt once per step that asks them. Nothing here is on a request's
//! path: each message is sent in its own task, so a submission or a decision never waits for
//! a push service.

pub mod deliver;
pub mod encrypt;
pub mod key;
pub mod message;
pub mod subscription;

use assent_core::Policy;
use assent_protocol::Approval;
use chrono::{DateTime, Utc};

pub use deliver::{Outcome, Retry, Sender};
pub use key::{PushKey, PushKeyError, PUSH_KEY_FILE};

use crate::store::{Store, StoreError};

/// Pushes `approval` (worded under `policy`, as of `now`) through `sender` to every
/// subscription in `store` of each of `people`, each in its own task; the outcomes are
/// logged. Returns how many messages were started.
pub async fn push_to(
    sender: &Sender,
    store: &dyn Store,
    policy: &Policy,
    now: DateTime<Utc>,
    approval: &Approval,
    people: &[String],
) -> Result<usize, StoreError> {
    let payload = message::payload(approval, policy);
    let plaintext = serde_json::to_vec(&payload)?;
    let mut started = 0;
    for person in people {
        for subscription in store.push_subscriptions(person).await? {
            let message = deliver::Message {
                plaintext: plaintext.clone(),
                ttl: message::ttl(approval.expires_at, now),
                urgency: message::urgency(approval.facts.risk),
                until: approval.expires_at,
            };
            let sender = sender.clone();
            let approval_id = approval.approval_id.clone();
            tokio::spawn(async move {
                let outcome = sender.deliver(&subscription, &message).await;
                match &outcome {
                    Outcome::Delivered => {
                        tracing::debug!(%approval_id, person = %subscription.person, "pushed");
                    }
                    Outcome::Gone => tracing::info!(
                        person = %subscription.person,
                        "a push subscription is gone (404/410): dropped"
                    ),
                    Outcome::Failed(why) => tracing::warn!(%approval_id, %why, "push failed"),
                }
            });
            started += 1;
        }
    }
    Ok(started)
}

/// The client that posts to push services: the system's CA roots, no redirects (an endpoint
/// is where the browser said, nowhere else), bounded time per attempt.
pub fn http_client() -> Result<reqwest::Client, std::io::Error> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(5))
        .timeout(std::time::Duration::from_secs(15));
    for cert in rustls_native_certs::load_native_certs().certs {
        if let Ok(cert) = reqwest::Certificate::from_der(&cert) {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder.build().map_err(std::io::Error::other)
}
