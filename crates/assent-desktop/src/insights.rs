//! What the window's Insights view shows, fetched with the desk's token (the window holds
//! none): the service's metrics, and the audited decisions since the day the page chose,
//! trimmed to what its charts count. The tallies are the page's (`ui/src/insights.ts`).

use std::collections::HashSet;
use std::future::Future;

use assent_client::{Client, ClientError};
use assent_core::{ApprovalAuditEvent, AuditDecision};
use assent_protocol::Metrics;
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

/// The furthest back the view may look, in days.
pub const MAX_DAYS: i64 = 92;
/// The most events `GET /v1/audit` answers in one call.
const AUDIT_PAGE: usize = 10_000;
/// The most pages read for one view: ≈50 000 trimmed events, a few MB on the window's link.
const MAX_PAGES: usize = 5;

/// The answer to `insights_get`.
#[derive(Debug, Clone, Serialize)]
pub struct Insights {
    /// Totals, per rule and per command profile, since the service started.
    pub metrics: Metrics,
    pub since: DateTime<Utc>,
    /// Oldest first.
    pub events: Vec<InsightEvent>,
    /// False when the audit since `since` holds more than one view reads: the newest days are
    /// then missing from `events`, and the page says so.
    pub complete: bool,
}

/// One audited decision with only what the charts count, under the audit's own field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InsightEvent {
    pub timestamp: DateTime<Utc>,
    pub decision: AuditDecision,
    pub run_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Set when the event is about an action (a prompt's member, a submission), not a grant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// Who decided, on an `approved` or `denied`: `reviewer:<model>` when the model did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approver: Option<String>,
    /// On a `reviewed` event: what the reviewer's call came to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<InsightReview>,
}

/// A reviewer's call trimmed to what the charts count (its rationale stays in History).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InsightReview {
    /// `approved`, `advised`, `failed`, `not_eligible`.
    pub state: String,
    /// `approve` or `ask_person`, when it gave a verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

impl InsightEvent {
    /// The event trimmed; `None` for what no chart counts (grant uses, executions,
    /// revocations, invalidations, resumed runs, forgotten denials, policy changes): the bulk
    /// of a busy audit.
    fn of(event: ApprovalAuditEvent) -> Option<InsightEvent> {
        match event.decision {
            AuditDecision::Auto
            | AuditDecision::Approved
            | AuditDecision::Denied
            | AuditDecision::Blocked
            | AuditDecision::Expired
            | AuditDecision::Reviewed => Some(InsightEvent {
                timestamp: event.timestamp,
                decision: event.decision,
                run_id: event.run_id,
                approval_id: event.approval_id,
                action_id: event.action_id,
                repo: event.repo,
                approver: match event.decision {
                    AuditDecision::Approved | AuditDecision::Denied => event.approver,
                    _ => None,
                },
                review: event.review.map(|r| InsightReview {
                    state: r.state,
                    outcome: r.outcome,
                }),
            }),
            AuditDecision::Revoked
            | AuditDecision::Invalidated
            | AuditDecision::Used
            | AuditDecision::Executed
            | AuditDecision::Resumed
            | AuditDecision::Forgotten
            | AuditDecision::PolicyChanged
            | AuditDecision::CredentialReleased => None,
            AuditDecision::Stopped | AuditDecision::Reported => None,
            AuditDecision::Invited
            | AuditDecision::Enrolled
            | AuditDecision::PasskeyRemoved
            | AuditDecision::SignedIn => None,
            AuditDecision::WebhookAdded | AuditDecision::WebhookRemoved => None,
            AuditDecision::Asked | AuditDecision::Escalated => None,
        }
    }
}

/// Why the page's `since` is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SinceError {
    #[error("insights start in the future")]
    Future,
    #[error("insights look back at most {MAX_DAYS} days")]
    TooOld,
}

/// `since` if the view may start there at `now`.
pub fn check_since(since: DateTime<Utc>, now: DateTime<Utc>) -> Result<DateTime<Utc>, SinceError> {
    if since > now {
        Err(SinceError::Future)
    } else if now - since > TimeDelta::days(MAX_DAYS) {
        Err(SinceError::TooOld)
    } else {
        Ok(since)
    }
}

/// The metrics and the trimmed audit since `since`, fetched at the same time.
pub async fn gather(client: &Client, since: DateTime<Utc>) -> Result<Insights, ClientError> {
    let audit = read_audit(
        |from| client.audit(Some(from), None),
        since,
        AUDIT_PAGE,
        MAX_PAGES,
    );
    let (metrics, (events, complete)) = futures::try_join!(client.metrics(), audit)?;
    Ok(Insights {
        metrics,
        since,
        events,
        complete,
    })
}

/// Reads the audit from `since` a page at a time (each page starts at the last event's time:
/// the events at that instant come again and are skipped by id), trimming as it goes. Stops
/// at a short page (complete) or after `max_pages` (not complete).
async fn read_audit<F, Fut>(
    mut page: F,
    since: DateTime<Utc>,
    page_len: usize,
    max_pages: usize,
) -> Result<(Vec<InsightEvent>, bool), ClientError>
where
    F: FnMut(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Vec<ApprovalAuditEvent>, ClientError>>,
{
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut from = since;
    for _ in 0..max_pages {
        let events = page(from).await?;
        let full = events.len() >= page_len;
        let mut fresh = false;
        for event in events {
            if !seen.insert(event.event_id.clone()) {
                continue;
            }
            fresh = true;
            from = from.max(event.timestamp);
            kept.extend(InsightEvent::of(event));
        }
        if !full {
            return Ok((kept, true));
        }
        if !fresh {
            // A whole page at one instant: paging by time cannot get past it.
            break;
        }
    }
    Ok((kept, false))
}

#[cfg(test)]
#[path = "insights_tests.rs"]
mod tests;
