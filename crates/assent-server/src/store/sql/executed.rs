//! Rows of an executed report in both stores: the action submitted under a key, and its mark.

use assent_core::ApprovalStatus;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::Conn;
use super::codec::{micros, opt_from_micros, parse_name};
use crate::store::rows::{ExecutedBy, ExecutedRow};
use crate::store::StoreError;

/// The action `requester` submitted in `run_id` that `by` names, with the status of the
/// approval it joined.
pub async fn candidate(
    conn: &mut Conn,
    requester: &str,
    run_id: &str,
    by: ExecutedBy<'_>,
) -> Result<Option<ExecutedRow>, StoreError> {
    let (filter, value) = match by {
        ExecutedBy::Key(key) => ("a.idempotency_key = $3", key),
        ExecutedBy::ActionHash { hash, .. } => (
            "a.action_hash = $3 AND a.executed_at IS NULL \
             ORDER BY a.created_at DESC, a.id DESC LIMIT 1",
            hash,
        ),
    };
    let sql = format!(
        "SELECT a.id, a.task_id, a.action_hash, a.status, a.approval_id, a.grant_id, \
         a.action_kind, a.policy_version, a.executed_at, a.command_line, \
         r.status AS approval_status \
         FROM actions a LEFT JOIN approval_requests r ON r.id = a.approval_id \
         WHERE a.requester = $1 AND a.run_id = $2 AND {filter}"
    );
    let row = sqlx::query(&sql)
        .bind(requester)
        .bind(run_id)
        .bind(value)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let approval_status: Option<String> = row.try_get("approval_status")?;
    Ok(Some(ExecutedRow {
        action_id: row.try_get("id")?,
        task_id: row.try_get("task_id")?,
        action_hash: row.try_get("action_hash")?,
        status: parse_name(&row.try_get::<String, _>("status")?)?,
        approval_id: row.try_get("approval_id")?,
        approval_status: approval_status
            .as_deref()
            .map(parse_name::<ApprovalStatus>)
            .transpose()?,
        grant_id: row.try_get("grant_id")?,
        action_kind: parse_name(&row.try_get::<String, _>("action_kind")?)?,
        policy_version: row.try_get("policy_version")?,
        command_line: row.try_get("command_line")?,
        executed_at: opt_from_micros(row.try_get("executed_at")?)?,
    }))
}

pub async fn mark(
    conn: &mut Conn,
    action_id: &str,
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE actions SET executed_at = $1, \
         idempotency_key = COALESCE(idempotency_key, $2) WHERE id = $3",
    )
    .bind(micros(now))
    .bind(key)
    .bind(action_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks an action executed unless it already is; false when it was.
pub async fn claim(
    conn: &mut Conn,
    action_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let done =
        sqlx::query("UPDATE actions SET executed_at = $1 WHERE id = $2 AND executed_at IS NULL")
            .bind(micros(now))
            .bind(action_id)
            .execute(conn)
            .await?;
    Ok(done.rows_affected() == 1)
}
