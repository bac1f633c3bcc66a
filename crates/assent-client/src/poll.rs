//! How both clients wait for a decision: long polls of at most [`LONG_POLL_SLICE`], short
//! polls once less than a second is left, until the approval [`is_settled`].

use std::time::Duration;

/// Longest single long-poll; `wait_settled` repeats it until its own deadline.
pub const LONG_POLL_SLICE: Duration = Duration::from_secs(25);

/// Pause between short polls when less than a second of waiting is left.
pub(crate) const SHORT_POLL_PAUSE: Duration = Duration::from_millis(200);

/// How long one long-poll may hold, leaving a second for the answer to travel.
pub(crate) fn long_poll_wait(left: Duration) -> Duration {
    left.saturating_sub(Duration::from_secs(1))
        .min(LONG_POLL_SLICE)
}

/// Whether an approval has settled (approved, denied, expired, cancelled…).
pub fn is_settled(approval: &assent_protocol::Approval) -> bool {
    approval.resolution.is_some() || approval.status != assent_core::ApprovalStatus::Requested
}
