use std::collections::BTreeMap;

use assent_core::ApprovalAuditEvent;
use serde::{Deserialize, Serialize};

/// `GET /v1/audit`: audited decisions, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditList {
    pub events: Vec<ApprovalAuditEvent>,
}

/// `GET /v1/metrics`: what the service decided, and how fast people answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Metrics {
    /// Submitted actions by policy decision (`auto`, `ask`, `escalate`, `block`).
    pub actions_by_decision: BTreeMap<String, u64>,
    pub actions_total: u64,
    /// Prompts opened (approvals created).
    pub prompts_opened: u64,
    pub prompts_pending: u64,
    /// Requests per prompt: how well batching works.
    pub batch_size: BatchSizes,
    /// Seconds from a prompt opening to a person's decision.
    pub time_to_decision_seconds: DecisionTimes,
    pub grants_active: u64,
    /// Prompts opened per 100 submitted actions.
    pub prompts_per_100_actions: f64,
    /// Where the prompts come from: per policy rule that opened them.
    #[serde(default)]
    #[schema(required)]
    pub by_rule: BTreeMap<String, PromptStats>,
    /// Per command profile (prompts without a profile are not listed here).
    #[serde(default)]
    #[schema(required)]
    pub by_profile: BTreeMap<String, PromptStats>,
    /// Prompts per run that had any.
    #[serde(default)]
    #[schema(required)]
    pub prompts_per_run: PromptsPerRun,
    /// Approvals decided within 2 s of the prompt opening: read too fast to be a judgment.
    #[serde(default)]
    #[schema(required)]
    pub rubber_stamps: u64,
    /// Requests answered by a person's earlier denial instead of a new prompt.
    #[serde(default)]
    #[schema(required)]
    pub remembered_denials: u64,
    /// Executions the agent reported that nothing allowed (the coverage check).
    #[serde(default)]
    #[schema(required)]
    pub uncovered_executions: u64,
}

/// How the prompts of one rule or profile went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PromptStats {
    pub prompts: u64,
    pub approved: u64,
    pub denied: u64,
    /// Nobody answered in time.
    pub timed_out: u64,
    /// Approved / (approved + denied); 0 when none was decided.
    pub approve_rate: f64,
    pub deny_rate: f64,
    pub time_to_decide_seconds: DecisionTimes,
    pub rubber_stamps: u64,
    pub remembered_denials: u64,
}

/// Prompts per run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PromptsPerRun {
    /// Runs with at least one prompt.
    pub runs: u64,
    pub mean: f64,
    pub max: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchSizes {
    pub mean: f64,
    pub max: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DecisionTimes {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
}

/// `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Health {
    pub status: String,
    pub version: String,
}
