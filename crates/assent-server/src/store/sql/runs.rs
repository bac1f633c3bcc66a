//! Runs held by a timeout fallback: `paused` until an approver resumes them, `cancelled` for
//! good. A run without a row is running.

use std::collections::HashMap;

use assent_protocol::{RunState, RunStatus};
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{micros, name_of, opt_from_micros, parse_name};
use super::stmt::Stmt;
use crate::store::rows::HoldRow;
use crate::store::StoreError;

/// The run a row names; `None` when its `run_id` is NULL (the first read's join, no run held).
fn run_of(row: &DbRow) -> Result<Option<RunState>, StoreError> {
    let Some(run_id) = row.try_get::<Option<String>, _>("run_id")? else {
        return Ok(None);
    };
    Ok(Some(RunState {
        run_id,
        status: parse_name(&row.try_get::<String, _>("status")?)?,
        reason: row.try_get("reason")?,
        approval_id: row.try_get("approval_id")?,
        updated_at: opt_from_micros(row.try_get("updated_at")?)?,
        campaign: row.try_get("campaign")?,
    }))
}

fn state_of(row: &DbRow) -> Result<RunState, StoreError> {
    run_of(row)?.ok_or_else(|| StoreError::Corrupt("a run's row without its id".to_owned()))
}

/// The state of one run (`running` when Assent holds nothing against it).
pub async fn get(conn: &mut Conn, run_id: &str) -> Result<RunState, StoreError> {
    let row = sqlx::query(
        "SELECT run_id, status, reason, approval_id, updated_at, campaign FROM runs WHERE run_id = $1",
    )
    .bind(run_id)
    .fetch_optional(conn)
    .await?;
    match row {
        Some(row) => state_of(&row),
        None => Ok(RunState {
            run_id: run_id.to_owned(),
            status: RunStatus::Running,
            reason: None,
            approval_id: None,
            updated_at: None,
            campaign: None,
        }),
    }
}

/// Every run with `status`, most recently changed first (a desk lists the paused ones).
pub async fn list(conn: &mut Conn, status: RunStatus) -> Result<Vec<RunState>, StoreError> {
    let rows = sqlx::query(
        "SELECT run_id, status, reason, approval_id, updated_at, campaign FROM runs \
         WHERE status = $1 ORDER BY updated_at DESC, run_id",
    )
    .bind(name_of(&status)?)
    .fetch_all(conn)
    .await?;
    rows.iter().map(state_of).collect()
}

/// The runs of `campaign` with `status`, in the order they were held.
pub async fn of_campaign(
    conn: &mut Conn,
    campaign: &str,
    status: RunStatus,
) -> Result<Vec<RunState>, StoreError> {
    let rows = sqlx::query(
        "SELECT run_id, status, reason, approval_id, updated_at, campaign FROM runs \
         WHERE campaign = $1 AND status = $2 ORDER BY updated_at, run_id",
    )
    .bind(campaign)
    .bind(name_of(&status)?)
    .fetch_all(conn)
    .await?;
    rows.iter().map(state_of).collect()
}

/// The held (paused or cancelled) runs among `run_ids`: one query for a whole batch.
pub async fn holds(
    conn: &mut Conn,
    run_ids: &[&str],
) -> Result<HashMap<String, RunState>, StoreError> {
    if run_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut query = Stmt::new(
        "SELECT r.run_id, r.status, r.reason, r.approval_id, r.updated_at, r.campaign \
         FROM runs AS r WHERE ",
    );
    push_held_among(&mut query, run_ids)?;
    let rows = query.fetch_all(conn).await?;
    rows.iter()
        .map(|row| state_of(row).map(|state| (state.run_id.clone(), state)))
        .collect()
}

