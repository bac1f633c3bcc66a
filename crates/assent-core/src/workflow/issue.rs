//! Which grant a person's approval issues: the scope they chose, bounded by what the prompt
//! offered and the policy's maximum lifetime.

use chrono::{DateTime, Duration, Utc};

use crate::approval::status::ApprovalEvent;
use crate::evaluation::Evaluation;
use crate::grant::scope::ScopeError;
use crate::grant::{ApprovalGrant, GrantConstraints};
use crate::request::ActionRequest;
use crate::types::{ActionKind, Decision, ScopeKind};

/// What an approving person chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantChoice {
    pub scope: ScopeKind,
    pub expires_in_seconds: i64,
    pub max_uses: Option<u32>,
    pub path_patterns: Option<Vec<String>>,
}

/// Everything issuing a grant depends on, read by the caller.
#[derive(Debug, Clone, Copy)]
pub struct GrantOrder<'a> {
    pub grant_id: &'a str,
    pub approval_id: &'a str,
    pub run_id: &'a str,
    pub action_kind: ActionKind,
    /// The scopes the prompt offered.
    pub offered_scopes: &'a [ScopeKind],
    /// The request that opened the prompt, and its evaluation under today's policy.
    pub request: &'a ActionRequest,
    pub eval: &'a Evaluation,
    /// The policy's longest lifetime for the chosen scope.
    pub max_lifetime: Duration,
    /// The person approving.
    pub created_by: &'a str,
    /// The agent identity that asked: the grant covers only its requests (but an exception).
    pub requester: &'a str,
    /// Whether a gate is waiting on the prompt right now (it runs a "once" at once).
    pub gate_waiting: bool,
    pub now: DateTime<Utc>,
}

/// Why an approval cannot issue the grant asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssueError {
    #[error("scope {0} was not offered for this approval")]
    NotOffered(String),
    #[error("expires_in_seconds must be between 1 and {max} for scope {scope}")]
    Lifetime { max: i64, scope: String },
    #[error("max_uses must be at least 1")]
    NoUses,
    #[error("the policy now blocks this action")]
    NowBlocked,
    #[error("{0}")]
    Scope(ScopeError),
}

impl IssueError {
    /// Whether the approval's state (not the person's choice) refuses it: 409, not 400.
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            IssueError::NowBlocked | IssueError::Scope(ScopeError::Blocked | ScopeError::NotNeeded)
        )
    }
}

/// The grant `choice` issues under `order`.
///
/// "Once" is one execution: when a gate is waiting it runs the approved action, so the grant
/// is spent at once; when every gate gave up, the grant keeps its one use for the agent's
/// retry of the same action.
pub fn issue_grant(
    order: GrantOrder<'_>,
    choice: &GrantChoice,
) -> Result<ApprovalGrant, IssueError> {
    let scope = choice.scope;
    if !order.offered_scopes.contains(&scope) {
        return Err(IssueError::NotOffered(scope_name(scope)));
    }
    let max = order.max_lifetime.num_seconds();
    if choice.expires_in_seconds <= 0 || choice.expires_in_seconds > max {
        return Err(IssueError::Lifetime {
            max,
            scope: scope_name(scope),
        });
    }
    if choice.max_uses == Some(0) {
        return Err(IssueError::NoUses);
    }
    if order.eval.decision.decision == Decision::Block {
        return Err(IssueError::NowBlocked);
    }
    let constraints = GrantConstraints::for_scope(
        scope,
        order.request,
        order.eval,
        order.requester,
        choice.path_patterns.as_deref(),
    )
    .map_err(IssueError::Scope)?;
    let max_uses = choice.max_uses.or((scope == ScopeKind::Once).then_some(1));
    let spent = scope == ScopeKind::Once && order.gate_waiting;
    Ok(ApprovalGrant {
        grant_id: order.grant_id.to_owned(),
        approval_id: order.approval_id.to_owned(),
        run_id: order.run_id.to_owned(),
        scope_kind: scope,
        action_kinds: vec![order.action_kind],
        constraints,
        created_at: order.now,
        expires_at: order.now + Duration::seconds(choice.expires_in_seconds),
        max_uses,
        used_count: if spent { max_uses.unwrap_or(1) } else { 0 },
        created_by: order.created_by.to_owned(),
        revocable: true,
        revoked_at: None,
        policy_version: order.eval.policy_version.clone(),
        invalidated_at: None,
    })
}

/// The approval's state transition for an approval of `scope`.
pub fn approve_event(scope: ScopeKind) -> ApprovalEvent {
    match scope {
        ScopeKind::Once => ApprovalEvent::ApproveOnce,
        ScopeKind::Run => ApprovalEvent::ApproveForRun,
        _ => ApprovalEvent::ApproveForPolicyScope,
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
        ScopeKind::Exception => format!(
            "exception to {} · {what} in {}",
            grant.constraints.exception_rules.join(", "),
            grant
                .constraints
                .repo
                .as_deref()
                .unwrap_or("this repository")
        ),
    }
}

/// The serde name of a scope (`once`, `path_pattern`, …).
fn scope_name(scope: ScopeKind) -> String {
    serde_json::to_value(scope)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
