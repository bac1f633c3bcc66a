//! What the service records, in wire terms: answers and prompts, and the audit records the
//! core builds (`assent_core::workflow::records`) from an approval, member or grant.

use std::borrow::Cow;

use assent_core::workflow::{self, GrantFacts, MemberFacts, PromptFacts, Verdict};
use assent_core::{
    ApprovalAuditEvent, ApprovalGrant, ApprovalType, AuditDecision, RiskLevel, ScopeKind,
};
use assent_protocol::{
    Approval, ApprovalMember, Grant, Recommendation, SubmitResponse, SubmitStatus,
};
use chrono::{DateTime, Utc};

use crate::store::rows::PromptDetail;
use crate::store::{Actor, ApprovalRecord, Submission};

/// A submission as it is recorded: the request, and the evaluation it is recorded under —
/// the core's, borrowed, or the one a run's hold or a PR's review gate put in its place (only
/// then a copy of the evaluation, never of the whole submission).
pub struct Recording<'a> {
    pub s: &'a Submission,
    pub eval: Cow<'a, assent_core::Evaluation>,
}

impl<'a> Recording<'a> {
    /// `s` under the core's evaluation.
    pub fn of(s: &'a Submission) -> Recording<'a> {
        Recording {
            s,
            eval: Cow::Borrowed(&s.eval),
        }
    }
}

/// The answer to a submission.
pub fn response(
    r: &Recording<'_>,
    status: SubmitStatus,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> SubmitResponse {
    answer(&r.s.action_id, &r.eval, status, approval_id, grant_id)
}

/// The answer for action `action_id` evaluated as `eval`.
pub fn answer(
    action_id: &str,
    eval: &assent_core::Evaluation,
    status: SubmitStatus,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> SubmitResponse {
    SubmitResponse {
        action_id: action_id.to_owned(),
        action_hash: eval.action_hash.clone(),
        facts: eval.decision.clone(),
        status,
        approval_id,
        grant_id,
    }
}

/// The action's command line as the batch's members and the audit show it: masked like the
/// evidence.
pub fn command_line(action: &assent_core::Action) -> Option<String> {
    // Quoted as the shell reads it: `sh -c 'ls; rm x'` joined bare reads as two commands.
    assent_core::shown_line(action).map(|mut line| {
        assent_core::mask::mask_in_place(&mut line);
        line
    })
}

/// The audit record of a submission's outcome (see [`workflow::submission_audit`]).
pub fn submission_audit(
    r: &Recording<'_>,
    decision: AuditDecision,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> ApprovalAuditEvent {
    workflow::submission_audit(new_id(), asked(r), decision, approval_id, grant_id)
}

/// The audit record of grant `grant` answering a submission (see
/// [`workflow::grant_use_audit`]).
pub fn grant_use_audit(r: &Recording<'_>, grant: &ApprovalGrant) -> ApprovalAuditEvent {
    workflow::grant_use_audit(new_id(), asked(r), grant)
}

/// A submission as the core's records name it.
pub fn asked<'a>(r: &'a Recording<'_>) -> workflow::Asked<'a> {
    workflow::Asked {
        action_id: &r.s.action_id,
        requester: &r.s.requester,
        request: &r.s.request,
        eval: &r.eval,
        now: r.s.now,
    }
}

/// A prompt as the core's records name it.
pub fn prompt_facts<'a>(approval: &'a Approval, policy_version: &'a str) -> PromptFacts<'a> {
    PromptFacts {
        approval_id: &approval.approval_id,
        requester: &approval.requester,
        run_id: &approval.run_id,
        action_kind: approval.action_kind,
        offered_scopes: &approval.facts.offered_scopes,
        repo: approval.repo.as_deref(),
        evidence_summary: &approval.evidence.summary,
        policy_version,
    }
}

/// A member of a prompt as the core's records name it.
pub fn member_facts(member: &ApprovalMember) -> MemberFacts<'_> {
    MemberFacts {
        action_id: &member.action_id,
        task_id: &member.task_id,
        action_hash: &member.action_hash,
        command_line: member.command_line.as_deref(),
    }
}

/// The audit record of a settled approval, one per member.
pub fn settlement_audit(
    approval: &Approval,
    member: &ApprovalMember,
    decision: AuditDecision,
    granted: Option<&ApprovalGrant>,
    reason: &str,
    policy_version: &str,
) -> ApprovalAuditEvent {
    let verdict = Verdict {
        decision,
        at: approval.updated_at,
        approver: approval.decided_by.as_deref(),
        approver_role: approval.decided_role,
        reason,
        grant_id: approval.grant_id.as_deref(),
        granted,
    };
    workflow::settlement_audit(
        new_id(),
        prompt_facts(approval, policy_version),
        member_facts(member),
        verdict,
    )
}

/// The audit record of an approver resuming a run held by `pausing`, the prompt whose
/// unanswered timeout paused it (its action is what the record names).
pub fn resume_audit(
    run_id: &str,
    pausing: Option<&ApprovalRecord>,
    by: Actor<'_>,
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let pausing = pausing.map(|record| {
        (
            prompt_facts(&record.approval, &record.policy_version),
            record.approval.members.first().map(member_facts),
        )
    });
    workflow::resume_audit(new_id(), run_id, pausing, (by.name, by.role), reason, now)
}

/// The audit record of something that happened to a grant (revoked, expired).
pub fn grant_audit(
    wire: &Grant,
    decision: AuditDecision,
    by: Actor<'_>,
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let facts = GrantFacts {
        grant: &wire.grant,
        summary: &wire.summary,
    };
    workflow::grant_audit(new_id(), facts, decision, (by.name, by.role), reason, now)
}

/// A new record id.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The seed's "Needs repo maintainer review before PR creation" for a diff or PR approval.
fn review_recommendation(eval: &assent_core::Evaluation) -> Option<Recommendation> {
    let d = &eval.decision;
    let who = d
        .required_role
        .map(|r| assent_core::role_name(r).replace('_', " "))?;
    let text = match eval.approval_type {
        ApprovalType::Diff => format!(
            "Needs {who} review before PR creation: {}",
            d.reasons.join("; ")
        ),
        ApprovalType::Pr => format!("Needs {who} approval to publish"),
        _ => return None,
    };
    Some(Recommendation {
        decision: if d.risk >= RiskLevel::Critical {
            "deny"
        } else {
            "approve"
        }
        .to_owned(),
        scope: Some(ScopeKind::Once),
        text,
    })
}

/// The parts of the prompt `r` opens that are fixed when it opens.
pub fn prompt_detail(r: &Recording<'_>) -> PromptDetail {
    let (s, eval) = (r.s, &*r.eval);
    PromptDetail {
        requested_by: s.request.requested_by,
        action_kind: s.request.action.kind,
        repo: s.request.context.repo.clone(),
        facts: eval.decision.clone(),
        recommendation: recommend(eval),
        evidence: eval.evidence.clone(),
        reason: s.request.reason.clone(),
        fallback_on_timeout: s.fallback_on_timeout,
        policy_version: eval.policy_version.clone(),
        required_approvals: s.required_approvals,
        quick_decisions: eval.quick_decisions.clone(),
    }
}

/// What the policy recommends: deny high risk, otherwise the narrowest scope that saves prompts;
/// a diff or PR approval says whose review it needs.
fn recommend(eval: &assent_core::Evaluation) -> Recommendation {
    let d = &eval.decision;
    // A risk the packet shows (a force push to the default branch, a workflow handing out
    // secrets) decides the advice before whose review it needs.
    if let Some(advice) = assent_core::advice(&eval.evidence) {
        return Recommendation {
            decision: if advice.deny { "deny" } else { "approve" }.to_owned(),
            scope: (!advice.deny).then_some(ScopeKind::Once),
            text: advice.text,
        };
    }
    if let Some(review) = review_recommendation(eval) {
        return review;
    }
    if d.risk >= RiskLevel::High {
        return Recommendation {
            decision: "deny".to_owned(),
            scope: None,
            text: format!("Deny unless you expected this: {}", d.reasons.join("; ")),
        };
    }
    let scope = if d.profile.is_some() && d.offered_scopes.contains(&ScopeKind::Run) {
        Some(ScopeKind::Run)
    } else {
        d.offered_scopes.first().copied()
    };
    let text = match (scope, &d.profile) {
        (Some(ScopeKind::Run), Some(profile)) => format!("Approve {profile} for this run"),
        _ => "Approve this action once".to_owned(),
    };
    Recommendation {
        decision: "approve".to_owned(),
        scope,
        text,
    }
}
