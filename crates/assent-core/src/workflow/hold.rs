//! A run held by a timeout fallback answers its own submissions.

use crate::decision::RiskDecision;
use crate::types::Decision;

/// Whether a run may still ask (the store's `run_holds` row, or `Running` without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunHold<'a> {
    Running,
    /// Paused by an unanswered prompt; `reason` says how to resume it.
    Paused {
        reason: Option<&'a str>,
    },
    /// Cancelled by an unanswered prompt; every later request is blocked.
    Cancelled {
        reason: Option<&'a str>,
    },
    /// Not started yet: its pre-run (or campaign) approval is pending or was refused; every
    /// request is blocked with `reason` ("run awaiting pre-run approval").
    AwaitingApproval {
        reason: Option<&'a str>,
    },
}

/// The decision a submission gets from its held run: blocked with the hold's reason. A paused
/// run blocks what is not auto (never silently allowed, not even by a grant); a cancelled run
/// blocks everything. `None` when the hold does not apply and `decision` stands.
pub fn held_decision(
    hold: RunHold<'_>,
    run_id: &str,
    decision: &RiskDecision,
) -> Option<RiskDecision> {
    let (rule, reason) = match hold {
        RunHold::Running => return None,
        RunHold::Paused { .. } if decision.decision == Decision::Auto => return None,
        RunHold::Paused { reason } => ("run.paused", reason),
        RunHold::Cancelled { reason } => ("run.cancelled", reason),
        RunHold::AwaitingApproval { reason } => ("run.pre_run", reason),
    };
    let mut blocked = decision.clone();
    blocked.decision = Decision::Block;
    blocked.rule = rule.to_owned();
    blocked.reasons = vec![reason.map_or_else(|| format!("run {run_id} is held"), str::to_owned)];
    blocked.offered_scopes.clear();
    blocked.required_role = None;
    Some(blocked)
}
