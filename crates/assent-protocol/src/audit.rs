use std::collections::BTreeMap;

use assent_core::ApprovalAuditEvent;
use serde::{Deserialize, Serialize};

/// `GET /v1/audit`: audited decisions, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AuditList {
    #[schema(value_type = Vec<Object>)]
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchSizes {
    pub mean: f64,
    pub max: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
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
