//! Batching: equivalent requests of one requester share one pending prompt.

use chrono::{DateTime, Utc};

/// A pending prompt as far as joining it matters (a candidate row of the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingPrompt {
    pub approval_id: String,
    pub requester: String,
    pub batch_key: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The prompt a request of `requester` with `batch_key` joins at `now`: the oldest candidate
/// with the same requester and batch key that has not expired. `None`: it opens a new one.
///
/// Another requester's prompt is never joined (its approval would answer someone else's
/// agent), and an expired prompt is never joined (its timeout fallback is about to apply).
pub fn joinable<'a>(
    candidates: &'a [PendingPrompt],
    requester: &str,
    batch_key: &str,
    now: DateTime<Utc>,
) -> Option<&'a PendingPrompt> {
    candidates
        .iter()
        .filter(|p| p.requester == requester && p.batch_key == batch_key && p.expires_at > now)
        .min_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.approval_id.cmp(&b.approval_id))
        })
}
