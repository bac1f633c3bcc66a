//! Which prompts a model may approve alone: decided by the policy, before any call.
//!
//! Only a plain *ask* at or below the configured risk, about nothing that publishes,
//! destroys, reaches credentials or secrets, changes CI, security or deployment, or needs
//! more than the task author. Everything else stays with a person whatever a model says.

use crate::evaluation::Evaluation;
use crate::policy::Policy;
use crate::types::{
    ApprovalType, CommandRisk, CredentialRisk, Decision, NetworkRisk, PathRisk, RiskLevel, Role,
};

/// Why a prompt stays with a person: shown beside the reviewer's advice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotEligible {
    /// A short phrase: "publishing stays with a person".
    pub reason: String,
}

/// Rules whose prompts a reviewer never approves, with the class they belong to.
const PERSON_ONLY_RULES: &[(&str, &str)] = &[
    ("ask.credential", "credentials"),
    ("ask.capability", "a credential capability"),
    ("escalate.capability", "a credential capability"),
    ("ask.secret_written", "a secret"),
    ("ask.delete", "deleting files"),
    ("ask.discard_work", "discarding work"),
    ("ask.history_rewrite", "rewriting history"),
    ("ask.git_push", "publishing"),
    ("ask.publish", "publishing"),
    ("ask.ci_config", "CI configuration"),
    ("ask.security_config", "security configuration"),
    ("ask.deploy_config", "deployment configuration"),
    ("ask.security_tooling", "security tooling"),
    ("ask.privileged", "running as another user"),
    ("ask.env_override", "changing how programs load"),
    ("ask.git_config", "git configuration"),
    ("ask.suspicious_text", "hidden characters"),
    ("ask.high_risk_task", "a high-risk task"),
];

/// Whether the reviewer may approve `evaluation` alone, when its risk is at most `up_to`.
/// The one place this is decided: the service asks it before any call in `decide` mode.
pub fn eligibility(
    evaluation: &Evaluation,
    policy: &Policy,
    up_to: RiskLevel,
) -> Result<(), NotEligible> {
    let no = |reason: &str| {
        Err(NotEligible {
            reason: reason.to_owned(),
        })
    };
    let decision = &evaluation.decision;
    match decision.decision {
        Decision::Ask => {}
        Decision::Auto => return no("the policy allows it without a review"),
        Decision::Block => return no("the policy blocks it"),
        Decision::Escalate => return no("it needs a person holding a role"),
    }
    match evaluation.approval_type() {
        ApprovalType::Tool | ApprovalType::Diff => {}
        ApprovalType::Pr => return no("publishing stays with a person"),
        ApprovalType::Credential => return no("a credential capability stays with a person"),
        ApprovalType::PreRun => return no("a pre-run approval stays with a person"),
        ApprovalType::Exception => return no("an exception stays with a person"),
        ApprovalType::Fleet => return no("a fleet campaign stays with a person"),
    }
    if let crate::evidence::EvidenceDetail::Diff(packet) = &evaluation.evidence.detail {
        if !packet.flags.is_empty() {
            return no("a diff with risk flags stays with a person");
        }
    }
    if decision
        .required_role
        .is_some_and(|role| role != Role::TaskAuthor)
    {
        return no("it needs a person holding a role");
    }
    if policy.approvals_required(decision.required_role, &decision.rule) > 1 {
        return no("the policy wants more than one person");
    }
    if policy.approvals.step_up_holds(decision.risk) {
        return no("the policy wants a passkey for this risk");
    }
    let rules =
        std::iter::once(decision.rule.as_str()).chain(evaluation.rules.iter().map(String::as_str));
    for rule in rules {
        if let Some((_, class)) = PERSON_ONLY_RULES.iter().find(|(r, _)| *r == rule) {
            return no(&format!("{class} stays with a person"));
        }
    }
    let input = &evaluation.risk_input;
    if input.credential_risk != CredentialRisk::None {
        return no("credentials stay with a person");
    }
    match input.path_risk {
        PathRisk::Sensitive => return no("a secret path stays with a person"),
        PathRisk::Ci => return no("CI configuration stays with a person"),
        PathRisk::Security => return no("security configuration stays with a person"),
        PathRisk::Safe | PathRisk::Generated => {}
    }
    if input.command_risk == CommandRisk::Destructive {
        return no("a destructive command stays with a person");
    }
    if evaluation.evidence.suspicious_text {
        return no("hidden characters stay with a person");
    }
    if input.network_risk == NetworkRisk::Arbitrary && input.command_risk >= CommandRisk::Mutation {
        return no("a change beyond this machine stays with a person");
    }
    let up_to = up_to.min(RiskLevel::Medium);
    if decision.risk > up_to {
        return no(&format!(
            "{} risk is above what the reviewer may approve ({})",
            decision.risk.as_str(),
            up_to.as_str()
        ));
    }
    Ok(())
}
