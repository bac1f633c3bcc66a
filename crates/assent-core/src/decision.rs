//! The seed's risk input and decision, and the approval a decision requires.

use serde::{Deserialize, Serialize};

use crate::types::{
    ActionKind, CommandRisk, CredentialRisk, Decision, DiffRisk, FallbackOnTimeout, NetworkRisk,
    PathRisk, RepoTrust, RiskLevel, Role, RunMode, ScopeKind,
};

/// Everything the decision looks at, derived from the canonical action and its context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRiskInput {
    pub action_kind: ActionKind,
    pub run_mode: RunMode,
    pub repo_trust: RepoTrust,
    pub path_risk: PathRisk,
    pub command_risk: CommandRisk,
    pub network_risk: NetworkRisk,
    pub credential_risk: CredentialRisk,
    pub diff_risk: DiffRisk,
    pub task_risk: RiskLevel,
    pub policy_findings: Vec<String>,
}

/// The policy's answer, explaining itself: the decision's facts, declared once. The service's
/// answer to a submission, a prompt on the wire and the prompt's stored detail carry it
/// flattened (its fields sit at their top level).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RiskDecision {
    /// `auto`, `ask`, `escalate` or `block` (a prompt is only ever `ask` or `escalate`).
    pub decision: Decision,
    pub risk: RiskLevel,
    /// Human-readable reasons, never empty.
    pub reasons: Vec<String>,
    /// The policy rule that fired, e.g. `block.secret_path` or `profile.cargo-test`.
    pub rule: String,
    /// The role whose holders may decide it, when a person must.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_role: Option<Role>,
    /// The command profile the action belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Scopes a person may grant for this action (empty for auto and block).
    #[serde(default)]
    #[schema(required)]
    pub offered_scopes: Vec<ScopeKind>,
}

/// Who must approve, and what happens when nobody does (the seed's `RequiredApproval`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequiredApproval {
    pub role: Role,
    pub reason: String,
    pub fallback_on_timeout: FallbackOnTimeout,
}
