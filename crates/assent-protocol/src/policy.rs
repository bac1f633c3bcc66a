use assent_core::suggest::{PolicyChange, Suggestion};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `GET /v1/suggestions`: policy changes proposed from what people decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SuggestionList {
    /// `{id, change: {change: "trust_repo", repo} | {change: "block_command", pattern},
    /// evidence, decisions}`, most decisions first.
    pub suggestions: Vec<Suggestion>,
}

/// `POST /v1/suggestions/apply`: write one suggested change into the policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestionApply {
    /// The change as `GET /v1/suggestions` gave it: `{change: "trust_repo", repo}` or
    /// `{change: "block_command", pattern}`. It must still be suggested (else 409).
    pub change: PolicyChange,
    /// The window the suggestion came from (1–366 days, default 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_days: Option<i64>,
}

/// The answer of `POST /v1/suggestions/apply`: the policy now in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SuggestionApplied {
    /// The new policy's version (grants made under an older one no longer cover).
    pub policy_version: String,
    /// The file written.
    pub path: String,
    /// What changed, e.g. `trusted_repos += /src/shop`.
    pub applied: String,
}

/// `GET /v1/policy`: the policy in force and the state of its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PolicyStatus {
    pub version: String,
    /// The policy file the service runs with and reloads when it changes.
    pub path: String,
    /// Whether that file exists (without one the service runs with the built-in defaults).
    pub exists: bool,
    /// Why the file's last edit was not loaded (the previous policy stays in force).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the policy in force was loaded.
    pub loaded_at: DateTime<Utc>,
}
