//! Outbound webhooks: `POST|GET /v1/webhooks`, `DELETE /v1/webhooks/{id}`,
//! `GET /v1/webhooks/{id}/deliveries`, and the payload each delivery posts (signed as
//! Standard Webhooks do: `webhook-id`, `webhook-timestamp`, `webhook-signature`).

use assent_core::{Role, ScopeKind};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::approval::Resolution;

/// `POST /v1/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookCreate {
    /// Where deliveries are posted: `https://` anywhere, plain `http://` only to a loopback
    /// address.
    pub url: String,
    /// The event types delivered (`approval.settled`, `grant.revoked`, …); empty or absent:
    /// `approval.settled` only.
    #[serde(default)]
    pub events: Vec<String>,
    /// Only the events about this agent's own requests, grants and runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Let the URL reach private, link-local and metadata addresses (off: refused, checked
    /// after DNS at every delivery).
    #[serde(default)]
    pub allow_private: bool,
}

/// `POST /v1/webhooks`'s answer: the signing secret, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookCreated {
    pub id: String,
    /// `whsec_` and the base64 of the HMAC-SHA256 key.
    pub secret: String,
}

/// A registered webhook (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookInfo {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub allow_private: bool,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookInfo>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not delivered yet: its next attempt is due at `next_attempt_at`.
    Pending,
    /// A 2xx answer.
    Delivered,
    /// Still not delivered a day after the event: no further attempt.
    Failed,
}

/// One attempt at a delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeliveryAttempt {
    pub at: DateTime<Utc>,
    /// The receiver's HTTP status; absent when there was no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub latency_ms: u64,
    /// Why there was no 2xx: a timeout, a refused address, a connection error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One event's delivery to one webhook, with its attempts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookDelivery {
    /// The `webhook-id` header: the same on every attempt.
    pub id: String,
    /// The event's id on `/v1/events`.
    pub event_id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub created_at: DateTime<Utc>,
    pub state: DeliveryState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub attempts: Vec<DeliveryAttempt>,
}

/// `GET /v1/webhooks/{id}/deliveries`: newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookDeliveryList {
    pub deliveries: Vec<WebhookDelivery>,
}

/// The body of every delivery (Standard Webhooks' shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookPayload {
    /// The event type, e.g. `approval.settled`.
    #[serde(rename = "type")]
    pub kind: String,
    /// When the event happened.
    pub timestamp: DateTime<Utc>,
    /// `approval.settled`: a [`SettledData`]; any other type: the event's own fields
    /// (`{"grant": …}`, `{"run": …}`, …) as on `/v1/events`.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

/// `data` of an `approval.settled` delivery: how the approval was settled, by whom, and the
/// grant it issued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SettledData {
    pub approval_id: String,
    pub run_id: String,
    /// The agent whose requests waited on it.
    pub requester: String,
    /// The actions that waited on it (every member of the prompt).
    pub action_ids: Vec<String>,
    /// `approved`, `denied`, `timed_out` or `cancelled`.
    pub decision: Resolution,
    /// The person's reason (a denial's), or why nobody decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who decided (a person's name, or the service for a timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<DateTime<Utc>>,
    /// The scope granted (approved only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
    /// Until when the grant covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_expires_at: Option<DateTime<Utc>>,
}
