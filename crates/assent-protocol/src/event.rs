use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::approval::Approval;
use crate::grant::Grant;
use crate::run::RunState;

/// Every event of `/v1/events` (and to the desktop UI). The SSE `event:` field is
/// [`Event::name`]; `data:` is the JSON of the [`EventEnvelope`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    #[serde(rename = "approval.requested")]
    ApprovalRequested { approval: Approval },
    /// A batch grew, or another field changed while pending.
    #[serde(rename = "approval.updated")]
    ApprovalUpdated { approval: Approval },
    #[serde(rename = "approval.settled")]
    ApprovalSettled { approval: Approval },
    #[serde(rename = "grant.created")]
    GrantCreated { grant: Grant },
    #[serde(rename = "grant.used")]
    GrantUsed { grant: Grant, action_id: String },
    #[serde(rename = "grant.revoked")]
    GrantRevoked { grant: Grant },
    #[serde(rename = "grant.expired")]
    GrantExpired { grant: Grant },
    /// What the grant was bound to moved (base commit, diff) under the request `action_id`:
    /// it never covers again (`grant.invalidated_reason` says what changed).
    #[serde(rename = "grant.invalidated")]
    GrantInvalidated { grant: Grant, action_id: String },
    #[serde(rename = "run.ended")]
    RunEnded {
        run_id: String,
        /// Set when one agent ended its part of the run: only its prompts and grants ended,
        /// another agent's requests in the same run stand. Absent: the whole run ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        requester: Option<String>,
    },
    /// A prompt with `fallback_on_timeout = pause` went unanswered: the run's non-auto
    /// requests are blocked until an approver resumes it.
    #[serde(rename = "run.paused")]
    RunPaused { run: RunState },
    /// An approver resumed a paused run (`POST /v1/runs/{id}/resume`).
    #[serde(rename = "run.resumed")]
    RunResumed { run: RunState },
    /// The policy in force changed: a suggestion applied (`by` the person), or the file edited
    /// and reloaded (`by` none).
    #[serde(rename = "policy.changed")]
    PolicyChanged {
        version: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// A credential capability's secret went to one approved execution (`action_id`), under
    /// `grant_id`; never the value.
    #[serde(rename = "credential.released")]
    CredentialReleased {
        run_id: String,
        action_id: String,
        grant_id: String,
        capability: String,
    },
    /// A fleet campaign was created, staged, reported on, decided or resumed.
    #[serde(rename = "campaign.updated")]
    CampaignUpdated {
        campaign: assent_core::campaign::Campaign,
    },
    /// A fleet campaign reached its failure threshold: no stage or run until a person
    /// resumes it.
    #[serde(rename = "campaign.stopped")]
    CampaignStopped {
        campaign: assent_core::campaign::Campaign,
    },
    /// Who waits on a pending prompt changed: the first agent waits on it, the last one
    /// stopped (a moment after, so a gate's next long-poll round does not count as a stop),
    /// or one came back. Live only: not in the log, never replayed, and from the replica the
    /// agent waits on; its `id` is the stream's position, unchanged.
    #[serde(rename = "approval.waiting")]
    ApprovalWaiting {
        approval_id: String,
        agents_waiting: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stopped_waiting_at: Option<DateTime<Utc>>,
    },
    /// The client is too far behind to replay: refetch everything.
    #[serde(rename = "reset")]
    Reset {},
}

