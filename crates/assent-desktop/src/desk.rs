//! The desk's live picture of the service: pending prompts, grants and the connection,
//! kept current from the event stream. Pure: the live task feeds it, the UI and tray read it.

use std::collections::{BTreeMap, VecDeque};

use assent_core::ApprovalStatus;
use assent_protocol::{Approval, Event, Grant, Me, RunState};
use serde::Serialize;

/// The connection to the service as the person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Link {
    Connecting,
    Connected,
    Disconnected { reason: String },
}

/// What an event asks of the live task besides updating the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Follow {
    /// Nothing else.
    Nothing,
    /// Refetch pending prompts and grants (a `reset`).
    Refetch,
    /// Show a notification that belongs to no prompt (a fleet campaign stopped).
    Notify(crate::prompt::PromptNotice),
}

/// The live picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desk {
    pub link: Link,
    /// Who the service says this desk signs in as (`GET /v1/me`, fetched on every
    /// (re)connect): what it may decide comes from here, never from a local setting.
    pub me: Option<Me>,
    pending: BTreeMap<String, Approval>,
    grants: BTreeMap<String, Grant>,
    /// Runs paused by an unanswered prompt, waiting for a person to resume them.
    held_runs: BTreeMap<String, RunState>,
    /// Prompts that settled while listed here, newest first, at most [`SETTLED_KEPT`]: the
    /// window says who decided a prompt it had on screen, and when.
    settled: VecDeque<Approval>,
}

/// How many settled prompts the desk keeps for the window (the web desk keeps as many).
pub const SETTLED_KEPT: usize = 16;

impl Default for Desk {
    fn default() -> Self {
        Desk {
            link: Link::Connecting,
            me: None,
            pending: BTreeMap::new(),
            grants: BTreeMap::new(),
            held_runs: BTreeMap::new(),
            settled: VecDeque::new(),
        }
    }
}

/// What the window shows: pending prompts newest first and every grant known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeskSnapshot {
    pub link: Link,
    /// Who this desk signs in as, with the roles the service holds for them.
    pub me: Option<Me>,
    pub pending: Vec<Approval>,
    pub grants: Vec<Grant>,
    /// Runs paused by an unanswered prompt (most recently paused first); resuming is a person's call.
    pub held_runs: Vec<RunState>,
    /// Set while notifications are paused (RFC 3339 end, or `"until_resumed"`).
    pub paused: Option<String>,
    /// Prompts that settled while listed (newest first), as the service settled them: who
    /// decided, when, how. The window marks a prompt it had on screen with it.
    pub settled: Vec<Approval>,
}

impl Desk {
    /// Replaces everything with a fresh fetch (on every (re)connect and `reset`).
    pub fn replace(&mut self, pending: Vec<Approval>, grants: Vec<Grant>, held: Vec<RunState>) {
        self.held_runs = held
            .into_iter()
            .map(|run| (run.run_id.clone(), run))
            .collect();
        self.pending = pending
            .into_iter()
            .filter(|approval| approval.status == ApprovalStatus::Requested)
            .map(|approval| (approval.approval_id.clone(), approval))
            .collect();
        self.grants = grants
            .into_iter()
            .map(|grant| (grant.grant.grant_id.clone(), grant))
            .collect();
    }

