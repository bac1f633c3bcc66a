//! Recording that an agent ran an action it submitted: the audit's coverage check.

use assent_core::{ApprovalAuditEvent, ApprovalStatus, AuditDecision};
use assent_protocol::SubmitStatus;
use chrono::{DateTime, Utc};
use sqlx::{Row, SqliteConnection};

use super::sqlite_rows::{insert_audit, micros, parse_name};
use super::{Executed, StoreError};

/// Marks the action submitted under (`requester`, `idempotency_key`) in `run_id` as executed
/// and audits it once; `None` when there is no such action.
pub async fn record(
    conn: &mut SqliteConnection,
    requester: &str,
    run_id: &str,
    idempotency_key: &str,
    now: DateTime<Utc>,
) -> Result<Option<Executed>, StoreError> {
    let row = sqlx::query(
        "SELECT a.id, a.task_id, a.action_hash, a.status, a.approval_id, a.grant_id, \
         a.action_kind, a.policy_version, a.executed_at, a.command_line, \
         r.status AS approval_status \
         FROM actions a LEFT JOIN approval_requests r ON r.id = a.approval_id \
         WHERE a.requester = ? AND a.idempotency_key = ? AND a.run_id = ?",
    )
    .bind(requester)
    .bind(idempotency_key)
    .bind(run_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let action_id: String = row.try_get("id")?;
    let status: SubmitStatus = parse_name(&row.try_get::<String, _>("status")?)?;
    let approval_status: Option<String> = row.try_get("approval_status")?;
    let approved = match approval_status {
        Some(name) => parse_name::<ApprovalStatus>(&name)?.is_approved(),
        None => false,
    };
    let covered = status == SubmitStatus::Allowed || approved;
    let executed = Executed {
        action_id: action_id.clone(),
        covered,
    };
    if row.try_get::<Option<i64>, _>("executed_at")?.is_some() {
        return Ok(Some(executed));
    }
    sqlx::query("UPDATE actions SET executed_at = ? WHERE id = ?")
        .bind(micros(now))
        .bind(&action_id)
        .execute(&mut *conn)
        .await?;
    let approval_id: Option<String> = row.try_get("approval_id")?;
    let audit = ApprovalAuditEvent {
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now,
        evidence_artifact_id: approval_id.clone().unwrap_or_else(|| action_id.clone()),
        approval_id,
        action_id: Some(action_id),
        run_id: run_id.to_owned(),
        task_id: row.try_get("task_id")?,
        action_kind: parse_name(&row.try_get::<String, _>("action_kind")?)?,
        action_hash: row.try_get("action_hash")?,
        requested_scope: serde_json::Value::Null,
        decision: AuditDecision::Executed,
        approver: None,
        approver_role: None,
        reason: if covered {
            "the agent ran it, covered by an auto decision, a grant or an approval".to_owned()
        } else {
            "the agent ran it WITHOUT cover: it was never allowed".to_owned()
        },
        policy_version: row.try_get("policy_version")?,
        grant_id: row.try_get("grant_id")?,
        repo: None,
        granted_scope: None,
        grant_expires_at: None,
        subject: row.try_get("command_line")?,
    };
    insert_audit(conn, &audit).await?;
    Ok(Some(executed))
}
