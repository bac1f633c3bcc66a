//! `POST /v1/credentials/release`: the secret of an approved capability, for one execution.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which execution asks: the capability request submitted under `idempotency_key` in
/// `run_id` by the caller (`assent exec --capability` sends its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CredentialReleaseRequest {
    pub run_id: String,
    pub idempotency_key: String,
}

/// The secret for that one execution: put `value` into the child's environment as
/// `inject_as`, mask it in everything the agent sees, forget it when the child ends.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CredentialRelease {
    pub action_id: String,
    pub grant_id: String,
    pub capability: String,
    pub inject_as: String,
    pub value: String,
    /// When the grant stops covering new executions.
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for CredentialRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialRelease")
            .field("action_id", &self.action_id)
            .field("grant_id", &self.grant_id)
            .field("capability", &self.capability)
            .field("inject_as", &self.inject_as)
            .field("value", &"****")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}
