//! The packets of the approvals made before a run acts: a run's start (`pre_run`, the seed's
//! section 10) and a fleet campaign's definition or stage (`fleet`, section 20).

use serde::{Deserialize, Serialize};

use crate::types::{RiskLevel, Role};

/// The seed's pre-run packet: what the run is for and how far it may reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PreRunPacket {
    /// The task, as the agent stated it ("Upgrade Spring Boot 3.2 to 3.4 across 12 services").
    pub task: String,
    #[schema(value_type = String)]
    pub task_risk: RiskLevel,
    /// The repositories the run will touch.
    #[serde(default)]
    pub repos: Vec<String>,
    /// What the run expects to do ("clone private repos", "create draft PRs").
    #[serde(default)]
    pub expected_actions: Vec<String>,
    /// The credentials it will ask for ("Git read access"); not `credentials`, which the
    /// common evidence fields already use for one line.
    #[serde(default)]
    pub expected_credentials: Vec<String>,
    /// What it may change outside the machine ("PR creation only, no merge").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_mutation: Option<String>,
    /// Who must approve, e.g. "platform_admin".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub required_role: Option<Role>,
    /// Why the policy asks before this run starts (high risk, an untrusted repo, a listed task).
    #[serde(default)]
    pub triggers: Vec<String>,
    /// The fleet campaign the run belongs to, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
}

/// The seed's fleet packet: a campaign's definition (`stage` absent) or one stage's batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FleetPacket {
    pub campaign: String,
    /// The stage this approval is for (1, 2, …); absent for the campaign's definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    /// Every target repository of the campaign.
    pub target_repos: Vec<String>,
    /// The repositories of this stage's batch (empty for the definition).
    #[serde(default)]
    pub batch: Vec<String>,
    pub selection_criteria: String,
    #[serde(default)]
    pub excluded_repos: Vec<String>,
    /// What the agent is told to do in every repository.
    pub prompt_contract: String,
    #[schema(value_type = String)]
    pub risk: RiskLevel,
    pub verifier_profile: String,
    /// The stop policy in words ("stop after 2 failed repositories").
    pub stop_policy: String,
    pub failure_threshold: u32,
    /// A sample of the change (secrets masked).
    pub sample_diff: String,
    pub expected_pr_body: String,
    pub cost_estimate: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_notification: Option<String>,
    /// Outcomes so far (a stage's approval shows how the earlier batches went).
    #[serde(default)]
    pub passed: u32,
    #[serde(default)]
    pub failed: u32,
}
