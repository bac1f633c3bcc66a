//! The approval status state machine (the seed's `ApprovalDecision`), with checked transitions.

use serde::{Deserialize, Serialize};

/// The nine states of an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    NotRequired,
    Requested,
    ApprovedOnce,
    ApprovedForRun,
    ApprovedForPolicyScope,
    Denied,
    Expired,
    Revoked,
    Blocked,
}

/// What can happen to an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalEvent {
    ApproveOnce,
    ApproveForRun,
    ApproveForPolicyScope,
    Deny,
    /// Its time ran out, or its run ended.
    Expire,
    Revoke,
}

/// An illegal transition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("approval cannot go from {from:?} by {event:?}")]
pub struct TransitionError {
    pub from: ApprovalStatus,
    pub event: ApprovalEvent,
}

impl ApprovalStatus {
    /// The status a fresh evaluation starts in.
    pub fn initial(decision: crate::Decision) -> Self {
        use crate::Decision::{Ask, Auto, Block, Escalate};
        match decision {
            Auto => ApprovalStatus::NotRequired,
            Block => ApprovalStatus::Blocked,
            Ask | Escalate => ApprovalStatus::Requested,
        }
    }

    /// Denied, expired, revoked, blocked and not-required never change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ApprovalStatus::NotRequired
                | ApprovalStatus::Denied
                | ApprovalStatus::Expired
                | ApprovalStatus::Revoked
                | ApprovalStatus::Blocked
        )
    }

    /// Whether the status lets the action run.
    pub fn is_approved(self) -> bool {
        matches!(
            self,
            ApprovalStatus::ApprovedOnce
                | ApprovalStatus::ApprovedForRun
                | ApprovalStatus::ApprovedForPolicyScope
        )
    }

    /// Applies one event, or says why it is illegal.
    pub fn apply(self, event: ApprovalEvent) -> Result<Self, TransitionError> {
        use ApprovalEvent as E;
        use ApprovalStatus as S;
        let next = match (self, event) {
            (S::Requested, E::ApproveOnce) => S::ApprovedOnce,
            (S::Requested, E::ApproveForRun) => S::ApprovedForRun,
            (S::Requested, E::ApproveForPolicyScope) => S::ApprovedForPolicyScope,
            (S::Requested, E::Deny) => S::Denied,
            (S::Requested, E::Expire) => S::Expired,
            (S::ApprovedOnce | S::ApprovedForRun | S::ApprovedForPolicyScope, E::Expire) => {
                S::Expired
            }
            (S::ApprovedOnce | S::ApprovedForRun | S::ApprovedForPolicyScope, E::Revoke) => {
                S::Revoked
            }
            (from, event) => return Err(TransitionError { from, event }),
        };
        Ok(next)
    }
}
