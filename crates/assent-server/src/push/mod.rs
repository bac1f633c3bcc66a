//! Web Push: when a prompt opens, each person who may decide it gets a message on each
//! browser they subscribed (`POST /v1/push/subscriptions`), encrypted for that browser
//! (RFC 8291, [`encrypt`]) and signed with the service's VAPID key (RFC 8292, [`key`]).
//!
//! Nothing here is on a request's path: [`watch`] follows the event log in the background
//! (like `GET /v1/events`), so a submission or a decision never waits for a push service.
//! Every replica follows the log; the first to claim a prompt (`push_sent`) pushes it.
//! Who is asked is one function, [`push_recipients`]; [`push_to`] pushes a prompt to any
//! list of people (what an escalation step calls for the people it adds).

pub mod deliver;
pub mod encrypt;
pub mod key;
pub mod message;
pub mod subscription;

use std::sync::Arc;

use assent_core::{may_decide, ApprovalStatus, Decidable, IdentityKind};
use assent_protocol::{Approval, Event};

pub use deliver::{Outcome, Retry, Sender};
pub use key::{PushKey, PushKeyError, PUSH_KEY_FILE};

use crate::state::Shared;
use crate::store::{Store, StoreError};

/// Events read from the log per query.
const PAGE: i64 = 256;

/// The people who may decide `approval` now: every person holding its required role (or any
/// role, when it names none), never the identity whose request waits on it.
pub async fn push_recipients(
    store: &dyn Store,
    approval: &Approval,
) -> Result<Vec<String>, StoreError> {
    let requesters = [approval.requester.clone()];
    let decidable = Decidable {
        required_role: approval.required_role,
        requesters: &requesters,
    };
    let mut people = Vec::new();
    for info in store.identities(IdentityKind::Person).await? {
        let Some(person) = store.identity(&info.name).await? else {
            continue;
        };
        if may_decide(&person, decidable).is_ok() {
            people.push(person.name);
        }
    }
    Ok(people)
}

/// Pushes `approval` to every subscription of each of `people`, each in its own task; the
/// outcomes are logged. Returns how many messages were started.
pub async fn push_to(
    shared: &Shared,
    approval: &Approval,
    people: &[String],
) -> Result<usize, StoreError> {
    let Some(sender) = shared.push.clone() else {
        return Ok(0);
    };
    let now = shared.clock.now();
    let payload = message::payload(approval, &shared.policy.current());
    let plaintext = serde_json::to_vec(&payload)?;
    let mut started = 0;
    for person in people {
        for subscription in shared.store.push_subscriptions(person).await? {
            let message = deliver::Message {
                plaintext: plaintext.clone(),
                ttl: message::ttl(approval.expires_at, now),
                urgency: message::urgency(approval.risk),
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

/// Pushes a newly opened prompt to [`push_recipients`], once across replicas.
async fn announce(shared: &Shared, approval: &Approval) -> Result<(), StoreError> {
    if approval.status != ApprovalStatus::Requested {
        return Ok(());
    }
    let people = push_recipients(shared.store.as_ref(), approval).await?;
    if people.is_empty() {
        return Ok(());
    }
    if !shared
        .store
        .push_claim(&approval.approval_id, shared.clock.now())
        .await?
    {
        return Ok(());
    }
    push_to(shared, approval, &people).await.map(|_| ())
}

/// Follows the event log from now on and announces each prompt that opens; ends when the
/// service shuts down.
pub async fn watch(shared: Arc<Shared>) {
    let mut changes = shared.store.events().watch();
    let mut shutdown = shared.shutdown.clone();
    let mut after = match shared.store.events().bounds().await {
        Ok((_, newest)) => newest,
        Err(err) => {
            tracing::error!(%err, "push cannot read the event log");
            return;
        }
    };
    loop {
        changes.borrow_and_update();
        match shared.store.events().after(after, PAGE).await {
            Ok(events) if !events.is_empty() => {
                after = events.last().map_or(after, |e| e.id);
                for envelope in events {
                    if let Event::ApprovalRequested { approval } = envelope.event {
                        if let Err(err) = announce(&shared, &approval).await {
                            tracing::warn!(%err, "cannot push a new prompt");
                        }
                    }
                }
                continue;
            }
            Ok(_) => {}
            Err(err) => tracing::warn!(%err, "push cannot read the event log"),
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            _ = shutdown.wait_for(|stop| *stop) => return,
        }
    }
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
