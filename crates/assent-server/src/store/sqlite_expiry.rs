//! Time running out: unanswered approvals follow their `fallback_on_timeout` (deny, pause the
//! run, cancel the run), grants past their time are announced, and runs end.

use assent_core::workflow::{closed_by, on_timeout, HoldPlan};
use assent_core::ApprovalStatus;
use assent_protocol::{Event, Resolution, RunStatus};
use chrono::{DateTime, Utc};
use sqlx::SqliteConnection;

use super::sqlite_rows::{from_micros, insert_event, name_of};
use super::{sqlite_approvals, sqlite_grants, sqlite_runs, RunEnd, Settlement, StoreError};

/// Settles every approval past its time (with its fallback) and announces expired grants, in
/// the caller's transaction. Says whether it wrote events.
pub async fn expire_due(
    conn: &mut SqliteConnection,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let due = sqlite_approvals::pending_ids(conn, Some(now), None).await?;
    let mut wrote = false;
    for approval_id in due {
        wrote |= time_out(conn, &approval_id, now).await?;
    }
    wrote |= sqlite_grants::announce_expired(conn, now, "its time ran out").await? > 0;
    Ok(wrote)
}

/// Times one approval out and applies its fallback; false when it was no longer pending (a
/// run cancelled by an earlier timeout of the same sweep closed it).
async fn time_out(
    conn: &mut SqliteConnection,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let Some(record) = sqlite_approvals::load(conn, approval_id).await? else {
        return Ok(false);
    };
    if record.approval.status != ApprovalStatus::Requested {
        return Ok(false);
    }
    let run_id = record.approval.run_id;
    let plan = on_timeout(record.approval.fallback_on_timeout, &run_id, approval_id);
    let settlement = closing(
        approval_id.to_owned(),
        Resolution::TimedOut,
        &plan.reason,
        now,
    );
    sqlite_approvals::settle(conn, &settlement).await?;
    match plan.hold {
        None => {}
        Some((HoldPlan::Pause, held)) => {
            let run = sqlite_runs::hold(conn, &run_id, RunStatus::Paused, &held, approval_id, now)
                .await?;
            insert_event(conn, now, &Event::RunPaused { run }).await?;
        }
        Some((HoldPlan::Cancel, held)) => {
            sqlite_runs::hold(conn, &run_id, RunStatus::Cancelled, &held, approval_id, now).await?;
            end_run(conn, &run_id, &held, now).await?;
        }
    }
    Ok(true)
}

/// Ends a run in the caller's transaction: its run-scoped grants expire, its pending prompts
/// close as cancelled (with `reason`), and `run.ended` is announced.
pub async fn end_run(
    conn: &mut SqliteConnection,
    run_id: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<RunEnd, StoreError> {
    let ids = sqlite_approvals::pending_ids(conn, None, Some(run_id)).await?;
    let mut approvals_cancelled = 0_u32;
    for approval_id in ids {
        let settlement = closing(approval_id, Resolution::Cancelled, reason, now);
        sqlite_approvals::settle(conn, &settlement).await?;
        approvals_cancelled = approvals_cancelled.saturating_add(1);
    }
    let grants_expired = sqlite_grants::expire_run(conn, run_id, now).await?;
    insert_event(
        conn,
        now,
        &Event::RunEnded {
            run_id: run_id.to_owned(),
        },
    )
    .await?;
    Ok(RunEnd {
        grants_expired,
        approvals_cancelled,
    })
}

/// The earliest time something expires: a pending approval, or a grant whose expiry is not
/// announced yet. Two index seeks.
pub async fn next_deadline(
    conn: &mut SqliteConnection,
) -> Result<Option<DateTime<Utc>>, StoreError> {
    let approval: Option<i64> = sqlx::query_scalar(
        "SELECT expires_at FROM approval_requests WHERE status = ? \
         ORDER BY expires_at LIMIT 1",
    )
    .bind(name_of(&ApprovalStatus::Requested)?)
    .fetch_optional(&mut *conn)
    .await?;
    let grant: Option<i64> = sqlx::query_scalar(
        "SELECT expires_at FROM approval_grants \
         WHERE expiry_announced = 0 AND revoked_at IS NULL ORDER BY expires_at LIMIT 1",
    )
    .fetch_optional(&mut *conn)
    .await?;
    let earliest = match (approval, grant) {
        (Some(a), Some(g)) => Some(a.min(g)),
        (one, other) => one.or(other),
    };
    earliest.map(from_micros).transpose()
}

/// Whether anything is due at `now` (cheap: two index seeks, no write).
pub async fn anything_due(
    conn: &mut SqliteConnection,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    Ok(next_deadline(conn).await?.is_some_and(|at| at <= now))
}

/// A settlement nobody decided: the timeout or the end of the run.
pub fn closing(
    approval_id: String,
    resolution: Resolution,
    reason: &str,
    now: DateTime<Utc>,
) -> Settlement {
    let by = closed_by(resolution == Resolution::TimedOut);
    Settlement {
        approval_id,
        status: ApprovalStatus::Expired,
        resolution,
        decided_by: by.to_owned(),
        decided_role: None,
        votes: Vec::new(),
        reason: Some(reason.to_owned()),
        grant: None,
        now,
    }
}
