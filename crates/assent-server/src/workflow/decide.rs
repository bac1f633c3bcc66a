//! A person decides a prompt: a deny, or the approval that meets its threshold, settles it
//! and every member of its batch (creating the grant core's `issue_grant` gives); an approval
//! short of the threshold is recorded as a vote and the prompt stays pending.

use assent_core::workflow::{approve_event, grant_summary, issue_grant, GrantChoice, GrantOrder};
use assent_core::{
    may_decide, tally, ApprovalEvent, ApprovalStatus, ApprovalType, Decidable, Environment,
    Identity, Policy, Role, ScopeKind, Tally, Vote,
};
use assent_protocol::{DecisionRequest, DecisionResponse, Resolution};
use chrono::{DateTime, Utc};

use super::decide_error::DecideError;
use super::{settle, vote};
use crate::records::new_id;
use crate::store::{ApprovalRecord, NewGrant, Settlement, Store};

/// What a decision is taken against, read by the caller.
#[derive(Debug, Clone, Copy)]
pub struct Ground<'a> {
    /// Today's policy: the first request is evaluated again, lifetimes are bounded by it.
    pub policy: &'a Policy,
    pub env: &'a Environment,
    /// Whether a gate waits on the prompt right now (it runs an approved "once" at once).
    pub gate_waiting: bool,
    pub now: DateTime<Utc>,
}

/// `who` decides the prompt `record` with `request`.
pub async fn decide(
    store: &dyn Store,
    record: &ApprovalRecord,
    who: &Identity,
    request: DecisionRequest,
    ground: Ground<'_>,
) -> Result<DecisionResponse, DecideError> {
    if record.approval.status != ApprovalStatus::Requested {
        return Err(DecideError::Conflict(format!(
            "the approval is already settled ({})",
            name(record.approval.status)
        )));
    }
    let requesters = [record.requester.clone()];
    let decidable = Decidable {
        required_role: record.approval.facts.required_role,
        requesters: &requesters,
    };
    let role = may_decide(who, decidable)
        .map_err(|refusal| DecideError::Forbidden(refusal.to_string()))?;
    let by = Decider {
        name: &who.name,
        role: Some(role),
    };
    let settlement = match request {
        DecisionRequest::Deny { reason } => {
            let verdict = (ApprovalEvent::Deny, reason.into());
            settlement(record, by, verdict, None, Vec::new(), ground.now)?
        }
        DecisionRequest::Approve {
            scope,
            expires_in_seconds,
            max_uses,
            reason,
            path_patterns,
        } => {
            let choice = GrantChoice {
                scope,
                expires_in_seconds,
                max_uses,
                path_patterns,
            };
            match approve(record, by, &choice, reason, ground)? {
                Approved::Short(vote) => {
                    let id = &record.approval.approval_id;
                    let approval = vote::vote(store, id, &vote, ground.now).await?;
                    return Ok(DecisionResponse {
                        approval,
                        grant: None,
                    });
                }
                Approved::Met(settlement) => *settlement,
            }
        }
    };
    let publishes = record.approval.approval_type == ApprovalType::Pr
        && settlement.resolution == Resolution::Approved;
    let settled = if publishes {
        super::publish::settle_checked(store, record, &settlement).await?
    } else {
        settle::settle(store, &settlement).await?
    };
    Ok(DecisionResponse {
        approval: settled.approval,
        grant: settled.grant,
    })
}

/// The model reviewer (`actor`: `reviewer:<model>`) approves the prompt `record` alone: only
/// when `ground`'s policy finds it eligible (`assent_core::reviewer::eligibility` of `eval`,
/// that policy's evaluation of the first request, up to `up_to`) and one approval settles it.
/// The grant is the policy's recommended scope capped at the run (`run` when offered, else
/// `once`), with that scope's bounded expiry, bound to the action like a person's. The call's
/// `reviewed` record is written in the settlement's transaction (one commit). `relaxed`: that
/// commit is not waited on to reach the disk ([`Store::begin_relaxed`], as the policy's own
/// decisions): power lost in that moment loses the approval, its grant and its `reviewed`
/// record together, and the prompt is pending again for a person.
pub async fn reviewer_approves(
    store: &dyn Store,
    record: &ApprovalRecord,
    by: ByReviewer<'_>,
    eval: &assent_core::Evaluation,
    ground: Ground<'_>,
    relaxed: bool,
) -> Result<DecisionResponse, DecideError> {
    let ByReviewer {
        actor,
        up_to,
        audit,
    } = by;
    if record.approval.status != ApprovalStatus::Requested {
        return Err(DecideError::Conflict(format!(
            "the approval is already settled ({})",
            name(record.approval.status)
        )));
    }
    assent_core::reviewer::eligibility(eval, ground.policy, up_to)
        .map_err(|not| DecideError::Forbidden(format!("the reviewer may not: {}", not.reason)))?;
    if record.approval.required_approvals > 1 {
        return Err(DecideError::Forbidden(
            "the reviewer may not: the prompt needs more than one person".to_owned(),
        ));
    }
    let offered = &record.approval.facts.offered_scopes;
    let scope = if offered.contains(&ScopeKind::Run) {
        ScopeKind::Run
    } else if offered.contains(&ScopeKind::Once) {
        ScopeKind::Once
    } else {
        return Err(DecideError::Forbidden(
            "the reviewer may not: the prompt offers neither once nor this run".to_owned(),
        ));
    };
    let bound =
        assent_core::lifetime_bound(ground.policy, &record.first_request, scope).num_seconds();
    let expires_in_seconds = record
        .approval
        .quick_decisions
        .iter()
        .find(|q| q.scope == scope)
        .map_or(bound, |q| q.expires_in_seconds.min(bound));
    let choice = GrantChoice {
        scope,
        expires_in_seconds,
        max_uses: None,
        path_patterns: None,
    };
    let by = Decider {
        name: actor,
        role: None,
    };
    let grant = grant_for(record, by, &choice, eval, ground)?;
    let verdict = (approve_event(scope), Some(format!("approved by {actor}")));
    let settlement = settlement(record, by, verdict, Some(grant), Vec::new(), ground.now)?;
    let mut tx = if relaxed {
        store.begin_relaxed().await?
    } else {
        store.begin().await?
    };
    // The call's `reviewed` record, then the approval's, in one insert.
    let settled = settle::settle_in(tx.as_mut(), &settlement, std::slice::from_ref(audit)).await?;
    tx.commit().await?;
    Ok(DecisionResponse {
        approval: settled.approval,
        grant: settled.grant,
    })
}