/// The next deadline ([`super::expiry::next_deadline`]) and the held runs among `run_ids`
/// ([`holds`]) in one statement: a batch of submissions reads both first, and every statement
/// is a round trip (on SQLite a hand-off to the connection's thread and back, on PostgreSQL one
/// over the network). The deadlines, with the audit chain's head the batch will append after,
/// are one row and the held runs join it, so it comes back alone, its run columns NULL, when
/// none is held. Read by [`deadline_and_holds_from`].
pub fn deadline_and_holds(run_ids: &[&str]) -> Result<Stmt, StoreError> {
    let mut query = Stmt::new(
        "SELECT d.approval_at, d.grant_at, d.head_seq, d.head_hash, \
         r.run_id, r.status, r.reason, r.approval_id, r.updated_at, r.campaign FROM (SELECT ",
    );
    super::expiry::push_deadlines(&mut query)?;
    query.push(", ");
    super::chain::push_head(&mut query);
    query.push(") AS d LEFT JOIN runs AS r ON ");
    push_held_among(&mut query, run_ids)?;
    Ok(query)
}

/// What [`deadline_and_holds`] answered.
pub fn deadline_and_holds_from(rows: &[DbRow]) -> Result<DeadlineHoldsHead, StoreError> {
    let first = rows
        .first()
        .ok_or_else(|| StoreError::Corrupt("the batch's first read returned no row".to_owned()))?;
    let deadline = super::expiry::earliest_of(first)?;
    let head = super::chain::head_of(first)?;
    let mut held = HashMap::new();
    for row in rows {
        if let Some(state) = run_of(row)? {
            held.insert(state.run_id.clone(), state);
        }
    }
    Ok((deadline, held, head))
}

/// The next deadline, the held runs and the audit chain's head: a batch's first read.
pub type DeadlineHoldsHead = (
    Option<DateTime<Utc>>,
    HashMap<String, RunState>,
    (i64, String),
);

/// Pushes the condition "run `r` is held and among `run_ids`" (false for no run ids: SQL has
/// no empty `IN` list).
fn push_held_among(query: &mut Stmt, run_ids: &[&str]) -> Result<(), StoreError> {
    if run_ids.is_empty() {
        query.push("1 = 0");
        return Ok(());
    }
    query.push("r.status <> ");
    query.push_bind(name_of(&RunStatus::Running)?);
    query.push(" AND r.run_id IN ");
    query.push_row(true, |ids| {
        for run_id in run_ids {
            ids.bind((*run_id).to_owned());
        }
    });
    Ok(())
}

/// Holds a run (`paused` or `cancelled`); a cancelled run stays cancelled.
pub async fn hold(conn: &mut Conn, h: HoldRow<'_>) -> Result<RunState, StoreError> {
    sqlx::query(
        "INSERT INTO runs (run_id, status, reason, approval_id, updated_at, campaign) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, reason = excluded.reason, \
         approval_id = excluded.approval_id, updated_at = excluded.updated_at, \
         campaign = COALESCE(excluded.campaign, runs.campaign) \
         WHERE runs.status <> $7",
    )
    .bind(h.run_id)
    .bind(name_of(&h.status)?)
    .bind(h.reason)
    .bind(h.approval_id)
    .bind(micros(h.now))
    .bind(h.campaign)
    .bind(name_of(&RunStatus::Cancelled)?)
    .execute(&mut *conn)
    .await?;
    get(conn, h.run_id).await
}

/// Lets a paused run ask again; `Conflict` when it is not paused.
pub async fn resume(
    conn: &mut Conn,
    run_id: &str,
    now: DateTime<Utc>,
) -> Result<RunState, StoreError> {
    let resumed = sqlx::query(
        "UPDATE runs SET status = $1, reason = $2, updated_at = $3 WHERE run_id = $4 AND status = $5",
    )
    .bind(name_of(&RunStatus::Running)?)
    .bind("resumed by the approver")
    .bind(micros(now))
    .bind(run_id)
    .bind(name_of(&RunStatus::Paused)?)
    .execute(&mut *conn)
    .await?;
    if resumed.rows_affected() == 1 {
        return get(conn, run_id).await;
    }
    let current = get(conn, run_id).await?;
    Err(StoreError::Conflict(match current.status {
        RunStatus::Cancelled => format!("run {run_id} was cancelled and cannot be resumed"),
        RunStatus::Running | RunStatus::Paused | RunStatus::AwaitingApproval => {
            format!("run {run_id} is not paused")
        }
    }))
}
