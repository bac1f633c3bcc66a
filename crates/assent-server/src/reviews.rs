//! The model reviewer's part in each prompt (`[reviewer]` in the policy), as this replica
//! knows it: what it did with each prompt, what it will do with a prompt being opened, and the
//! reviewer for the policy in force. The calls themselves are `crate::reviewing`'s.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use assent_core::reviewer::{eligibility, ReviewerConfig, ReviewerMode};
use assent_core::{ApprovalStatus, Policy};
use assent_protocol::{Approval, ApprovalReview, ReviewState};

use crate::reviewer::{Health, Reviewer};

/// What [`Reviews::expect`] recorded for a prompt about to open.
#[derive(Debug, Clone)]
pub struct Expected {
    pub batch_key: String,
    /// The reviewer may approve it alone (`decide` mode, eligible): an automated decision is
    /// expected.
    pub takes: bool,
}

/// The reviewer's part in each prompt, and the reviewer for the policy in force.
#[derive(Debug, Default)]
pub struct Reviews {
    /// Prompt id → what the reviewer did with it.
    book: Mutex<HashMap<String, ApprovalReview>>,
    /// Batch key → the reviewer's part in a prompt being opened now, known before its
    /// `approval.requested` is sent: desks hold the notification of one being reviewed.
    opening: Mutex<HashMap<String, ApprovalReview>>,
    /// The reviewer for the configuration in force (made again when it changes).
    reviewer: Mutex<Option<Reviewer>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Reviews {
    /// Before a submission that may open a prompt is recorded: what the reviewer will do with
    /// it, by its batch key; what was recorded (none: no reviewer, or it will only advise).
    /// Undo it with [`Reviews::unexpect`] when no prompt opened.
    pub fn expect(
        &self,
        evaluation: &assent_core::Evaluation,
        policy: &Policy,
    ) -> Option<Expected> {
        let config = policy.reviewer.as_ref()?;
        if config.mode != ReviewerMode::Decide || !evaluation.decision.decision.needs_person() {
            return None;
        }
        let eligible = eligibility(evaluation, policy, config.up_to);
        let takes = eligible.is_ok();
        let review = match eligible {
            Ok(()) => part(config, ReviewState::Reviewing, None, "reviewing".to_owned()),
            Err(not) => part(config, ReviewState::NotEligible, None, not.reason),
        };
        lock(&self.opening).insert(evaluation.batch_key.clone(), review);
        Some(Expected {
            batch_key: evaluation.batch_key.clone(),
            takes,
        })
    }

    /// Forgets what [`Reviews::expect`] recorded for `batch_key`: no new prompt of it is
    /// opening (a grant covered the request, or it joined a prompt already reviewed).
    pub fn unexpect(&self, batch_key: &str) {
        lock(&self.opening).remove(batch_key);
    }

    /// `approval` with the reviewer's part in it, as known here.
    pub fn annotate(&self, approval: &mut Approval, policy: &Policy) {
        if policy.reviewer.is_none() {
            return;
        }
        if approval.review.is_none() {
            approval.review = match lock(&self.book).get(&approval.approval_id) {
                Some(review) => Some(review.clone()),
                None if approval.status == ApprovalStatus::Requested => {
                    lock(&self.opening).get(&approval.batch_key).cloned()
                }
                None => None,
            };
        }
        let unavailable = self.health().is_some_and(|h| h.unavailable());
        if let Some(review) = approval.review.as_mut() {
            review.reviewer_unavailable = unavailable;
        }
    }

    /// The reviewer's health (`None`: none configured or none called yet).
    pub fn health(&self) -> Option<Arc<Health>> {
        lock(&self.reviewer).as_ref().map(|r| r.health.clone())
    }

    pub(crate) fn reviewer(&self, config: &ReviewerConfig) -> Option<Reviewer> {
        let mut current = lock(&self.reviewer);
        if current.as_ref().is_none_or(|r| &r.config != config) {
            match Reviewer::new(config.clone()) {
                Ok(reviewer) => *current = Some(reviewer),
                Err(err) => {
                    tracing::warn!(%err, "the reviewer's HTTP client could not be made");
                    return None;
                }
            }
        }
        current.clone()
    }

    /// Claims `approval_id` for one call; false when it was reviewed already (one call per
    /// prompt, however many requests join its batch).
    pub(crate) fn claim(&self, approval_id: &str, config: &ReviewerConfig) -> bool {
        let mut book = lock(&self.book);
        if book.contains_key(approval_id) {
            return false;
        }
        let state = match config.mode {
            ReviewerMode::Decide => ReviewState::Reviewing,
            ReviewerMode::Advise => ReviewState::Advised,
        };
        book.insert(
            approval_id.to_owned(),
            part(config, state, None, "reviewing".to_owned()),
        );
        true
    }

    pub(crate) fn settle(&self, approval_id: &str, batch_key: &str, review: ApprovalReview) {
        lock(&self.book).insert(approval_id.to_owned(), review);
        lock(&self.opening).remove(batch_key);
    }
}

pub(crate) fn part(
    config: &ReviewerConfig,
    state: ReviewState,
    verdict: Option<&assent_core::reviewer::Verdict>,
    rationale: String,
) -> ApprovalReview {
    ApprovalReview {
        model: config.model.clone(),
        outcome: verdict.map(|v| v.outcome.as_str().to_owned()),
        risk: verdict.map(|v| v.risk),
        rationale,
        state,
        reviewer_unavailable: false,
    }
}