/// The model reviewer deciding: `reviewer:<model>`, how far it may approve alone, and its
/// call's `reviewed` audit record.
#[derive(Debug, Clone, Copy)]
pub struct ByReviewer<'a> {
    pub actor: &'a str,
    pub up_to: assent_core::RiskLevel,
    pub audit: &'a assent_core::ApprovalAuditEvent,
}

/// What one person's approval comes to.
enum Approved {
    /// More people must approve: their vote is recorded.
    Short(Vote),
    /// The threshold is met: the prompt settles with the grant.
    Met(Box<Settlement>),
}

/// `by` approves with `choice`: the grant it would issue is checked first, then the votes
/// are tallied against the prompt's threshold. A short vote needs the whole check too (the
/// request evaluated under today's policy, the grant built): a vote is refused exactly when
/// the approval that met the threshold would be, and whether today's policy blocks the
/// action, or the scope's constraints still hold, only that evaluation says
/// (`people::a_short_vote_is_refused_when_its_grant_could_not_be_issued`).
fn approve(
    record: &ApprovalRecord,
    by: Decider<'_>,
    choice: &GrantChoice,
    reason: Option<String>,
    ground: Ground<'_>,
) -> Result<Approved, DecideError> {
    let eval = evaluate_again(record, ground)?;
    let grant = grant_for(record, by, choice, &eval, ground)?;
    let vote = Vote {
        by: by.name.to_owned(),
        role: by.role.unwrap_or(Role::TaskAuthor),
        at: ground.now,
    };
    let so_far: Vec<Vote> = record
        .approval
        .approvals
        .iter()
        .cloned()
        .map(Into::into)
        .collect();
    match tally(&so_far, vote.clone(), record.approval.required_approvals) {
        Tally::Short { .. } => Ok(Approved::Short(vote)),
        Tally::Met(votes) => {
            let verdict = (approve_event(choice.scope), reason);
            let settlement = settlement(record, by, verdict, Some(grant), votes, ground.now)?;
            Ok(Approved::Met(Box::new(settlement)))
        }
    }
}

/// Who decides (a person, or `reviewer:<model>`) and the role a person decides in.
#[derive(Debug, Clone, Copy)]
struct Decider<'a> {
    name: &'a str,
    role: Option<Role>,
}

fn settlement(
    record: &ApprovalRecord,
    by: Decider<'_>,
    (event, reason): (ApprovalEvent, Option<String>),
    grant: Option<NewGrant>,
    votes: Vec<Vote>,
    now: DateTime<Utc>,
) -> Result<Settlement, DecideError> {
    let status = record
        .approval
        .status
        .apply(event)
        .map_err(|err| DecideError::Conflict(err.to_string()))?;
    let resolution = if event == ApprovalEvent::Deny {
        Resolution::Denied
    } else {
        Resolution::Approved
    };
    Ok(Settlement {
        approval_id: record.approval.approval_id.clone(),
        status,
        resolution,
        decided_by: by.name.to_owned(),
        decided_role: by.role,
        votes,
        reason,
        grant,
        now,
    })
}

/// The grant an approval of `choice` creates: the core's rule (`issue_grant`) over the
/// prompt, today's policy and evaluation of its first request, and the gates waiting now.
fn grant_for(
    record: &ApprovalRecord,
    by: Decider<'_>,
    choice: &GrantChoice,
    eval: &assent_core::Evaluation,
    ground: Ground<'_>,
) -> Result<NewGrant, DecideError> {
    let approval = &record.approval;
    let request = &record.first_request;
    let grant_id = new_id();
    let order = GrantOrder {
        grant_id: &grant_id,
        approval_id: &approval.approval_id,
        run_id: &approval.run_id,
        action_kind: approval.action_kind,
        offered_scopes: &approval.facts.offered_scopes,
        request,
        eval,
        max_lifetime: assent_core::lifetime_bound(ground.policy, request, choice.scope),
        created_by: by.name,
        requester: &record.requester,
        gate_waiting: ground.gate_waiting,
        now: ground.now,
    };
    let grant = issue_grant(order, choice).map_err(|err| {
        if err.is_conflict() {
            DecideError::Conflict(err.to_string())
        } else {
            DecideError::BadRequest(err.to_string())
        }
    })?;
    let summary = grant_summary(
        &grant,
        approval.facts.profile.as_deref(),
        &approval.evidence.summary,
    );
    Ok(NewGrant {
        grant,
        summary,
        created_by_role: by.role,
    })
}

/// The prompt's first request evaluated under today's policy (it may have changed since the
/// prompt opened).
fn evaluate_again(
    record: &ApprovalRecord,
    ground: Ground<'_>,
) -> Result<assent_core::Evaluation, DecideError> {
    assent_core::evaluate(ground.policy, &record.first_request, ground.env)
        .map_err(|err| DecideError::Conflict(format!("the request no longer evaluates: {err}")))
}

/// The serde name of a status (`approved_once`, …).
fn name(status: ApprovalStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