impl Event {
    /// The stable name, used as the SSE `event:` field.
    pub fn name(&self) -> &'static str {
        match self {
            Event::ApprovalRequested { .. } => "approval.requested",
            Event::ApprovalUpdated { .. } => "approval.updated",
            Event::ApprovalSettled { .. } => "approval.settled",
            Event::GrantCreated { .. } => "grant.created",
            Event::GrantUsed { .. } => "grant.used",
            Event::GrantRevoked { .. } => "grant.revoked",
            Event::GrantExpired { .. } => "grant.expired",
            Event::GrantInvalidated { .. } => "grant.invalidated",
            Event::RunEnded { .. } => "run.ended",
            Event::RunPaused { .. } => "run.paused",
            Event::RunResumed { .. } => "run.resumed",
            Event::PolicyChanged { .. } => "policy.changed",
            Event::CredentialReleased { .. } => "credential.released",
            Event::CampaignUpdated { .. } => "campaign.updated",
            Event::CampaignStopped { .. } => "campaign.stopped",
            Event::ApprovalWaiting { .. } => "approval.waiting",
            Event::Reset {} => "reset",
        }
    }

    /// What this event is about: see [`Subject`]. The match has no catch-all, so a new variant
    /// is classified here, once, for every reader of the log.
    pub fn subject(&self) -> Subject<'_> {
        match self {
            Event::ApprovalRequested { approval } | Event::ApprovalUpdated { approval } => {
                Subject::Approval {
                    approval,
                    settled: false,
                }
            }
            Event::ApprovalSettled { approval } => Subject::Approval {
                approval,
                settled: true,
            },
            Event::GrantCreated { grant }
            | Event::GrantUsed { grant, .. }
            | Event::GrantRevoked { grant }
            | Event::GrantExpired { grant }
            | Event::GrantInvalidated { grant, .. } => Subject::Grant {
                requester: grant.grant.constraints.requester.as_deref(),
                run_id: &grant.grant.run_id,
            },
            Event::RunEnded { run_id, requester } => Subject::Run {
                run_id,
                requester: requester.as_deref(),
                approval_id: None,
            },
            Event::RunPaused { run } | Event::RunResumed { run } => Subject::Run {
                run_id: &run.run_id,
                requester: None,
                approval_id: run.approval_id.as_deref(),
            },
            Event::PolicyChanged { .. }
            | Event::CredentialReleased { .. }
            | Event::CampaignUpdated { .. }
            | Event::CampaignStopped { .. } => Subject::Nobody,
            Event::ApprovalWaiting { .. } => Subject::Waiting,
            Event::Reset {} => Subject::Reset,
        }
    }
}

/// What an event is about: whose it is, which approval, grant or run it names, and whether it
/// may move prompts it does not name. The one classification every reader of the log starts
/// from (an agent's event stream and an agent's webhooks keep that agent's own events; a
/// waiting gate wakes for its own approval), each keeping only its own rule on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject<'a> {
    /// An approval was requested, grew or settled (`settled`: this event settled it, and
    /// carries the answer). Its requester's, in its run; it moves that prompt only.
    Approval {
        approval: &'a Approval,
        settled: bool,
    },
    /// A grant was made, used, revoked, expired or invalidated. Its requester's (`None`: a
    /// grant limited to no agent, so no one agent's), in its run; it moves no prompt.
    Grant {
        requester: Option<&'a str>,
        run_id: &'a str,
    },
    /// A run ended (`requester`: only that agent's part of it), or was paused or resumed
    /// (`approval_id`: the unanswered approval that held it). It may move prompts it does not
    /// name: the run's.
    Run {
        run_id: &'a str,
        requester: Option<&'a str>,
        approval_id: Option<&'a str>,
    },
    /// The policy changed, a credential was released, a campaign moved: no agent's, and it
    /// moves no prompt.
    Nobody,
    /// Who waits on a prompt changed (`approval.waiting`): live only, never in the log, and it
    /// moves no prompt.
    Waiting,
    /// A stream's word to refetch everything (`reset`): everyone's, and any prompt may have
    /// moved.
    Reset,
}

impl Subject<'_> {
    /// Whether the event may move prompts it does not name (a run's end, pause or resumption;
    /// a reset): a reader waiting on one prompt must look at it again.
    pub fn moves_unnamed_prompts(&self) -> bool {
        match self {
            Subject::Run { .. } | Subject::Reset => true,
            Subject::Approval { .. }
            | Subject::Grant { .. }
            | Subject::Nobody
            | Subject::Waiting => false,
        }
    }
}

/// An event with its persisted, increasing id (the SSE `id:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EventEnvelope {
    pub id: i64,
    pub at: DateTime<Utc>,
    #[serde(flatten)]
    pub event: Event,
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