    /// Applies one event of the stream.
    pub fn apply(&mut self, event: &Event) -> Follow {
        match event {
            Event::ApprovalRequested { approval } | Event::ApprovalUpdated { approval } => {
                if approval.status == ApprovalStatus::Requested {
                    let mut approval = approval.clone();
                    // Events count no waiting agents (the list and `approval.waiting` do):
                    // keep what they said.
                    if let Some(known) = self.pending.get(&approval.approval_id) {
                        approval.agents_waiting = known.agents_waiting;
                        approval
                            .agents_stopped_waiting_at
                            .clone_from(&known.agents_stopped_waiting_at);
                    }
                    self.pending.insert(approval.approval_id.clone(), approval);
                } else {
                    self.left(approval);
                }
            }
            Event::ApprovalSettled { approval } => self.left(approval),
            Event::ApprovalWaiting {
                approval_id,
                agents_waiting,
                stopped_waiting_at,
            } => {
                if let Some(approval) = self.pending.get_mut(approval_id) {
                    approval.agents_waiting = *agents_waiting;
                    approval.agents_stopped_waiting_at = *stopped_waiting_at;
                }
            }
            Event::GrantCreated { grant }
            | Event::GrantUsed { grant, .. }
            | Event::GrantRevoked { grant }
            | Event::GrantExpired { grant }
            | Event::GrantInvalidated { grant, .. } => {
                self.grants
                    .insert(grant.grant.grant_id.clone(), grant.clone());
            }
            // One agent's part of a run: its prompts only; the run's hold is the run's.
            Event::RunEnded {
                run_id,
                requester: Some(requester),
            } => {
                self.pending.retain(|_, approval| {
                    &approval.run_id != run_id || &approval.requester != requester
                });
            }
            Event::RunEnded {
                run_id,
                requester: None,
            } => {
                self.pending
                    .retain(|_, approval| &approval.run_id != run_id);
                self.held_runs.remove(run_id);
            }
            Event::RunPaused { run } => {
                self.held_runs.insert(run.run_id.clone(), run.clone());
            }
            Event::RunResumed { run } => {
                self.held_runs.remove(&run.run_id);
            }
            // Nothing the desk lists changes: the Insights view refetches its suggestions.
            Event::PolicyChanged { .. } | Event::CredentialReleased { .. } => {}
            Event::CampaignUpdated { .. } => {}
            Event::CampaignStopped { campaign } => {
                return Follow::Notify(crate::campaign_notice::stopped_notice(campaign));
            }
            Event::Reset {} => return Follow::Refetch,
        }
        Follow::Nothing
    }

    /// A prompt settled: it leaves the list, and is kept (once) among the settled when it was
    /// listed here.
    fn left(&mut self, approval: &Approval) {
        if self.pending.remove(&approval.approval_id).is_none() {
            return;
        }
        self.settled
            .retain(|known| known.approval_id != approval.approval_id);
        self.settled.push_front(approval.clone());
        self.settled.truncate(SETTLED_KEPT);
    }

    /// Pending prompts, newest first (by last update, then id for a stable order).
    pub fn pending_newest_first(&self) -> Vec<&Approval> {
        let mut pending: Vec<&Approval> = self.pending.values().collect();
        pending.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| b.approval_id.cmp(&a.approval_id))
        });
        pending
    }

    pub fn pending(&self, approval_id: &str) -> Option<&Approval> {
        self.pending.get(approval_id)
    }

    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Prompts an agent may be blocked on: one waits, or none has stopped waiting yet.
    pub fn waited_on(&self) -> usize {
        self.pending
            .values()
            .filter(|a| a.agents_waiting > 0 || a.agents_stopped_waiting_at.is_none())
            .count()
    }

    /// Grants, newest first.
    pub fn grants_newest_first(&self) -> Vec<&Grant> {
        let mut grants: Vec<&Grant> = self.grants.values().collect();
        grants.sort_by_key(|grant| std::cmp::Reverse(grant.grant.created_at));
        grants
    }

    /// Paused runs, most recently paused first.
    pub fn held_runs_newest_first(&self) -> Vec<&RunState> {
        let mut runs: Vec<&RunState> = self.held_runs.values().collect();
        runs.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| a.run_id.cmp(&b.run_id))
        });
        runs
    }

    pub fn snapshot(&self, paused: Option<String>) -> DeskSnapshot {
        DeskSnapshot {
            link: self.link.clone(),
            me: self.me.clone(),
            pending: self.pending_newest_first().into_iter().cloned().collect(),
            grants: self.grants_newest_first().into_iter().cloned().collect(),
            held_runs: self.held_runs_newest_first().into_iter().cloned().collect(),
            paused,
            settled: self.settled.iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
#[path = "desk_tests.rs"]
mod tests;
