//! Pure builders of what the store records: answers, audit events, prompts, grant summaries.

use assent_core::{
    ApprovalAuditEvent, ApprovalGrant, AuditDecision, Decision, RiskLevel, ScopeKind,
};
use assent_protocol::{
    Approval, ApprovalMember, Grant, Recommendation, SubmitResponse, SubmitStatus,
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::store::{Actor, ApprovalRecord, Submission};

/// The answer to a submission.
pub fn response(
    s: &Submission,
    status: SubmitStatus,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> SubmitResponse {
    let d = &s.eval.decision;
    SubmitResponse {
        action_id: s.action_id.clone(),
        action_hash: s.eval.action_hash.clone(),
        decision: d.decision,
        risk: d.risk,
        reasons: d.reasons.clone(),
        rule: d.rule.clone(),
        status,
        approval_id,
        grant_id,
        required_role: d.required_role,
        profile: d.profile.clone(),
    }
}

/// The audit record of a submission's outcome.
pub fn submission_audit(
    s: &Submission,
    decision: AuditDecision,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: s.now,
        evidence_artifact_id: approval_id.clone().unwrap_or_else(|| s.action_id.clone()),
        approval_id,
        action_id: Some(s.action_id.clone()),
        run_id: s.request.run_id.clone(),
        task_id: s.request.task_id.clone(),
        action_kind: s.request.action.kind,
        action_hash: s.eval.action_hash.clone(),
        requested_scope: serde_json::json!(s.eval.decision.offered_scopes),
        decision,
        approver: None,
        approver_role: None,
        reason: s.eval.decision.reasons.join("; "),
        policy_version: s.eval.policy_version.clone(),
        grant_id,
        repo: s.request.context.repo.clone(),
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(s.eval.evidence.summary.clone()),
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
    ApprovalAuditEvent {
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: approval.updated_at,
        approval_id: Some(approval.approval_id.clone()),
        action_id: Some(member.action_id.clone()),
        run_id: approval.run_id.clone(),
        task_id: member.task_id.clone(),
        action_kind: approval.action_kind,
        action_hash: member.action_hash.clone(),
        requested_scope: serde_json::json!(approval.offered_scopes),
        decision,
        approver: approval.decided_by.clone(),
        approver_role: approval.decided_role,
        reason: reason.to_owned(),
        policy_version: policy_version.to_owned(),
        evidence_artifact_id: approval.approval_id.clone(),
        grant_id: approval.grant_id.clone(),
        repo: approval.repo.clone(),
        granted_scope: granted.map(|g| g.scope_kind),
        grant_expires_at: granted.map(|g| g.expires_at),
        subject: Some(subject(approval, member)),
    }
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
    let approval = pausing.map(|record| &record.approval);
    let member = approval.and_then(|approval| approval.members.first());
    ApprovalAuditEvent {
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now,
        approval_id: approval.map(|a| a.approval_id.clone()),
        action_id: member.map(|m| m.action_id.clone()),
        run_id: run_id.to_owned(),
        task_id: member.map(|m| m.task_id.clone()).unwrap_or_default(),
        action_kind: approval.map_or(assent_core::ActionKind::Other, |a| a.action_kind),
        action_hash: member.map(|m| m.action_hash.clone()).unwrap_or_default(),
        requested_scope: serde_json::json!("run"),
        decision: AuditDecision::Resumed,
        approver: Some(by.name.to_owned()),
        approver_role: by.role,
        reason: reason.to_owned(),
        policy_version: pausing
            .map(|record| record.policy_version.clone())
            .unwrap_or_default(),
        evidence_artifact_id: approval.map(|a| a.approval_id.clone()).unwrap_or_default(),
        grant_id: None,
        repo: approval.and_then(|a| a.repo.clone()),
        granted_scope: Some(ScopeKind::Run),
        grant_expires_at: None,
        subject: match (approval, member) {
            (Some(approval), Some(member)) => Some(subject(approval, member)),
            _ => Some(format!("run {run_id}")),
        },
    }
}

/// The audit record of something that happened to a grant (revoked, expired).
pub fn grant_audit(
    wire: &Grant,
    decision: AuditDecision,
    by: Actor<'_>,
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let grant = &wire.grant;
    ApprovalAuditEvent {
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now,
        approval_id: Some(grant.approval_id.clone()),
        action_id: None,
        run_id: grant.run_id.clone(),
        task_id: String::new(),
        action_kind: grant
            .action_kinds
            .first()
            .copied()
            .unwrap_or(assent_core::ActionKind::Other),
        action_hash: grant.constraints.action_hash.clone().unwrap_or_default(),
        requested_scope: serde_json::json!(grant.scope_kind),
        decision,
        approver: Some(by.name.to_owned()),
        approver_role: by.role,
        reason: reason.to_owned(),
        policy_version: grant.policy_version.clone(),
        evidence_artifact_id: grant.approval_id.clone(),
        grant_id: Some(grant.grant_id.clone()),
        repo: grant.constraints.repo.clone(),
        granted_scope: Some(grant.scope_kind),
        grant_expires_at: Some(grant.expires_at),
        subject: Some(wire.summary.clone()),
    }
}

/// What a member of an approval asked for, for people: its command line, else the evidence's
/// one-line summary (paths, target).
fn subject(approval: &Approval, member: &ApprovalMember) -> String {
    member
        .command_line
        .clone()
        .unwrap_or_else(|| approval.evidence.summary.clone())
}

/// The parts of a prompt fixed when it opens (stored as one JSON document).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PromptDetail {
    pub requested_by: assent_core::RequestedBy,
    pub action_kind: assent_core::ActionKind,
    pub repo: Option<String>,
    pub decision: Decision,
    pub risk: RiskLevel,
    pub reasons: Vec<String>,
    pub rule: String,
    pub recommendation: Recommendation,
    pub required_role: Option<assent_core::Role>,
    pub profile: Option<String>,
    pub evidence: assent_core::ApprovalEvidence,
    pub offered_scopes: Vec<ScopeKind>,
    pub reason: String,
    pub fallback_on_timeout: assent_core::FallbackOnTimeout,
    pub policy_version: String,
    /// How many distinct people must approve (prompts from before thresholds need one).
    #[serde(default = "one")]
    pub required_approvals: u32,
    #[serde(default)]
    pub quick_decisions: Vec<assent_core::QuickDecision>,
}

fn one() -> u32 {
    1
}

impl PromptDetail {
    pub fn of(s: &Submission) -> PromptDetail {
        let d = &s.eval.decision;
        PromptDetail {
            requested_by: s.request.requested_by,
            action_kind: s.request.action.kind,
            repo: s.request.context.repo.clone(),
            decision: d.decision,
            risk: d.risk,
            reasons: d.reasons.clone(),
            rule: d.rule.clone(),
            recommendation: recommend(s),
            required_role: d.required_role,
            profile: d.profile.clone(),
            evidence: s.eval.evidence.clone(),
            offered_scopes: d.offered_scopes.clone(),
            reason: s.request.reason.clone(),
            fallback_on_timeout: s.fallback_on_timeout,
            policy_version: s.eval.policy_version.clone(),
            required_approvals: s.required_approvals,
            quick_decisions: s.quick_decisions.clone(),
        }
    }
}

/// What the policy recommends: deny high risk, otherwise the narrowest scope that saves prompts.
fn recommend(s: &Submission) -> Recommendation {
    let d = &s.eval.decision;
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

/// A one-line description of a grant for people.
pub fn grant_summary(grant: &ApprovalGrant, profile: Option<&str>, summary: &str) -> String {
    let what = profile.unwrap_or(summary);
    match grant.scope_kind {
        ScopeKind::Once => format!("{what} once (run {})", grant.run_id),
        ScopeKind::Run => format!("{what} for run {}", grant.run_id),
        ScopeKind::CommandProfile => format!("{what} (command profile)"),
        ScopeKind::PathPattern => {
            format!("{what} on {}", grant.constraints.path_patterns.join(", "))
        }
        ScopeKind::TaskType => format!("{what} for this task type"),
        ScopeKind::Repo => format!("{what} in this repository"),
        ScopeKind::Org => format!("{what} everywhere"),
    }
}
