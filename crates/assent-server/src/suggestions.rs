//! Policy suggestions from the approvals people settled: one computation for
//! `GET /v1/suggestions` and `assent policy suggest`, and one audit record for applying one
//! (`POST /v1/suggestions/apply` and `--apply`).

use assent_core::suggest::{suggest, PolicyChange, SettledPrompt, Suggestion};
use assent_core::{ActionKind, ApprovalAuditEvent, AuditDecision, Policy, Role};
use assent_protocol::{Approval, Resolution};
use chrono::{DateTime, Utc};

use crate::store::{Store, StoreError};

/// What `policy` would gain from the approvals settled since `since` (skipping what it already
/// trusts or blocks), most decisions first.
pub async fn suggestions_since(
    store: &dyn Store,
    policy: &Policy,
    since: DateTime<Utc>,
) -> Result<Vec<Suggestion>, StoreError> {
    let prompts: Vec<SettledPrompt> = store
        .approvals(false)
        .await?
        .iter()
        .filter(|a| a.decided_at.is_some_and(|at| at >= since))
        .map(settled)
        .collect();
    Ok(suggest(
        &prompts,
        &policy.trusted_repos,
        &policy.block_patterns,
    ))
}

fn settled(a: &Approval) -> SettledPrompt {
    SettledPrompt {
        rule: a.facts.rule.clone(),
        profile: a.facts.profile.clone(),
        repo: a.repo.clone(),
        command: a.evidence.command_line.clone(),
        approved: a.resolution == Some(Resolution::Approved),
        denied: a.resolution == Some(Resolution::Denied),
        risk: a.facts.risk,
    }
}

/// The audit record of an applied suggestion: who (in which role), what changed, and the
/// evidence it rested on.
pub fn applied_audit(
    s: &Suggestion,
    approver: &str,
    role: Option<Role>,
    policy_version: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    let repo = match &s.change {
        PolicyChange::TrustRepo { repo } => Some(repo.clone()),
        PolicyChange::BlockCommand { .. } => None,
    };
    ApprovalAuditEvent {
        review: None,
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now,
        approval_id: None,
        action_id: None,
        run_id: String::new(),
        task_id: String::new(),
        action_kind: ActionKind::Other,
        action_hash: String::new(),
        requested_scope: serde_json::Value::Null,
        decision: AuditDecision::PolicyChanged,
        approver: Some(approver.to_owned()),
        approver_role: role,
        requester: None,
        reason: s.evidence.clone(),
        policy_version: policy_version.to_owned(),
        evidence_artifact_id: String::new(),
        grant_id: None,
        repo,
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(s.change.describe()),
    }
}
