use assent_core::{Decision, RiskLevel, Role};
use serde::{Deserialize, Serialize};

/// The body of `POST /v1/actions` is an [`assent_core::ActionRequest`].
/// This is its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SubmitResponse {
    pub action_id: String,
    pub action_hash: String,
    pub decision: Decision,
    pub risk: RiskLevel,
    pub reasons: Vec<String>,
    /// The policy rule that fired.
    pub rule: String,
    pub status: SubmitStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// What the agent may do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubmitStatus {
    /// Auto, or covered by a grant (`grant_id` says which).
    Allowed,
    /// The policy forbids it; never offered for approval.
    Blocked,
    /// A person decides; wait on `GET /v1/approvals/{approval_id}?wait=`.
    Pending,
    /// A person already denied an equivalent action in this run (`approval_id` names that
    /// approval, `reasons` carry their reason): not asked again.
    Denied,
    /// A person would decide. Only `POST /v1/actions/screen` answers this: it opens no
    /// prompt and records nothing for it (a later `POST /v1/actions` asks).
    WouldAsk,
}

/// `POST /v1/actions/executed`: the agent reports that it ran an action it submitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecutedRequest {
    pub run_id: String,
    /// The idempotency key the action was submitted with (Claude Code: `tool_use_id`).
    pub idempotency_key: String,
    /// The action that ran, for when none was submitted under the key: an agent whose
    /// permission step carries no call id (Codex's PermissionRequest) submitted it without
    /// one. The report then names the run's latest not yet executed action with the same
    /// action hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<assent_core::ActionRequest>,
}

/// The answer: whether an auto decision, a grant or an approval covered what ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExecutedResponse {
    pub action_id: String,
    /// False means the agent ran something Assent never allowed: the audit flags it.
    pub covered: bool,
}
