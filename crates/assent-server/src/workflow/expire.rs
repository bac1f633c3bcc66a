//! Time running out: unanswered approvals follow their `fallback_on_timeout` (deny, pause
//! the run, cancel the run, per `assent_core::workflow::on_timeout`), and grants past their
//! time are announced. Each happens once: a sweep that loses a race to another sweep (or
//! replica) skips what the other did.

use assent_core::workflow::{on_timeout, HoldPlan};
use assent_core::ApprovalStatus;
use assent_protocol::{Event, Resolution, RunStatus};
use chrono::{DateTime, Utc};

use super::end_run::end_run_in;
use super::expired_grants::announce_expired;
use super::settle::{closing, settle_in};
use crate::store::rows::{HoldRow, Pending};
use crate::store::{Store, StoreError, Tx};

/// Settles approvals past their time and announces expired grants, in one transaction; does
/// nothing (not even a write transaction) when nothing is due.
pub async fn due(store: &dyn Store, now: DateTime<Utc>) -> Result<(), StoreError> {
    if store.next_deadline().await?.is_none_or(|at| at > now) {
        return Ok(());
    }
    let mut tx = store.begin().await?;
    due_in(tx.as_mut(), now).await?;
    tx.commit().await
}

/// Settles every approval past its time (with its fallback) and announces expired grants, in
/// the caller's transaction.
pub async fn due_in(tx: &mut dyn Tx, now: DateTime<Utc>) -> Result<(), StoreError> {
    for approval_id in tx.pending_approvals(Pending::DueAt(now)).await? {
        time_out(tx, &approval_id, now).await?;
    }
    announce_expired(tx, now, "its time ran out").await?;
    Ok(())
}

/// Times one approval out and applies its fallback; nothing when it is no longer pending (a
/// run cancelled by an earlier timeout of the same sweep closed it, or another sweep did).
async fn time_out(
    tx: &mut dyn Tx,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(record) = tx.approval(approval_id).await? else {
        return Ok(());
    };
    if record.approval.status != ApprovalStatus::Requested {
        return Ok(());
    }
    let run_id = record.approval.run_id;
    let plan = on_timeout(record.approval.fallback_on_timeout, &run_id, approval_id);
    let settlement = closing(
        approval_id.to_owned(),
        Resolution::TimedOut,
        &plan.reason,
        now,
    );
    match settle_in(tx, &settlement, &[]).await {
        Ok(_) => {}
        Err(StoreError::Conflict(_)) => return Ok(()),
        Err(other) => return Err(other),
    }
    let Some((plan, reason)) = plan.hold else {
        return Ok(());
    };
    let status = match plan {
        HoldPlan::Pause => RunStatus::Paused,
        HoldPlan::Cancel => RunStatus::Cancelled,
    };
    let hold = HoldRow {
        run_id: &run_id,
        status,
        reason: &reason,
        approval_id,
        now,
        campaign: None,
    };
    let run = tx.hold_run(hold).await?;
    match plan {
        HoldPlan::Pause => {
            tx.insert_event(now, &Event::RunPaused { run }).await?;
        }
        HoldPlan::Cancel => {
            end_run_in(tx, &run_id, None, &reason, now).await?;
        }
    }
    Ok(())
}
