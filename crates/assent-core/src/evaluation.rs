//! What an evaluation concludes about one request, and the batch key that groups equal
//! requests into one prompt: the output every sub-evaluator, grant and store shares.

use serde::{Deserialize, Serialize};

use crate::decision::{ActionRiskInput, RiskDecision};
use crate::evidence::ApprovalEvidence;
use crate::grant::quick::QuickDecision;
use crate::request::canon::CanonicalAction;
use crate::request::ActionRequest;

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
    /// What a person sees; its packet's `type` is the approval type ([`Evaluation::approval_type`]).
    pub evidence: ApprovalEvidence,
    /// Every ask, escalate and block rule the action triggers, strongest first: an exception
    /// grant covers it only when it sets all of them aside.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Whether an exception could set aside every rule it triggers (a blocked action is only
    /// ever covered by an exception grant, and only then).
    #[serde(default)]
    pub exceptionable: bool,
    /// What a person is offered: the quick decisions, each bounded as a grant of its scope is
    /// ([`crate::evaluate::offer`]); computed once here, stored with the prompt.
    #[serde(default)]
    pub quick_decisions: Vec<QuickDecision>,
}

impl Evaluation {
    /// `tool`, `diff`, `pr`, `credential`, `exception`…: the type of the evidence's packet,
    /// read from it rather than kept beside it, so the two can never disagree.
    pub fn approval_type(&self) -> crate::types::ApprovalType {
        self.evidence.approval_type()
    }
}

/// What a batch key is made of, in sorted field order (its JSON is canonical).
#[derive(Serialize)]
struct BatchKey<'a> {
    action_hash: Option<&'a str>,
    base_sha: Option<&'a str>,
    /// A diff approval's diff: equal diffs batch, different ones never join one prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_fingerprint: Option<&'a str>,
    profile: Option<&'a str>,
    repo: Option<&'a str>,
    run_id: &'a str,
}

/// Same run, same profile (or the same action when there is none), same constraints.
/// `diff_fingerprint` is set for diff approvals: equal diffs batch, different ones never do.
pub(crate) fn batch_key(
    request: &ActionRequest,
    decision: &RiskDecision,
    hash: &str,
    diff_fingerprint: Option<&str>,
) -> String {
    batch_key_at(
        request,
        decision,
        hash,
        request.context.base_sha.as_deref(),
        diff_fingerprint,
    )
}

/// The batch key of `request` (action hash `hash`) were it at base commit `base_sha` (and,
/// for a diff approval, diff `diff_fingerprint`): how grant invalidation recognises a run
/// grant's requests after the repository moved.
pub(crate) fn batch_key_at(
    request: &ActionRequest,
    decision: &RiskDecision,
    hash: &str,
    base_sha: Option<&str>,
    diff_fingerprint: Option<&str>,
) -> String {
    let key = BatchKey {
        action_hash: decision.profile.is_none().then_some(hash),
        base_sha,
        diff_fingerprint,
        profile: decision.profile.as_deref(),
        repo: request.context.repo.as_deref(),
        run_id: &request.run_id,
    };
    crate::request::canon::sha256_json_hex(&key)
}
