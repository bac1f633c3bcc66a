//! What happens when nobody answers a prompt in time, per its `fallback_on_timeout`.

use crate::types::FallbackOnTimeout;

/// What the members of an approval nobody answered are told.
pub const NOBODY_ANSWERED: &str = "nobody answered in time";

/// How a run is held after a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldPlan {
    /// Non-auto requests are blocked until an approver resumes the run.
    Pause,
    /// The run ends: its pending prompts close, its run grants expire, everything is blocked.
    Cancel,
}

/// What a timeout does: settle the prompt as timed out with `reason`, then maybe hold its run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeoutPlan {
    /// The settlement's reason (every member's audit record says it).
    pub reason: String,
    /// The hold on the run, with the reason the run's later requests are blocked with.
    pub hold: Option<(HoldPlan, String)>,
}

/// What the timeout of approval `approval_id` of run `run_id` does under `fallback`.
pub fn on_timeout(fallback: FallbackOnTimeout, run_id: &str, approval_id: &str) -> TimeoutPlan {
    match fallback {
        FallbackOnTimeout::Deny => TimeoutPlan {
            reason: NOBODY_ANSWERED.to_owned(),
            hold: None,
        },
        FallbackOnTimeout::Pause => TimeoutPlan {
            reason: format!(
                "{NOBODY_ANSWERED}; run {run_id} is paused awaiting a person (fallback_on_timeout = pause)"
            ),
            hold: Some((
                HoldPlan::Pause,
                format!(
                    "run {run_id} is paused awaiting a person: approval {approval_id} went \
                     unanswered; an approver must resume the run (POST /v1/runs/{run_id}/resume)"
                ),
            )),
        },
        FallbackOnTimeout::CancelRun => TimeoutPlan {
            reason: format!(
                "{NOBODY_ANSWERED}; run {run_id} is cancelled (fallback_on_timeout = cancel_run)"
            ),
            hold: Some((
                HoldPlan::Cancel,
                format!(
                    "run cancelled: approval {approval_id} went unanswered \
                     (fallback_on_timeout = cancel_run)"
                ),
            )),
        },
    }
}

/// Who a settlement nobody decided names: `timeout`, or `run-end` when its run ended.
pub fn closed_by(timed_out: bool) -> &'static str {
    if timed_out {
        "timeout"
    } else {
        "run-end"
    }
}
