//! Who a prompt asks (the policy's `[routing]`; the rules are `assent_core::policy::routing`):
//! its first step, in the transaction that opens it, and its escalation, once it is still
//! open `escalate_after` after it opened. A routed prompt's steps are audited (`asked`,
//! `escalated`, naming the people) and each change is announced as `approval.updated`.

use assent_core::authority::{may_decide, Decidable};
use assent_core::policy::routing::{self, AskedBasis, Span};
use assent_core::workflow::Verdict;
use assent_core::{AuditDecision, Identity, Role};
use assent_protocol::{Approval, AskedSteps, Event};
use chrono::{DateTime, TimeDelta, Utc};

use crate::records::new_id;
use crate::store::{Store, StoreError, Tx};

/// A web desk session used this recently makes its person present.
pub const SESSION_RECENT: TimeDelta = TimeDelta::minutes(10);
/// A desk stream's presence row counts this long after it was last touched (it is touched
/// every [`crate::routing::presence::TOUCH_EVERY`] while the stream is open, and removed when
/// it closes): only a crashed replica's rows go stale.
pub const STREAM_STALE: TimeDelta = TimeDelta::minutes(2);

/// Everyone who may decide a prompt needing `role` that `requester` opened, by name.
pub async fn deciders(
    tx: &mut dyn Tx,
    role: Option<Role>,
    requester: &str,
) -> Result<Vec<String>, StoreError> {
    Ok(deciders_among(tx.people().await?, role, requester))
}

/// Those of `people` who may decide a prompt needing `role` that `requester` opened.
fn deciders_among(people: Vec<Identity>, role: Option<Role>, requester: &str) -> Vec<String> {
    let requesters = [requester.to_owned()];
    let decidable = Decidable {
        required_role: role,
        requesters: &requesters,
    };
    people
        .into_iter()
        .filter(|person| may_decide(person, decidable).is_ok())
        .map(|person| person.name)
        .collect()
}

/// The first step of a prompt needing `role` that `requester` opens at `now`: those of
/// `people` present who may decide it (everyone who may when none is, or when it is not
/// `routed`).
pub async fn first_step(
    tx: &mut dyn Tx,
    people: Vec<Identity>,
    role: Option<Role>,
    requester: &str,
    routed: bool,
    now: DateTime<Utc>,
) -> Result<AskedSteps, StoreError> {
    let deciders = deciders_among(people, role, requester);
    let present = if routed {
        tx.present(now - STREAM_STALE, now - SESSION_RECENT).await?
    } else {
        Default::default()
    };
    let (people, basis) = routing::first_step(&deciders, &present, routed);
    Ok(AskedSteps {
        step: 1,
        people,
        basis,
        at: now,
        escalated_at: None,
        escalated_to: Vec::new(),
    })
}

/// A prompt that escalated, and who it newly asked.
#[derive(Debug, Clone)]
pub struct Escalated {
    pub approval: Approval,
    pub newly: Vec<String>,
}

/// Escalates every pending prompt opened `after` or longer before `now` that has not
/// escalated, in one transaction; does nothing (not even a write transaction) when none is
/// due. Each escalates once, whichever sweep or replica gets there first.
pub async fn escalate_due(
    store: &dyn Store,
    after: Span,
    now: DateTime<Utc>,
) -> Result<Vec<Escalated>, StoreError> {
    let opened_by = now - TimeDelta::seconds(after.0);
    if store
        .oldest_unescalated()
        .await?
        .is_none_or(|at| at > opened_by)
    {
        return Ok(Vec::new());
    }
    let mut tx = store.begin().await?;
    let mut escalated = Vec::new();
    for approval_id in tx.escalation_due(opened_by).await? {
        if let Some(one) = escalate(tx.as_mut(), &approval_id, after, now).await? {
            escalated.push(one);
        }
    }
    tx.commit().await?;
    Ok(escalated)
}

/// Escalates one prompt; `None` when it is no longer pending or escalated meanwhile.
async fn escalate(
    tx: &mut dyn Tx,
    approval_id: &str,
    after: Span,
    now: DateTime<Utc>,
) -> Result<Option<Escalated>, StoreError> {
    let Some(record) = tx.approval(approval_id).await? else {
        return Ok(None);
    };
    let mut approval = record.approval;
    let deciders = deciders(tx, approval.facts.required_role, &approval.requester).await?;
    // A prompt opened before the service recorded its steps asked nobody in particular.
    let mut asked = approval.asked.clone().unwrap_or(AskedSteps {
        step: 1,
        people: Vec::new(),
        basis: AskedBasis::Everyone,
        at: approval.created_at,
        escalated_at: None,
        escalated_to: Vec::new(),
    });
    let newly = routing::newly_asked(&deciders, &asked.people);
    asked.step = 2;
    asked.escalated_at = Some(now);
    asked.escalated_to = newly.clone();
    if !tx.record_asked(approval_id, &asked).await? {
        return Ok(None);
    }
    approval.asked = Some(asked);
    if let Some(member) = approval.members.first() {
        let reason = routing::escalation_reason(after, approval.facts.required_role, &newly);
        let verdict = Verdict {
            decision: AuditDecision::Escalated,
            at: now,
            approver: None,
            approver_role: None,
            reason: &reason,
            grant_id: None,
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
    Ok(Some(Escalated { approval, newly }))
}
