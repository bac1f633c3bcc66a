//! An agent reports it ran an action it submitted: the audit's coverage check, once.

use assent_core::{ApprovalAuditEvent, AuditDecision};
use assent_protocol::SubmitStatus;
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::{Executed, Store, StoreError};

/// Marks the action submitted under (`requester`, `idempotency_key`) in `run_id` as executed
/// and audits it once; `None` when there is no such action.
pub async fn executed(
    store: &dyn Store,
    requester: &str,
    run_id: &str,
    idempotency_key: &str,
    now: DateTime<Utc>,
) -> Result<Option<Executed>, StoreError> {
    let mut tx = store.begin().await?;
    let Some(row) = tx
        .executed_candidate(requester, run_id, idempotency_key)
        .await?
    else {
        return Ok(None);
    };
    let approved = row.approval_status.is_some_and(|s| s.is_approved());
    let covered = row.status == SubmitStatus::Allowed || approved;
    let executed = Executed {
        action_id: row.action_id.clone(),
        covered,
    };
    if row.executed_at.is_some() {
        return Ok(Some(executed));
    }
    tx.mark_executed(&row.action_id, now).await?;
    let audit = ApprovalAuditEvent {
        event_id: new_id(),
        timestamp: now,
        evidence_artifact_id: row
            .approval_id
            .clone()
            .unwrap_or_else(|| row.action_id.clone()),
        approval_id: row.approval_id,
        action_id: Some(row.action_id),
        run_id: run_id.to_owned(),
        task_id: row.task_id,
        action_kind: row.action_kind,
        action_hash: row.action_hash,
        requested_scope: serde_json::Value::Null,
        decision: AuditDecision::Executed,
        approver: None,
        approver_role: None,
        reason: if covered {
            "the agent ran it, covered by an auto decision, a grant or an approval".to_owned()
        } else {
            "the agent ran it WITHOUT cover: it was never allowed".to_owned()
        },
        policy_version: row.policy_version,
        grant_id: row.grant_id,
        repo: None,
        granted_scope: None,
        grant_expires_at: None,
        subject: row.command_line,
    };
    tx.insert_audits(&[audit]).await?;
    tx.commit().await?;
    Ok(Some(executed))
}
