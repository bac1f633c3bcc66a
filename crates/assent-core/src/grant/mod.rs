//! Scoped grants: what a person's approval allows, bound to the action, always expiring.

pub mod index;
pub mod invalidation;
pub mod matching;
pub mod quick;
pub mod scope;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::types::{ActionKind, ApprovalType, RiskLevel, Role, ScopeKind};

/// The scope a person approves (the seed's `ApprovalScope`): a kind plus what binds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalScope {
    pub kind: ScopeKind,
    pub constraints: GrantConstraints,
}

/// What a grant is bound to. Every field that is set must match for the grant to cover.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GrantConstraints {
    /// `once`: the exact action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_hash: Option<String>,
    /// `run`: equivalent actions of this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// `path_pattern`: globs on canonical paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// `exception`: the rules it sets aside; it covers an action only when every rule the
    /// action triggers is one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exception_rules: Vec<String>,
    /// `exception` held by host: it covers an action only when the action reaches at least one
    /// host and every host it reaches is one of these (lower case).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// What the person approved (every scope but `exception`): the grant covers no action
    /// that asks for more. `None` on grants made before it was recorded, which then cover
    /// under `once` (the exact action) and `exception` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<ApprovedAs>,
    /// `path_pattern`: the directory the patterns are relative to, as it was when the person
    /// approved (the repository, or the action's directory outside one), so a later request
    /// from elsewhere never moves what they mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// The agent identity that asked (every scope but `exception`): the grant covers only its
    /// requests; run ids and repository paths are the agent's own words, not an identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<String>,
}

/// What the approved action asked of the person: a grant covers an action only when it asks
/// for no more — the same approval type, no rule beyond these, no higher risk, and no role
/// but this one (thresholds are set per role and step-up per risk, so equal or less keeps
/// them).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovedAs {
    /// Every ask, escalate and block rule the approved action triggered.
    pub rules: Vec<String>,
    pub risk: RiskLevel,
    /// The role its approval required, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    pub approval_type: ApprovalType,
}

impl ApprovedAs {
    /// What an action evaluated as `eval` asks of the person approving it.
    pub fn of(eval: &crate::evaluation::Evaluation) -> ApprovedAs {
        ApprovedAs {
            rules: eval.rules.clone(),
            risk: eval.decision.risk,
            role: eval.decision.required_role,
            approval_type: eval.approval_type(),
        }
    }
}

/// A grant (the seed's `ApprovalGrant`, plus its use count, revocation and policy version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalGrant {
    pub grant_id: String,
    pub approval_id: String,
    pub run_id: String,
    pub scope_kind: ScopeKind,
    pub action_kinds: Vec<ActionKind>,
    pub constraints: GrantConstraints,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    #[schema(required)]
    pub max_uses: Option<u32>,
    pub used_count: u32,
    pub created_by: String,
    pub revocable: bool,
    #[schema(required)]
    pub revoked_at: Option<DateTime<Utc>>,
    pub policy_version: String,
    /// When it stopped counting because what it was bound to moved (its base commit or its
    /// diff, see [`ApprovalGrant::moved_by`]); it never covers again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidated_at: Option<DateTime<Utc>>,
}

/// Where a grant is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantStatus {
    Active,
    Expired,
    Revoked,
    Exhausted,
    /// What it was bound to changed under it (base commit, diff): it never covers again.
    Invalidated,
}

/// Why a grant does not cover an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotCovered {
    #[error("the grant expired")]
    Expired,
    #[error("the grant was revoked")]
    Revoked,
    #[error("the grant was invalidated: what it was bound to changed")]
    Invalidated,
    #[error("the grant has no uses left")]
    Exhausted,
    #[error("the policy changed since the grant was made")]
    PolicyChanged,
    #[error("blocked actions are never covered")]
    Blocked,
    #[error("the grant does not cover {0}")]
    Mismatch(&'static str),
}

impl ApprovalGrant {
    /// Its status at `now`: revocation, invalidation, time and uses, in that order.
    pub fn status(&self, now: DateTime<Utc>) -> GrantStatus {
        if self.revoked_at.is_some() {
            GrantStatus::Revoked
        } else if self.invalidated_at.is_some() {
            GrantStatus::Invalidated
        } else if now >= self.expires_at {
            GrantStatus::Expired
        } else if self.max_uses.is_some_and(|max| self.used_count >= max) {
            GrantStatus::Exhausted
        } else {
            GrantStatus::Active
        }
    }
}
