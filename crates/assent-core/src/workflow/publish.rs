//! Whether a run may publish (drill 2): when the run changed CI, security, dependency or lock
//! files, its PR is asked only while each of those diff approvals is approved and current —
//! on the PR's base commit, and not replaced by a later, different diff of its files.
//! Otherwise the PR is blocked with a reason naming the diff approval that is missing.

use chrono::{DateTime, Utc};

use crate::approval::status::ApprovalStatus;
use crate::evidence::{DiffApprovalRef, DiffApprovalState, DiffFlag, DiffPacket};

/// One of the run's diff approvals, as the service stored it.
#[derive(Debug, Clone, Copy)]
pub struct DiffReviewed<'a> {
    pub approval_id: &'a str,
    pub summary: &'a str,
    pub status: ApprovalStatus,
    pub packet: &'a DiffPacket,
    /// When it was asked: only a diff asked strictly later replaces it (on a tie both count).
    pub created_at: DateTime<Utc>,
}

/// What the run's diff approvals say about publishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrGate {
    /// The diff approvals the PR depends on, each with its state (the PR packet shows them).
    pub diff_approvals: Vec<DiffApprovalRef>,
    /// Why the PR may not be asked now; `None` when every one is current.
    pub blocked: Option<String>,
}

/// The flags whose diff approvals a PR waits for.
const GATING: &[DiffFlag] = &[
    DiffFlag::WorkflowChanged,
    DiffFlag::SecurityChanged,
    DiffFlag::DependencyChanged,
    DiffFlag::LockfileChanged,
];

/// Where a PR request stands: its base commit (HEAD) and the commits HEAD descends from.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrBase<'a> {
    pub sha: Option<&'a str>,
    /// `context.head_ancestors`: a review asked at one of these was committed since.
    pub ancestors: &'a [String],
}

impl PrBase<'_> {
    /// Whether a change reviewed at `reviewed` is part of what this PR publishes.
    fn contains(&self, reviewed: Option<&str>) -> bool {
        reviewed == self.sha || reviewed.is_some_and(|r| self.ancestors.iter().any(|a| a == r))
    }
}

/// The PR gate of a run whose diff approvals are `reviews` (listed in this order) for a PR
/// request at `base`.
pub fn pr_gate(reviews: &[DiffReviewed<'_>], base: PrBase<'_>) -> PrGate {
    let mut diff_approvals = Vec::new();
    let mut blocked = None;
    for review in reviews {
        let gating = review.packet.flags.iter().any(|f| GATING.contains(f));
        if !gating || replaced(review, reviews) {
            continue;
        }
        let (state, reason) = state_of(review, base);
        if state != DiffApprovalState::Current && blocked.is_none() {
            let why = match (state, &reason) {
                (DiffApprovalState::Pending, _) => "still pending".to_owned(),
                (DiffApprovalState::Denied, _) => "it was denied or timed out".to_owned(),
                (_, Some(reason)) => format!("stale: {reason}"),
                (_, None) => "stale".to_owned(),
            };
            blocked = Some(format!(
                "publishing needs the diff review of {} (approval {}) approved first: {why}",
                files_of(review.packet),
                review.approval_id
            ));
        }
        diff_approvals.push(DiffApprovalRef {
            approval_id: review.approval_id.to_owned(),
            summary: review.summary.to_owned(),
            state,
            reason,
        });
    }
    PrGate {
        diff_approvals,
        blocked,
    }
}

/// Whether every file of `review` has a later, different diff among `all`: the later
/// approvals stand in for it (each is judged on its own).
fn replaced(review: &DiffReviewed<'_>, all: &[DiffReviewed<'_>]) -> bool {
    let packet = review.packet;
    !packet.files.is_empty()
        && packet.files.iter().all(|file| {
            all.iter().any(|l| {
                l.created_at > review.created_at
                    && l.packet.diff_fingerprint != packet.diff_fingerprint
                    && l.packet.files.iter().any(|f| f.path == file.path)
            })
        })
}

/// A diff approval's state for a PR at `base`, and why when stale.
fn state_of(review: &DiffReviewed<'_>, base: PrBase<'_>) -> (DiffApprovalState, Option<String>) {
    match review.status {
        ApprovalStatus::Requested => (DiffApprovalState::Pending, None),
        ApprovalStatus::ApprovedOnce
        | ApprovalStatus::ApprovedForRun
        | ApprovalStatus::ApprovedForPolicyScope => {
            let reviewed = review.packet.base_sha.as_deref();
            if base.contains(reviewed) {
                (DiffApprovalState::Current, None)
            } else {
                let reason = format!(
                    "base commit changed {} → {}",
                    short(reviewed),
                    short(base.sha)
                );
                (DiffApprovalState::Stale, Some(reason))
            }
        }
        ApprovalStatus::NotRequired
        | ApprovalStatus::Denied
        | ApprovalStatus::Expired
        | ApprovalStatus::Revoked
        | ApprovalStatus::Blocked => (DiffApprovalState::Denied, None),
    }
}

/// A commit as people read it: its first 12 characters, or "(none)".
fn short(sha: Option<&str>) -> String {
    sha.map_or_else(|| "(none)".to_owned(), |s| crate::text::first_chars(s, 12))
}

/// "a.yml", "a.yml and b.yml", "a.yml and 2 more files".
fn files_of(packet: &DiffPacket) -> String {
    let mut names = packet.files.iter().map(|f| f.path.as_str());
    match (names.next(), names.next(), packet.files.len()) {
        (None, _, _) => "its files".to_owned(),
        (Some(one), None, _) => one.to_owned(),
        (Some(a), Some(b), 2) => format!("{a} and {b}"),
        (Some(a), Some(_), n) => format!("{a} and {} more files", n - 1),
    }
}

#[cfg(test)]
#[path = "publish_tests.rs"]
mod tests;
