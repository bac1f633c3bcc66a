//! What the service records, in wire terms: answers and prompts. The audit records are the
//! core's (`assent_core::workflow::records`), built from the facts a submission
//! ([`Recording::asked`]), a prompt, member or grant (`Approval::prompt_facts`,
//! `ApprovalMember::facts`, `Grant::facts`) name; the service adds only the record's id.

use std::borrow::Cow;

use assent_core::workflow;
use assent_core::{ApprovalType, RiskLevel, ScopeKind};
use assent_protocol::{Recommendation, SubmitResponse, SubmitStatus};

use crate::store::rows::PromptDetail;
use crate::store::Submission;

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

    /// The submission as the core's audit records name it
    /// ([`workflow::submission_audit`], [`workflow::grant_use_audit`]).
    pub fn asked(&self) -> workflow::Asked<'_> {
        workflow::Asked {
            action_id: &self.s.action_id,
            requester: &self.s.requester,
            request: &self.s.request,
            eval: &self.eval,
            now: self.s.now,
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
    let text = match eval.approval_type() {
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
