//! What a delivery carries: `{"type", "timestamp", "data"}` for an event, built once when the
//! event is written (every attempt posts the same bytes), and whose webhooks take it.

use assent_core::ScopeKind;
use assent_protocol::{Event, SettledData, WebhookPayload};
use chrono::{DateTime, Utc};

/// The event types a webhook may take: every event of the log (`approval.waiting` is live
/// only, `reset` is a stream's own).
pub const EVENT_TYPES: [&str; 15] = [
    "approval.requested",
    "approval.updated",
    "approval.settled",
    "grant.created",
    "grant.used",
    "grant.revoked",
    "grant.expired",
    "grant.invalidated",
    "run.ended",
    "run.paused",
    "run.resumed",
    "policy.changed",
    "credential.released",
    "campaign.updated",
    "campaign.stopped",
];

/// The types an agent's webhook may take: those about its own requests, grants and runs.
pub fn is_agent_event(name: &str) -> bool {
    name.starts_with("approval.") || name.starts_with("grant.") || name.starts_with("run.")
}

/// Whose event this is, for webhooks limited to one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Concerns {
    /// No agent's (the policy, campaigns, credentials): webhooks for everyone's events only.
    Nobody,
    /// This agent's request or grant.
    Agent(String),
    /// The agent who asked this approval.
    Approval(String),
    /// Every agent that submitted in this run.
    Run(String),
}

/// Whose `event` is; `None` for events never delivered.
pub fn concerns(event: &Event) -> Option<Concerns> {
    Some(match event {
        Event::ApprovalRequested { approval }
        | Event::ApprovalUpdated { approval }
        | Event::ApprovalSettled { approval } => Concerns::Agent(approval.requester.clone()),
        Event::GrantCreated { grant }
        | Event::GrantUsed { grant, .. }
        | Event::GrantRevoked { grant }
        | Event::GrantExpired { grant }
        | Event::GrantInvalidated { grant, .. } => match &grant.grant.constraints.requester {
            Some(agent) => Concerns::Agent(agent.clone()),
            None => Concerns::Nobody,
        },
        Event::RunEnded { run_id, requester } => match requester {
            Some(agent) => Concerns::Agent(agent.clone()),
            None => Concerns::Run(run_id.clone()),
        },
        Event::RunPaused { run } | Event::RunResumed { run } => match &run.approval_id {
            Some(id) => Concerns::Approval(id.clone()),
            None => Concerns::Run(run.run_id.clone()),
        },
        Event::PolicyChanged { .. }
        | Event::CredentialReleased { .. }
        | Event::CampaignUpdated { .. }
        | Event::CampaignStopped { .. } => Concerns::Nobody,
        Event::ApprovalWaiting { .. } | Event::Reset {} => return None,
    })
}

/// The grant a settlement issued, as its delivery names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub scope: ScopeKind,
    pub expires_at: DateTime<Utc>,
}

/// The body posted for `event` (at `at`): `approval.settled` carries [`SettledData`], any
/// other type the event's own fields.
pub fn body(
    event: &Event,
    at: DateTime<Utc>,
    grant: Option<&Settled>,
) -> Result<String, serde_json::Error> {
    let data = match event {
        Event::ApprovalSettled { approval } => serde_json::to_value(SettledData {
            approval_id: approval.approval_id.clone(),
            run_id: approval.run_id.clone(),
            requester: approval.requester.clone(),
            action_ids: approval
                .members
                .iter()
                .map(|m| m.action_id.clone())
                .collect(),
            decision: approval
                .resolution
                .unwrap_or(assent_protocol::Resolution::Cancelled),
            reason: approval.decision_reason.clone(),
            decided_by: approval.decided_by.clone(),
            decided_role: approval.decided_role,
            decided_at: approval.decided_at,
            scope: grant.map(|g| g.scope),
            grant_id: approval.grant_id.clone(),
            grant_expires_at: grant.map(|g| g.expires_at),
        })?,
        other => {
            let mut value = serde_json::to_value(other)?;
            if let Some(fields) = value.as_object_mut() {
                fields.remove("type");
            }
            value
        }
    };
    serde_json::to_string(&WebhookPayload {
        kind: event.name().to_owned(),
        timestamp: at,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_logged_event_type_is_deliverable_and_named_once() {
        let mut names = EVENT_TYPES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EVENT_TYPES.len(), "no type listed twice");
        assert!(
            !EVENT_TYPES.contains(&"approval.waiting") && !EVENT_TYPES.contains(&"reset"),
            "live-only events are never in the outbox"
        );
    }

    #[test]
    fn a_policy_change_has_no_agent_and_its_data_has_no_type() {
        let event = Event::PolicyChanged {
            version: "v2".to_owned(),
            by: Some("alice".to_owned()),
        };
        assert_eq!(concerns(&event), Some(Concerns::Nobody), "no agent's event");
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let body: serde_json::Value =
            serde_json::from_str(&body(&event, at, None).unwrap()).unwrap();
        assert_eq!(
            body["type"], "policy.changed",
            "the type is the event's name"
        );
        assert_eq!(
            body["data"],
            serde_json::json!({"version": "v2", "by": "alice"}),
            "data is the event's fields without its tag"
        );
        assert_eq!(body["timestamp"], "2023-11-14T22:13:20Z", "RFC 3339 time");
    }
}
