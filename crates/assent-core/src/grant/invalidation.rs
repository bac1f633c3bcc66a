//! Grants that stop counting because what they were bound to moved: the repository's base
//! commit, or the diff a grant approved (seed section 15: "a grant from yesterday should not
//! authorize a different context today").

use chrono::{DateTime, Utc};

use crate::evaluation::{batch_key_at, Evaluation};
use crate::grant::matching::{covers_as, Moving};
use crate::grant::ApprovalGrant;
use crate::request::canon::action_hash;
use crate::request::ActionRequest;
use crate::text::first_chars;

/// How the action a grant was bound to moved under it: (what the grant was bound to, what the
/// request is at), for the base commit and the diff fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub base_commit: Option<(String, String)>,
    pub diff: Option<(String, String)>,
}

impl Moved {
    /// For people, with short ids: "base commit changed abc1234 → def5678", "diff changed
    /// (a1b2c3d4 → e5f6a7b8)", or both joined by "; ".
    pub fn reason(&self) -> String {
        let base = self.base_commit.as_ref().map(|(was, now)| {
            format!(
                "base commit changed {} → {}",
                first_chars(was, 7),
                first_chars(now, 7)
            )
        });
        let diff = self.diff.as_ref().map(|(was, now)| {
            format!(
                "diff changed ({} → {})",
                first_chars(was, 8),
                first_chars(now, 8)
            )
        });
        [base, diff]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The bound value and the request's, when both are known and differ.
fn changed(bound: Option<&String>, actual: Option<&String>) -> Option<(String, String)> {
    match (bound, actual) {
        (Some(was), Some(now)) if was != now => Some((was.clone(), now.clone())),
        _ => None,
    }
}

impl ApprovalGrant {
    /// Whether `request` (evaluated as `eval`, asked by `requester`) is this grant's action
    /// moved: `Some` exactly when the grant, active at `now` under the same policy version,
    /// would cover the request were the request at the grant's base commit and diff, and the
    /// request's base commit or diff fingerprint is known and differs from the one the grant
    /// is bound to.
    ///
    /// So every other bound field must match — requester, kind, run, batch key (the same
    /// profile or the same action apart from its diff), profile, repository, task type, paths,
    /// what was approved — and a request that simply does not match (another agent, another
    /// repository or worktree, another run, another command or file) leaves the grant alone. A request that does not say its base commit
    /// or diff does not move anything either: it is not covered and is asked, and the grant
    /// stays. Once moved, a grant is invalidated for good, even if the repository comes back
    /// to the old commit: the person approved that context, not whatever comes after.
    pub fn moved_by(
        &self,
        request: &ActionRequest,
        eval: &Evaluation,
        requester: &str,
        now: DateTime<Utc>,
    ) -> Option<Moved> {
        let c = &self.constraints;
        let ctx = &request.context;
        // Cheap refusals first: this runs for every live candidate of every asked request.
        let elsewhere = c
            .repo
            .as_ref()
            .is_some_and(|r| ctx.repo.as_ref() != Some(r))
            || c.run_id.as_ref().is_some_and(|r| r != &request.run_id)
            || c.requester.as_deref().is_some_and(|r| r != requester);
        if elsewhere {
            return None;
        }
        let moved = Moved {
            base_commit: changed(c.base_sha.as_ref(), ctx.base_sha.as_ref()),
            diff: changed(c.diff_fingerprint.as_ref(), ctx.diff_fingerprint.as_ref()),
        };
        if moved.base_commit.is_none() && moved.diff.is_none() {
            return None;
        }
        let base_sha = match &moved.base_commit {
            Some((was, _)) => Some(was.as_str()),
            None => ctx.base_sha.as_deref(),
        };
        let (hash, diff_fingerprint) = match &moved.diff {
            Some((was, _)) => {
                let mut canonical = eval.canonical.clone();
                canonical.diff_fingerprint = Some(was.clone());
                (action_hash(&canonical), Some(was.as_str()))
            }
            None => (eval.action_hash.clone(), ctx.diff_fingerprint.as_deref()),
        };
        let batch_fingerprint = if eval.approval_type() == crate::types::ApprovalType::Diff {
            diff_fingerprint
        } else {
            None
        };
        let batch_key = batch_key_at(request, &eval.decision, &hash, base_sha, batch_fingerprint);
        let at_grant = Moving {
            action_hash: &hash,
            batch_key: &batch_key,
            base_sha,
            diff_fingerprint,
        };
        covers_as(self, request, eval, requester, at_grant, now)
            .is_ok()
            .then_some(moved)
    }
}
