//! What each audit record says. Every builder takes the facts it records, the time and the
//! record's id: the store only appends what these return.

use chrono::{DateTime, Utc};

use crate::approval::audit::{ApprovalAuditEvent, AuditDecision};
use crate::evaluation::Evaluation;
use crate::grant::ApprovalGrant;
use crate::request::ActionRequest;
use crate::types::{ActionKind, Role, ScopeKind};

/// A submission as evaluated (after any run hold).
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub action_id: &'a str,
    /// The authenticated identity that submitted it (the token's name).
    pub requester: &'a str,
    pub request: &'a ActionRequest,
    pub eval: &'a Evaluation,
    pub now: DateTime<Utc>,
}

/// A prompt, as its audit records name it.
#[derive(Debug, Clone, Copy)]
pub struct PromptFacts<'a> {
    pub approval_id: &'a str,
    /// The identity whose requests wait on the prompt (empty on prompts from before it was
    /// recorded).
    pub requester: &'a str,
    pub run_id: &'a str,
    pub action_kind: ActionKind,
    pub offered_scopes: &'a [ScopeKind],
    pub repo: Option<&'a str>,
    /// The evidence's one-line summary (paths, target).
    pub evidence_summary: &'a str,
    /// The policy version the prompt was opened under.
    pub policy_version: &'a str,
}

/// One member (batched action) of a prompt.
#[derive(Debug, Clone, Copy)]
pub struct MemberFacts<'a> {
    pub action_id: &'a str,
    pub task_id: &'a str,
    pub action_hash: &'a str,
    pub command_line: Option<&'a str>,
}

/// How a prompt was settled (or what else happened to it), by whom.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    pub decision: AuditDecision,
    pub at: DateTime<Utc>,
    pub approver: Option<&'a str>,
    pub approver_role: Option<Role>,
    pub reason: &'a str,
    pub grant_id: Option<&'a str>,
    /// The grant the approval issued.
    pub granted: Option<&'a ApprovalGrant>,
}

/// A grant as its audit records name it.
#[derive(Debug, Clone, Copy)]
pub struct GrantFacts<'a> {
    pub grant: &'a ApprovalGrant,
    /// Its one-line description for people.
    pub summary: &'a str,
}

/// The audit record of a submission's outcome.
pub fn submission_audit(
    event_id: String,
    asked: Asked<'_>,
    decision: AuditDecision,
    approval_id: Option<String>,
    grant_id: Option<String>,
) -> ApprovalAuditEvent {
    let Asked {
        action_id,
        requester,
        request,
        eval,
        now,
    } = asked;
    ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: now,
        evidence_artifact_id: approval_id.clone().unwrap_or_else(|| action_id.to_owned()),
        approval_id,
        action_id: Some(action_id.to_owned()),
        run_id: request.run_id.clone(),
        task_id: request.task_id.clone(),
        action_kind: request.action.kind,
        action_hash: eval.action_hash.clone(),
        requested_scope: serde_json::json!(eval.decision.offered_scopes),
        decision,
        approver: None,
        approver_role: None,
        requester: identity(requester),
        reason: eval.decision.reasons.join("; "),
        policy_version: eval.policy_version.clone(),
        grant_id,
        repo: request.context.repo.clone(),
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(eval.evidence.summary.clone()),
    }
}

/// The audit record of a grant answering a submission (`used`): which grant and approval,
/// and, as every record of a grant, the scope it was granted for and until when.
pub fn grant_use_audit(
    event_id: String,
    asked: Asked<'_>,
    grant: &ApprovalGrant,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        granted_scope: Some(grant.scope_kind),
        grant_expires_at: Some(grant.expires_at),
        ..submission_audit(
            event_id,
            asked,
            AuditDecision::Used,
            Some(grant.approval_id.clone()),
            Some(grant.grant_id.clone()),
        )
    }
}

/// The audit record of one member of a prompt: its settlement, or a forgotten denial.
pub fn settlement_audit(
    event_id: String,
    prompt: PromptFacts<'_>,
    member: MemberFacts<'_>,
    verdict: Verdict<'_>,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: verdict.at,
        approval_id: Some(prompt.approval_id.to_owned()),
        action_id: Some(member.action_id.to_owned()),
        run_id: prompt.run_id.to_owned(),
        task_id: member.task_id.to_owned(),
        action_kind: prompt.action_kind,
        action_hash: member.action_hash.to_owned(),
        requested_scope: serde_json::json!(prompt.offered_scopes),
        decision: verdict.decision,
        approver: verdict.approver.map(str::to_owned),
        approver_role: verdict.approver_role,
        requester: identity(prompt.requester),
        reason: verdict.reason.to_owned(),
        policy_version: prompt.policy_version.to_owned(),
        evidence_artifact_id: prompt.approval_id.to_owned(),
        grant_id: verdict.grant_id.map(str::to_owned),
        repo: prompt.repo.map(str::to_owned),
        granted_scope: verdict.granted.map(|g| g.scope_kind),
        grant_expires_at: verdict.granted.map(|g| g.expires_at),
        subject: Some(subject(prompt, member)),
    }
}

