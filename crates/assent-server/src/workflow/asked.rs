//! A prompt the service opens on its own account — a run's start, a campaign's definition or
//! stage: what it is decided against, what it shows, and how it is recorded (as any ask is).

use assent_core::{ActionRequest, Decision, Environment, Policy, RiskLevel, Role};
use chrono::{DateTime, Utc};

use super::submit::{self, Deferred};
use crate::store::{StoreError, Submission, Submitted, Tx};

/// What a start is decided against.
#[derive(Debug, Clone, Copy)]
pub struct StartGround<'a> {
    pub requester: &'a str,
    pub policy: &'a Policy,
    pub env: &'a Environment,
    pub now: DateTime<Utc>,
}

/// Why a start (or a campaign call) is refused outright.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A prompt the service opens on its own account (a run's start, a campaign's definition or
/// stage): what it shows and who decides it.
#[derive(Debug, Clone)]
pub struct Asked {
    pub request: ActionRequest,
    pub evidence: assent_core::ApprovalEvidence,
    pub risk: RiskLevel,
    pub role: Role,
    pub required_approvals: u32,
    pub rule: &'static str,
    pub reasons: Vec<String>,
}

/// The submission that opens `asked`'s prompt: the request evaluated for its hash, batch key
/// and policy version, answered `escalate` to `asked.role` with `asked`'s evidence, offering
/// `once` (the approval is for this start or stage, nothing more).
pub fn prompt_submission(asked: Asked, ground: StartGround<'_>) -> Result<Submission, StartError> {
    let mut eval = assent_core::evaluate(ground.policy, &asked.request, ground.env)
        .map_err(|err| StartError::BadRequest(err.to_string()))?;
    let d = &mut eval.decision;
    d.decision = Decision::Escalate;
    d.risk = asked.risk;
    d.reasons = asked.reasons;
    d.rule = asked.rule.to_owned();
    d.required_role = Some(asked.role);
    d.profile = None;
    d.offered_scopes = vec![assent_core::ScopeKind::Once];
    // A start or stage is approved in the window, with its packet: no quick buttons.
    eval.quick_decisions.clear();
    eval.evidence = asked.evidence;
    let now = ground.now;
    Ok(Submission {
        action_id: crate::records::new_id(),
        requester: ground.requester.to_owned(),
        body_hash: eval.action_hash.clone(),
        request: asked.request,
        eval,
        now,
        approval_expires_at: now + ground.policy.approval_timeout(),
        fallback_on_timeout: assent_core::FallbackOnTimeout::Deny,
        required_approvals: asked.required_approvals,
        denials_since: ground.policy.deny_memory.remembered_since(now),
        screen: false,
        routed: ground.policy.routing.escalate_after().is_some(),
        reviewer_takes: false,
    })
}

/// Records `s` as any ask is recorded (a covering grant, a remembered denial, or a prompt
/// opened or joined), in the caller's transaction.
pub async fn record_prompt(
    tx: &mut dyn Tx,
    s: &Submission,
) -> Result<assent_protocol::SubmitResponse, StoreError> {
    let mut deferred = Deferred::default();
    let recorded = submit::record(tx, s, None, &mut deferred).await?;
    deferred.flush(tx).await?;
    match recorded {
        Submitted::Recorded(answer)
        | Submitted::Prompted(answer, _)
        | Submitted::Replayed(answer) => Ok(answer),
        Submitted::KeyReused => Err(StoreError::Conflict(
            "an idempotency key was reused".to_owned(),
        )),
    }
}
