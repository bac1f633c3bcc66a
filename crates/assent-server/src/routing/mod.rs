//! Who a prompt asks, and when it asks everyone (the policy's `[routing]`): the answer to
//! "who is asked now for approval X" ([`asked_now`]), the hook every step calls with the
//! people it newly asks ([`notify_step`]), and the escalation the expiry sweeper drives
//! ([`escalate_due`], [`next_escalation`]). The steps themselves are recorded by the workflow
//! (`crate::workflow::ask_steps`): the first in the transaction that opens the prompt, so
//! `approval.requested` already says who it asks.

pub mod presence;

use assent_core::authority::{may_decide, Decidable};
use assent_core::{ApprovalStatus, Identity, IdentityKind};
use assent_protocol::Approval;
use chrono::{DateTime, Utc};

use crate::state::AppState;
use crate::store::StoreError;

/// Who is asked now for approval `approval_id`: everyone its steps asked so far (the first
/// step's people, then everyone the escalation added). Empty when there is no such approval
/// or it is settled; a prompt opened before the service recorded its steps asks everyone who
/// may decide it.
pub async fn asked_now(state: &AppState, approval_id: &str) -> Result<Vec<String>, StoreError> {
    let shared = &state.inner;
    let Some(record) = shared.store.approval(approval_id).await? else {
        return Ok(Vec::new());
    };
    let approval = record.approval;
    if approval.status != ApprovalStatus::Requested {
        return Ok(Vec::new());
    }
    if let Some(asked) = &approval.asked {
        return Ok(asked.everyone_asked().cloned().collect());
    }
    let requesters = [approval.requester.clone()];
    let decidable = Decidable {
        required_role: approval.facts.required_role,
        requesters: &requesters,
    };
    Ok(shared
        .store
        .identities(IdentityKind::Person)
        .await?
        .into_iter()
        .map(|info| Identity::person(info.name, info.roles))
        .filter(|person| may_decide(person, decidable).is_ok())
        .map(|person| person.name)
        .collect())
}

/// Called at each step of `approval` with the people it newly asks (the first step's, then
/// those the escalation added), once per step across replicas. The desks learn of the step
/// from the event the step wrote with it (`approval.requested` / `approval.updated`, carrying
/// `asked`) and notify only the people it asks; the people elsewhere get it by Web Push,
/// sent from here to exactly those people. A push that cannot start is logged; the step
/// stands.
pub async fn notify_step(state: &AppState, approval: &Approval, people: &[String]) {
    let step = approval.asked.as_ref().map_or(1, |asked| asked.step);
    tracing::info!(approval_id = %approval.approval_id, step, ?people, "prompt asks");
    let shared = &state.inner;
    let Some(sender) = &shared.push else {
        return;
    };
    let policy = shared.policy.current();
    let now = shared.clock.now();
    let pushed = crate::push::push_to(sender, &*shared.store, &policy, now, approval, people);
    if let Err(err) = pushed.await {
        tracing::warn!(%err, approval_id = %approval.approval_id, step, "cannot push a step");
    }
}

/// After a submission opened `approval` (as its commit left it): the first step's hook. A
/// failure is logged; the submission stands.
pub async fn opened(state: &AppState, approval: &Approval) {
    if let Some(asked) = &approval.asked {
        notify_step(state, approval, &asked.people).await;
    }
}

/// Escalates the prompts due at `now` under the policy in force (nothing when it sets no
/// `escalate_after`), then calls each one's hook.
pub async fn escalate_due(state: &AppState, now: DateTime<Utc>) -> Result<(), StoreError> {
    let shared = &state.inner;
    let Some(after) = shared.policy.current().routing.escalate_after else {
        return Ok(());
    };
    for escalated in shared.workflow.escalate_due(after, now).await? {
        notify_step(state, &escalated.approval, &escalated.newly).await;
    }
    Ok(())
}

/// When the next prompt escalates under the policy in force; `None` when none will.
pub async fn next_escalation(state: &AppState) -> Result<Option<DateTime<Utc>>, StoreError> {
    let shared = &state.inner;
    let Some(after) = shared.policy.current().routing.escalate_after() else {
        return Ok(None);
    };
    Ok(shared
        .store
        .oldest_unescalated()
        .await?
        .map(|opened| opened + after))
}