/// The audit record of an approver (`by`, in `role`) resuming run `run_id`, held by the
/// prompt `pausing` whose timeout paused it (its first member is what the record names).
pub fn resume_audit(
    event_id: String,
    run_id: &str,
    pausing: Option<(PromptFacts<'_>, Option<MemberFacts<'_>>)>,
    by: (&str, Option<Role>),
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let prompt = pausing.map(|(p, _)| p);
    let member = pausing.and_then(|(_, m)| m);
    ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: now,
        approval_id: prompt.map(|p| p.approval_id.to_owned()),
        action_id: member.map(|m| m.action_id.to_owned()),
        run_id: run_id.to_owned(),
        task_id: member.map(|m| m.task_id.to_owned()).unwrap_or_default(),
        action_kind: prompt.map_or(ActionKind::Other, |p| p.action_kind),
        action_hash: member.map(|m| m.action_hash.to_owned()).unwrap_or_default(),
        requested_scope: serde_json::json!("run"),
        decision: AuditDecision::Resumed,
        approver: Some(by.0.to_owned()),
        approver_role: by.1,
        requester: prompt.and_then(|p| identity(p.requester)),
        reason: reason.to_owned(),
        policy_version: prompt
            .map(|p| p.policy_version.to_owned())
            .unwrap_or_default(),
        evidence_artifact_id: prompt.map(|p| p.approval_id.to_owned()).unwrap_or_default(),
        grant_id: None,
        repo: prompt.and_then(|p| p.repo.map(str::to_owned)),
        granted_scope: Some(ScopeKind::Run),
        grant_expires_at: None,
        subject: match (prompt, member) {
            (Some(prompt), Some(member)) => Some(subject(prompt, member)),
            _ => Some(format!("run {run_id}")),
        },
    }
}

/// The audit record of something that happened to a grant (revoked, expired), named after
/// `by` (the revoker; for an expiry, the person who granted it: whose decision ran out).
pub fn grant_audit(
    event_id: String,
    facts: GrantFacts<'_>,
    decision: AuditDecision,
    by: (&str, Option<Role>),
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let grant = facts.grant;
    ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: now,
        approval_id: Some(grant.approval_id.clone()),
        action_id: None,
        run_id: grant.run_id.clone(),
        task_id: String::new(),
        action_kind: grant
            .action_kinds
            .first()
            .copied()
            .unwrap_or(ActionKind::Other),
        action_hash: grant.constraints.action_hash.clone().unwrap_or_default(),
        requested_scope: serde_json::json!(grant.scope_kind),
        decision,
        approver: Some(by.0.to_owned()),
        approver_role: by.1,
        requester: grant.constraints.requester.clone(),
        reason: reason.to_owned(),
        policy_version: grant.policy_version.clone(),
        evidence_artifact_id: grant.approval_id.clone(),
        grant_id: Some(grant.grant_id.clone()),
        repo: grant.constraints.repo.clone(),
        granted_scope: Some(grant.scope_kind),
        grant_expires_at: Some(grant.expires_at),
        subject: Some(facts.summary.to_owned()),
    }
}

/// An action an agent reports it ran, as recorded when it was submitted.
#[derive(Debug, Clone, Copy)]
pub struct Ran<'a> {
    pub action_id: &'a str,
    /// The identity that submitted it and reports it ran.
    pub requester: &'a str,
    pub run_id: &'a str,
    pub task_id: &'a str,
    pub action_kind: ActionKind,
    pub action_hash: &'a str,
    pub approval_id: Option<&'a str>,
    pub grant_id: Option<&'a str>,
    pub policy_version: &'a str,
    pub command_line: Option<&'a str>,
}

/// The audit record of an executed report: whether anything (an auto decision, a grant, an
/// approval) allowed what ran.
pub fn executed_audit(
    event_id: String,
    ran: Ran<'_>,
    covered: bool,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: now,
        evidence_artifact_id: ran.approval_id.unwrap_or(ran.action_id).to_owned(),
        approval_id: ran.approval_id.map(str::to_owned),
        action_id: Some(ran.action_id.to_owned()),
        run_id: ran.run_id.to_owned(),
        task_id: ran.task_id.to_owned(),
        action_kind: ran.action_kind,
        action_hash: ran.action_hash.to_owned(),
        requested_scope: serde_json::Value::Null,
        decision: AuditDecision::Executed,
        approver: None,
        approver_role: None,
        requester: identity(ran.requester),
        reason: if covered {
            "the agent ran it, covered by an auto decision, a grant or an approval".to_owned()
        } else {
            "the agent ran it WITHOUT cover: it was never allowed".to_owned()
        },
        policy_version: ran.policy_version.to_owned(),
        grant_id: ran.grant_id.map(str::to_owned),
        repo: None,
        granted_scope: None,
        grant_expires_at: None,
        subject: ran.command_line.map(str::to_owned),
    }
}

/// A person's earlier denial of an equivalent request in the same run.
#[derive(Debug, Clone, Copy)]
pub struct Earlier<'a> {
    pub approval_id: &'a str,
    pub decided_by: &'a str,
    pub reason: &'a str,
}

/// What a remembered denial tells the agent and the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    /// The one reason of the denied answer.
    pub answer: String,
    /// The audit record's reason.
    pub audit: String,
}

/// The words of a request answered by `earlier`, a denial of run `run_id` it remembers.
pub fn remembered_denial(earlier: Earlier<'_>, run_id: &str) -> Remembered {
    let id = earlier.approval_id;
    let why = if earlier.reason.trim().is_empty() {
        "no reason given"
    } else {
        earlier.reason
    };
    Remembered {
        answer: format!(
            "{} denied this earlier in run {run_id} (approval {id}): {why}",
            earlier.decided_by
        ),
        audit: format!("remembered denial of approval {id}: {why}"),
    }
}

/// An identity as a record names it: `None` for the empty name of rows from before the
/// requester was recorded.
fn identity(name: &str) -> Option<String> {
    (!name.is_empty()).then(|| name.to_owned())
}

/// What a member of a prompt asked for, for people: its command line, else the evidence's
/// one-line summary (paths, target).
fn subject(prompt: PromptFacts<'_>, member: MemberFacts<'_>) -> String {
    member
        .command_line
        .unwrap_or(prompt.evidence_summary)
        .to_owned()
}
