//! Wire types of a run's start (`POST /v1/runs/{id}/start`) and of fleet campaigns
//! (`/v1/campaigns…`). A campaign itself is core's [`assent_core::campaign::Campaign`].

use assent_core::campaign::{Campaign, OutcomeResult};
use assent_core::RiskLevel;
use serde::{Deserialize, Serialize};

/// `POST /v1/runs/{id}/start`: what the run is for, before it acts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStartRequest {
    pub task: String,
    /// The task's risk (default `low`); `high` or `critical` asks first under the default policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub risk: Option<RiskLevel>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repos: Vec<String>,
    /// Expected actions, one per entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub credentials: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_mutation: Option<String>,
    /// The fleet campaign the run belongs to, with `repo`, the repository it works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
}

/// What `run start` came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStartStatus {
    /// The run may act (no pre-run approval needed, or already approved, or its campaign
    /// batch is approved).
    Started,
    /// A pre-run approval is open: the run's actions are blocked until it is approved.
    Pending,
    /// Refused (a campaign outside an approved batch, a stopped campaign, a denied pre-run):
    /// the run's actions are blocked with `reasons`.
    Blocked,
}

/// The answer of `POST /v1/runs/{id}/start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunStartResponse {
    pub run_id: String,
    pub status: RunStartStatus,
    /// The pre-run approval, when one was opened (or joined, or decided before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Why: the policy's triggers for a pre-run, or the refusal.
    #[serde(default)]
    pub reasons: Vec<String>,
}

/// `POST /v1/campaigns`: the campaign file's text (TOML), checked by the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignCreate {
    pub file: String,
}

/// `GET /v1/campaigns`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CampaignList {
    pub campaigns: Vec<Campaign>,
}

/// `POST /v1/campaigns/{id}/stages`: propose the next batch of `next` repositories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StageProposal {
    pub next: u32,
}

/// `POST /v1/campaigns/{id}/outcomes`: a repository's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OutcomeReport {
    pub repo: String,
    pub result: OutcomeResult,
}

/// The answer of the campaign calls: the campaign as it is now, and the approval opened
/// (create, stage) when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CampaignAnswer {
    pub campaign: Campaign,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
}
