//! The append-only audit record (the seed's `ApprovalAuditEvent`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::types::{ActionKind, Role};

/// What the audit event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditDecision {
    Auto,
    Approved,
    Denied,
    Blocked,
    Expired,
    Revoked,
    /// A grant stopped counting because what it was bound to moved (base commit, diff).
    Invalidated,
    /// A grant covered an action and one of its uses was consumed.
    Used,
    /// The agent reported the action as executed (coverage check).
    Executed,
    /// An approver let a run that an unanswered prompt had paused ask again.
    Resumed,
    /// A person undid a remembered denial: equivalent requests of the run ask again.
    Forgotten,
    /// The policy file was changed by `assent policy suggest --apply`.
    PolicyChanged,
    /// A credential capability's secret went to one approved execution (never its value).
    CredentialReleased,
    /// A fleet campaign reached its failure threshold and stopped.
    Stopped,
    /// A repository's outcome in a fleet campaign was reported (passed or failed).
    Reported,
    /// A one-time link to enrol a passkey was made for a person (`approver`: who made it).
    Invited,
    /// A person registered a passkey (with an invite, or while signed in).
    Enrolled,
    /// A person removed one of their passkeys.
    PasskeyRemoved,
    /// A person signed in to the web desk with a passkey.
    SignedIn,
    /// A prompt asked its first people (routing on: those present, or everyone when none
    /// was); `reason` names them.
    Asked,
    /// A prompt still open after the policy's `escalate_after` asked everyone holding its
    /// role; `reason` names who was newly asked.
    Escalated,
    /// A model reviewer was asked about a prompt (`review` holds the call).
    Reviewed,
    /// A platform admin registered an outbound webhook (`subject`: its id and URL; never
    /// its secret).
    WebhookAdded,
    /// A platform admin removed an outbound webhook.
    WebhookRemoved,
}

/// One audited decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalAuditEvent {
    pub event_id: String,
    pub timestamp: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    pub run_id: String,
    pub task_id: String,
    pub action_kind: ActionKind,
    pub action_hash: String,
    pub requested_scope: serde_json::Value,
    pub decision: AuditDecision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver_role: Option<Role>,
    /// The authenticated identity (the token's name) of the agent whose request this record
    /// is about — who asked, or whose request used a grant — never the agent's self-declared
    /// `requested_by`. Absent where no agent asked (people's sign-ins and passkeys, policy
    /// changes) and on records written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<String>,
    pub reason: String,
    pub policy_version: String,
    pub evidence_artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// The scope actually granted (an approval, a grant's revoke or expiry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_scope: Option<crate::types::ScopeKind>,
    /// Until when the grant ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_expires_at: Option<DateTime<Utc>>,
    /// What was decided, for people: the command line, the paths or the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// A model reviewer's call (`reviewed`): what it was sent and what it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<AuditReview>,
}

/// One call of the model reviewer, as audited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditReview {
    pub model: String,
    /// The version of Assent's instructions (`assent-reviewer/1`).
    pub prompt_version: String,
    /// `approved`, `advised` or `failed`.
    pub state: String,
    /// `approve` or `ask_person`; absent when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<crate::types::RiskLevel>,
    /// The reviewer's rationale, or why the call failed.
    pub rationale: String,
    pub latency_ms: u64,
    /// SHA-256 of the exact request body sent.
    pub request_sha256: String,
}
