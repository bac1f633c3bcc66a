use assent_core::workflow::GrantFacts;
use assent_core::{ApprovalGrant, GrantStatus};
use serde::{Deserialize, Serialize};

/// A grant as the API shows it: the domain grant plus its status now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Grant {
    #[serde(flatten)]
    pub grant: ApprovalGrant,
    pub status: GrantStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoke_reason: Option<String>,
    /// A one-line description for people, e.g. "cargo-test for run r-42".
    pub summary: String,
    /// The role the granting person acted in (`created_by` names them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by_role: Option<assent_core::Role>,
    /// Why it stopped covering when the action it was bound to changed under it (status
    /// `invalidated`), e.g. "base commit changed abc123 → def456".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidated_reason: Option<String>,
    /// Who revoked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_by: Option<String>,
}

/// `GET /v1/grants`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GrantList {
    pub grants: Vec<Grant>,
}

/// `POST /v1/grants/{id}/revoke`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeRequest {
    pub reason: String,
}

/// `POST /v1/runs/{id}/end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunEndResponse {
    pub run_id: String,
    pub grants_expired: u32,
    pub approvals_cancelled: u32,
}

impl Grant {
    /// This grant as the core's audit records name it ([`assent_core::workflow::grant_audit`]).
    pub fn facts(&self) -> GrantFacts<'_> {
        GrantFacts {
            grant: &self.grant,
            summary: &self.summary,
        }
    }
}
