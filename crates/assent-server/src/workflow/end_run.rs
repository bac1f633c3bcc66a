//! A run ends: its run-scoped grants expire, its pending prompts close as cancelled, and
//! `run.ended` is announced.

use assent_protocol::{Event, Resolution};
use chrono::{DateTime, Utc};

use super::expired_grants::announce_expired;
use super::settle::{closing, settle_in};
use crate::store::rows::Pending;
use crate::store::{RunEnd, Store, StoreError, Tx};

/// Ends a run in its own transaction (the agent said so).
pub async fn end_run(
    store: &dyn Store,
    run_id: &str,
    now: DateTime<Utc>,
) -> Result<RunEnd, StoreError> {
    let mut tx = store.begin().await?;
    let ended = end_run_in(tx.as_mut(), run_id, "its run ended", now).await?;
    tx.commit().await?;
    Ok(ended)
}

/// Ends a run in the caller's transaction; its pending prompts close with `reason`.
pub async fn end_run_in(
    tx: &mut dyn Tx,
    run_id: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<RunEnd, StoreError> {
    let mut approvals_cancelled = 0_u32;
    for approval_id in tx.pending_approvals(Pending::OfRun(run_id)).await? {
        let settlement = closing(approval_id, Resolution::Cancelled, reason, now);
        match settle_in(tx, &settlement).await {
            Ok(_) => approvals_cancelled = approvals_cancelled.saturating_add(1),
            Err(StoreError::Conflict(_)) => {}
            Err(other) => return Err(other),
        }
    }
    let grants_expired = tx.end_run_grants(run_id, now).await?;
    announce_expired(tx, now, "its run ended").await?;
    let ended = Event::RunEnded {
        run_id: run_id.to_owned(),
    };
    tx.insert_event(now, &ended).await?;
    Ok(RunEnd {
        grants_expired,
        approvals_cancelled,
    })
}
