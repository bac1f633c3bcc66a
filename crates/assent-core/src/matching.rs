//! Grant matching: does a grant cover an action, and a fast index over many grants.

use chrono::{DateTime, Utc};

use crate::evaluate::Evaluation;
use crate::grant::{ApprovalGrant, GrantStatus, NotCovered};
use crate::request::ActionRequest;
use crate::types::{Decision, ScopeKind};

/// See [`ApprovalGrant::covers`].
pub fn covers(
    grant: &ApprovalGrant,
    request: &ActionRequest,
    eval: &Evaluation,
    now: DateTime<Utc>,
) -> Result<(), NotCovered> {
    if eval.decision.decision == Decision::Block {
        return Err(NotCovered::Blocked);
    }
    match grant.status(now) {
        GrantStatus::Active => {}
        GrantStatus::Expired => return Err(NotCovered::Expired),
        GrantStatus::Revoked => return Err(NotCovered::Revoked),
        GrantStatus::Exhausted => return Err(NotCovered::Exhausted),
    }
    if grant.policy_version != eval.policy_version {
        return Err(NotCovered::PolicyChanged);
    }
    if !grant.action_kinds.contains(&request.action.kind) {
        return Err(NotCovered::Mismatch("this kind of action"));
    }
    let c = &grant.constraints;
    if grant.scope_kind == ScopeKind::Once && c.action_hash.as_deref() != Some(&eval.action_hash) {
        return Err(NotCovered::Mismatch("this exact action"));
    }
    if c.action_hash.as_ref().is_some_and(|h| h != &eval.action_hash) {
        return Err(NotCovered::Mismatch("this exact action"));
    }
    if c.batch_key.as_ref().is_some_and(|k| k != &eval.batch_key) {
        return Err(NotCovered::Mismatch("this kind of request"));
    }
    if c.run_id.as_ref().is_some_and(|r| r != &request.run_id) {
        return Err(NotCovered::Mismatch("this run"));
    }
    if c.repo.is_some() && c.repo != request.context.repo {
        return Err(NotCovered::Mismatch("this repository"));
    }
    Ok(())
}
