use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Whether a run's requests may still reach a person or the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Nothing holds the run (also every run Assent never heard of).
    Running,
    /// A prompt with `fallback_on_timeout = pause` went unanswered, or the run's fleet
    /// campaign stopped: the run's non-auto requests are blocked until an approver resumes it
    /// (`POST /v1/runs/{id}/resume`) or, for a campaign's stop, resumes the campaign.
    Paused,
    /// A prompt with `fallback_on_timeout = cancel_run` went unanswered: the run ended and
    /// every later request of it is blocked.
    Cancelled,
    /// `assent run start` asked for a pre-run approval (or a campaign refused the run): every
    /// request is blocked until it is approved (`reason` says why).
    AwaitingApproval,
}

/// `GET /v1/runs?status=paused|cancelled`: the runs a timeout fallback holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunList {
    pub runs: Vec<RunState>,
}

/// `GET /v1/runs/{id}` and the answer of `POST /v1/runs/{id}/resume`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunState {
    pub run_id: String,
    pub status: RunStatus,
    /// Why it is held (or was resumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The unanswered approval that paused or cancelled it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// When the status last changed (absent for a run never held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    /// The fleet campaign it was started in (`assent run start --campaign`): when the campaign
    /// stops, its started runs are paused, and resuming the campaign lets them go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
}
