//! A person undoes a remembered denial (the desk's Undo): equivalent requests ask again.

use assent_core::workflow::Verdict;
use assent_core::AuditDecision;
use assent_protocol::{Approval, Event};
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::{Actor, Store, StoreError};

/// Forgets a remembered denial, audited and announced; `None` when there is no such
/// approval, `Conflict` when it is not a remembered denial.
pub async fn forget(
    store: &dyn Store,
    approval_id: &str,
    by: Actor<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Approval>, StoreError> {
    let mut tx = store.begin().await?;
    let Some(record) = tx.approval(approval_id).await? else {
        return Ok(None);
    };
    if !tx.forget_denial(approval_id, now).await? {
        return Err(StoreError::Conflict(
            "only a remembered denial can be undone".to_owned(),
        ));
    }
    let approval = record.approval;
    if let Some(member) = approval.members.first() {
        let reason = format!(
            "{} undid the denial: equivalent requests ask again",
            by.name
        );
        let verdict = Verdict {
            decision: AuditDecision::Forgotten,
            at: now,
            approver: Some(by.name),
            approver_role: by.role,
            reason: &reason,
            grant_id: approval.grant_id.as_deref(),
            granted: None,
        };
        let audit = assent_core::workflow::settlement_audit(
            new_id(),
            approval.prompt_facts(&record.policy_version),
            member.facts(),
            verdict,
        );
        tx.insert_audits(&[audit]).await?;
    }
    let event = Event::ApprovalUpdated {
        approval: approval.clone(),
    };
    tx.insert_event(now, &event).await?;
    tx.commit().await?;
    Ok(Some(approval))
}
