//! An agent reports it ran an action it submitted: the audit's coverage check, once.

use assent_core::workflow::{executed_audit, Ran};
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
    let ran = Ran {
        action_id: &row.action_id,
        run_id,
        task_id: &row.task_id,
        action_kind: row.action_kind,
        action_hash: &row.action_hash,
        approval_id: row.approval_id.as_deref(),
        grant_id: row.grant_id.as_deref(),
        policy_version: &row.policy_version,
        command_line: row.command_line.as_deref(),
    };
    let audit = executed_audit(new_id(), ran, covered, now);
    tx.insert_audits(&[audit]).await?;
    tx.commit().await?;
    Ok(Some(executed))
}
