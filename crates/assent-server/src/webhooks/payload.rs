//! What a delivery carries: `{"type", "timestamp", "data"}` for an event, built once when the
//! event is written (every attempt posts the same bytes), and whose webhooks take it.

use assent_core::ScopeKind;
use assent_protocol::{Event, SettledData, Subject, WebhookPayload};
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

/// Whose `event` is; `None` for events never delivered (live only, or a stream's own).
pub fn concerns(event: &Event) -> Option<Concerns> {
    Some(match event.subject() {
        Subject::Approval { approval, .. } => Concerns::Agent(approval.requester.clone()),
        Subject::Grant {
            requester: Some(agent),
            ..
        }
        | Subject::Run {
            requester: Some(agent),
            ..
        } => Concerns::Agent(agent.to_owned()),
        Subject::Run {
            approval_id: Some(id),
            ..
        } => Concerns::Approval(id.to_owned()),
        Subject::Run { run_id, .. } => Concerns::Run(run_id.to_owned()),
        Subject::Grant {
            requester: None, ..
        }
        | Subject::Nobody => Concerns::Nobody,
        Subject::Waiting | Subject::Reset => return None,
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
    use assent_protocol::fixtures;

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

    /// Each row: an event (about agent `default`'s approval `apr-1` in run `run-1`) → whose
    /// webhooks it goes to.
    #[test]
    fn every_event_goes_to_its_agents_webhooks_or_to_everyones() {
        let default = || Some(Concerns::Agent("default".to_owned()));
        let held = || Some(Concerns::Approval("apr-1".to_owned()));
        let rows: [Option<Concerns>; 17] = [
            default(),
            default(),
            default(),
            default(),
            default(),
            default(),
            default(),
            default(),
            default(),
            held(),
            held(),
            Some(Concerns::Nobody),
            Some(Concerns::Nobody),
            Some(Concerns::Nobody),
            Some(Concerns::Nobody),
            None,
            None,
        ];
        let events = fixtures::one_of_each();
        assert_eq!(events.len(), rows.len(), "a row for every kind of event");
        for (event, want) in events.iter().zip(rows) {
            assert_eq!(concerns(event), want, "{}: whose webhooks", event.name());
            assert_eq!(
                want.is_some(),
                EVENT_TYPES.contains(&event.name()),
                "{}: an event is delivered exactly when a webhook may take its type",
                event.name()
            );
        }
        let cases = [
            (
                Event::GrantRevoked {
                    grant: fixtures::grant(None),
                },
                Concerns::Nobody,
                "a grant limited to no agent goes to webhooks for everyone's events",
            ),
            (
                Event::RunEnded {
                    run_id: "run-2".to_owned(),
                    requester: None,
                },
                Concerns::Run("run-2".to_owned()),
                "a whole run's end goes to every agent that submitted in it",
            ),
            (
                Event::RunPaused {
                    run: fixtures::run("run-3", None),
                },
                Concerns::Run("run-3".to_owned()),
                "a run held by no approval goes to the run's agents",
            ),
        ];
        for (event, want, why) in cases {
            assert_eq!(concerns(&event), Some(want), "{why}");
        }
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
