//! The one entry point: a request in, a canonical action, its hash, risk and decision out.

use serde::{Deserialize, Serialize};

use crate::canon::{action_hash, canonicalize, CanonError, CanonicalAction};
use crate::decision::{ActionRiskInput, RiskDecision};
use crate::evidence::ApprovalEvidence;
use crate::policy::Policy;
use crate::request::ActionRequest;
use crate::types::{
    CommandRisk, CredentialRisk, Decision, NetworkRisk, PathRisk, RiskLevel, ScopeKind,
};

/// What the evaluation needs from the machine it runs on (no I/O happens in the core).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The user's home directory, for `~` and `$HOME`.
    pub home: String,
}

/// Everything the policy concluded about one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    pub canonical: CanonicalAction,
    pub action_hash: String,
    pub risk_input: ActionRiskInput,
    pub decision: RiskDecision,
    /// Equivalent pending requests share it and become one prompt.
    pub batch_key: String,
    pub policy_version: String,
    pub evidence: ApprovalEvidence,
}

/// A request that cannot be evaluated at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvaluateError {
    #[error(transparent)]
    Canon(#[from] CanonError),
}

/// Evaluates `request` under `policy`.
pub fn evaluate(
    policy: &Policy,
    request: &ActionRequest,
    env: &Environment,
) -> Result<Evaluation, EvaluateError> {
    let canonical = canonicalize(&request.action, &env.home)?;
    let hash = action_hash(&canonical);
    let risk_input = ActionRiskInput {
        action_kind: request.action.kind,
        run_mode: request.context.run_mode.unwrap_or_default(),
        repo_trust: request.context.repo_trust.unwrap_or_default(),
        path_risk: PathRisk::Safe,
        command_risk: CommandRisk::Mutation,
        network_risk: NetworkRisk::None,
        credential_risk: CredentialRisk::None,
        diff_risk: Default::default(),
        task_risk: request.context.task_risk.unwrap_or(RiskLevel::Low),
        policy_findings: Vec::new(),
    };
    let decision = RiskDecision {
        decision: Decision::Ask,
        risk: RiskLevel::Medium,
        reasons: vec!["the policy does not know this action".to_owned()],
        rule: "ask.unknown".to_owned(),
        required_role: None,
        profile: None,
        offered_scopes: vec![ScopeKind::Once, ScopeKind::Run],
    };
    let batch_key = format!("{}:{}", request.run_id, hash);
    let evidence = ApprovalEvidence {
        summary: format!("{:?} in {}", request.action.kind, request.action.cwd),
        command_line: request.action.command.clone(),
        cwd: request.action.cwd.clone(),
        ..ApprovalEvidence::default()
    };
    Ok(Evaluation {
        canonical,
        action_hash: hash,
        risk_input,
        decision,
        batch_key,
        policy_version: policy.version().to_owned(),
        evidence,
    })
}
