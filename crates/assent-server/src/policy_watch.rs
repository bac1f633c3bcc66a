//! The policy watcher: the task that re-checks the policy file ([`crate::reload`]) and tells
//! the event stream when it reloads.

use std::time::Duration;

use crate::reload::Recheck;

/// Re-checks the policy file every `every` until the service stops; announces a reload on the
/// event stream and logs an edit that does not load.
pub async fn watch(state: crate::state::AppState, every: Duration) {
    let shared = state.inner.clone();
    let mut stopping = shared.shutdown.clone();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stopping.wait_for(|stop| *stop) => return,
        }
        let live = shared.policy.clone();
        let now = shared.clock.now();
        let Ok(found) = tokio::task::spawn_blocking(move || live.recheck(now)).await else {
            continue;
        };
        match found {
            Recheck::Unchanged => {}
            Recheck::Reloaded(policy) => {
                tracing::info!(path = %shared.policy.path().display(), version = policy.version(), "policy file reloaded");
                let event = assent_protocol::Event::PolicyChanged {
                    version: policy.version().to_owned(),
                    by: None,
                };
                if let Err(err) = shared.store.policy_changed(None, &event, now).await {
                    tracing::warn!(%err, "cannot announce the reloaded policy");
                }
            }
            Recheck::Invalid(message) => {
                tracing::error!(path = %shared.policy.path().display(), %message, "the policy file does not load; the previous policy stays in force");
            }
        }
    }
}
