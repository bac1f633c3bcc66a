//! A run ends: its run-scoped grants expire, its pending prompts close as cancelled, and
//! `run.ended` is announced.

use assent_protocol::{Event, Resolution};
use chrono::{DateTime, Utc};

use super::expired_grants::announce_expired;
use super::settle::{closing, settle_in};
use crate::store::rows::Pending;
use crate::store::{RunEnd, Store, StoreError, Tx};

/// Ends a run in its own transaction. `by`: the agent identity that asked, which ends only
/// its own part of the run (its prompts and grants; run ids are the agent's own words, so
/// another agent naming the same run is untouched); `None` (a person): the whole run.
pub async fn end_run(
    store: &dyn Store,
    run_id: &str,
    by: Option<&str>,
    now: DateTime<Utc>,
) -> Result<RunEnd, StoreError> {
    let mut tx = store.begin().await?;
    let ended = end_run_in(tx.as_mut(), run_id, by, "its run ended", now).await?;
    tx.commit().await?;
    Ok(ended)
}

/// Ends a run (or, with `by`, one agent's part of it) in the caller's transaction; its
/// pending prompts close with `reason`.
pub async fn end_run_in(
    tx: &mut dyn Tx,
    run_id: &str,
    by: Option<&str>,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<RunEnd, StoreError> {
    let mut approvals_cancelled = 0_u32;
    let pending = match by {
        Some(requester) => Pending::OfRunBy(run_id, requester),
        None => Pending::OfRun(run_id),
    };
    for approval_id in tx.pending_approvals(pending).await? {
        let settlement = closing(approval_id, Resolution::Cancelled, reason, now);
        match settle_in(tx, &settlement, &[]).await {
            Ok(_) => approvals_cancelled = approvals_cancelled.saturating_add(1),
            Err(StoreError::Conflict(_)) => {}
            Err(other) => return Err(other),
        }
    }
    let grants_expired = tx.end_run_grants(run_id, by, now).await?;
    announce_expired(tx, now, "its run ended").await?;
    let ended = Event::RunEnded {
        run_id: run_id.to_owned(),
        requester: by.map(str::to_owned),
    };
    tx.insert_event(now, &ended).await?;
    Ok(RunEnd {
        grants_expired,
        approvals_cancelled,
    })
}
