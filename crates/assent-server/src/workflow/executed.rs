//! An agent reports it ran an action it submitted: the audit's coverage check, once.

use assent_core::workflow::{executed_audit, Ran};
use assent_core::Decision;
use assent_protocol::{ExecutedRequest, SubmitStatus};
use chrono::{DateTime, Utc};

use super::intake::{Context, SubmitError};
use crate::records::{answer, command_line, new_id};
use crate::store::rows::{ActionRow, ExecutedBy};
use crate::store::{Executed, Store, StoreError};

/// `requester` reports it ran an action: the one it submitted under the report's key, else
/// (with the action in the report) one like it in the run, is marked executed and audited
/// once; an action nothing was submitted for is recorded as uncovered, unless the policy
/// allows it (what the policy allows needs no submission to be covered: `None`).
pub async fn reported(
    store: &dyn Store,
    context: &Context,
    requester: &str,
    report: &ExecutedRequest,
    now: DateTime<Utc>,
) -> Result<Option<Executed>, SubmitError> {
    let run_id = &report.run_id;
    let key = ExecutedBy::Key(&report.idempotency_key);
    let found = executed(store, requester, run_id, key, now).await?;
    let (None, Some(action)) = (&found, &report.action) else {
        return Ok(found);
    };
    if action.run_id != *run_id {
        return Err(SubmitError::Invalid(
            "the action's run_id is not the report's run_id".to_owned(),
        ));
    }
    let policy = context.policy.current();
    let eval = assent_core::evaluate(&policy, action, &context.env)
        .map_err(|err| SubmitError::Invalid(err.to_string()))?;
    let hash = ExecutedBy::ActionHash {
        hash: &eval.action_hash,
        key: &report.idempotency_key,
    };
    if let Some(found) = executed(store, requester, run_id, hash, now).await? {
        return Ok(Some(found));
    }
    if eval.decision.decision == Decision::Auto {
        return Ok(None);
    }
    let ran = Unsubmitted {
        requester,
        idempotency_key: &report.idempotency_key,
        request: action,
        eval: &eval,
    };
    Ok(Some(unsubmitted(store, ran, now).await?))
}

/// Marks the action of `requester` in `run_id` that `by` names as executed and audits it
/// once; `None` when there is no such action.
async fn executed(
    store: &dyn Store,
    requester: &str,
    run_id: &str,
    by: ExecutedBy<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Executed>, StoreError> {
    let mut tx = store.begin().await?;
    let Some(row) = tx.executed_candidate(requester, run_id, by).await? else {
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
    let adopt = match by {
        ExecutedBy::Key(_) => None,
        ExecutedBy::ActionHash { key, .. } => Some(key),
    };
    tx.mark_executed(&row.action_id, adopt, now).await?;
    let ran = Ran {
        action_id: &row.action_id,
        requester,
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

/// An action that ran although nothing was submitted for it (an agent that ran what the
/// policy asks about without asking: `codex exec` never sends PermissionRequest): recorded
/// under the report's key as never asked, already executed, and audited as uncovered, so the
/// coverage check sees it (and a repeated report finds it by its key, audited once).
async fn unsubmitted(
    store: &dyn Store,
    ran: Unsubmitted<'_>,
    now: DateTime<Utc>,
) -> Result<Executed, StoreError> {
    let Unsubmitted {
        requester,
        idempotency_key,
        request,
        eval,
    } = ran;
    let action_id = new_id();
    let response = answer(&action_id, eval, SubmitStatus::WouldAsk, None, None);
    let command_line = command_line(&request.action);
    let row = ActionRow {
        id: action_id.clone(),
        requester: requester.to_owned(),
        idempotency_key: Some(idempotency_key.to_owned()),
        body_hash: String::new(),
        run_id: request.run_id.clone(),
        task_id: request.task_id.clone(),
        action_hash: eval.action_hash.clone(),
        decision: eval.decision.decision,
        status: SubmitStatus::WouldAsk,
        approval_id: None,
        batch_position: None,
        grant_id: None,
        command_line: command_line.clone(),
        response,
        created_at: now,
        action_kind: request.action.kind,
        policy_version: eval.policy_version.clone(),
    };
    let ran = Ran {
        action_id: &action_id,
        requester,
        run_id: &request.run_id,
        task_id: &request.task_id,
        action_kind: request.action.kind,
        action_hash: &eval.action_hash,
        approval_id: None,
        grant_id: None,
        policy_version: &eval.policy_version,
        command_line: command_line.as_deref(),
    };
    let audit = executed_audit(new_id(), ran, false, now);
    let mut tx = store.begin().await?;
    tx.insert_actions(&[row]).await?;
    tx.mark_executed(&action_id, None, now).await?;
    tx.insert_audits(&[audit]).await?;
    tx.commit().await?;
    Ok(Executed {
        action_id,
        covered: false,
    })
}

/// What [`unsubmitted`] records: the report's key and the action it sent.
struct Unsubmitted<'a> {
    pub requester: &'a str,
    pub idempotency_key: &'a str,
    pub request: &'a assent_core::ActionRequest,
    pub eval: &'a assent_core::Evaluation,
}
