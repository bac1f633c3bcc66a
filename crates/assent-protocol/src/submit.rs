use assent_core::RiskDecision;
use serde::{Deserialize, Serialize};

/// The body of `POST /v1/actions` is an [`assent_core::ActionRequest`].
/// This is its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SubmitResponse {
    pub action_id: String,
    pub action_hash: String,
    /// The policy's decision, risk, reasons, rule, role, profile and offered scopes:
    /// flattened, each a field of the answer.
    #[serde(flatten)]
    pub facts: RiskDecision,
    pub status: SubmitStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
}

/// What the agent may do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubmitStatus {
    /// Auto, or covered by a grant (`grant_id` says which).
    Allowed,
    /// The policy forbids it; never offered for approval.
    Blocked,
    /// A person decides; wait on `GET /v1/approvals/{approval_id}?wait=`.
    Pending,
    /// A person already denied an equivalent action in this run (`approval_id` names that
    /// approval, `reasons` carry their reason): not asked again.
    Denied,
    /// A person would decide. Only `POST /v1/actions/screen` answers this: it opens no
    /// prompt and records nothing for it (a later `POST /v1/actions` asks).
    WouldAsk,
}

/// `POST /v1/actions/executed`: the agent reports that it ran an action it submitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecutedRequest {
    pub run_id: String,
    /// The idempotency key the action was submitted with (Claude Code: `tool_use_id`).
    pub idempotency_key: String,
    /// The action that ran, for when none was submitted under the key: an agent whose
    /// permission step carries no call id (Codex's PermissionRequest) submitted it without
    /// one. The report then names the run's latest not yet executed action with the same
    /// action hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<assent_core::ActionRequest>,
}

/// The answer: whether an auto decision, a grant or an approval covered what ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExecutedResponse {
    pub action_id: String,
    /// False means the agent ran something Assent never allowed: the audit flags it.
    pub covered: bool,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, reason = "tests")]

    use assent_core::{Decision, RiskLevel, Role, ScopeKind};
    use serde_json::json;

    use super::*;

    fn answer(required_role: Option<Role>, profile: Option<&str>) -> SubmitResponse {
        SubmitResponse {
            action_id: "a1".to_owned(),
            action_hash: "h1".to_owned(),
            facts: RiskDecision {
                decision: Decision::Ask,
                risk: RiskLevel::Medium,
                reasons: vec!["runs the tests".to_owned()],
                rule: "profile.cargo-test".to_owned(),
                required_role,
                profile: profile.map(str::to_owned),
                offered_scopes: vec![ScopeKind::Once, ScopeKind::Run],
            },
            status: SubmitStatus::Pending,
            approval_id: Some("p1".to_owned()),
            grant_id: None,
        }
    }

    #[test]
    fn the_decisions_facts_sit_at_the_answers_top_level() {
        let wire = serde_json::to_value(answer(Some(Role::RepoMaintainer), Some("cargo-test")))
            .expect("an answer serializes");
        assert_eq!(
            wire,
            json!({
                "action_id": "a1", "action_hash": "h1", "decision": "ask", "risk": "medium",
                "reasons": ["runs the tests"], "rule": "profile.cargo-test",
                "required_role": "repo_maintainer", "profile": "cargo-test",
                "offered_scopes": ["once", "run"], "status": "pending", "approval_id": "p1",
            }),
            "the flattened facts keep every field's name at the top level of the answer"
        );
    }

    #[test]
    fn an_answer_without_role_or_profile_leaves_them_out() {
        let wire = serde_json::to_value(answer(None, None)).expect("an answer serializes");
        let fields = wire.as_object().expect("an object");
        assert!(
            !fields.contains_key("required_role") && !fields.contains_key("profile"),
            "an absent role or profile is left out of the wire, as before: {wire}"
        );
    }

    #[test]
    fn an_answer_stored_before_offered_scopes_still_reads() {
        // An idempotency replay reads the answer recorded when the action was submitted;
        // those recorded before the answer carried `offered_scopes` have none.
        let stored = json!({
            "action_id": "a1", "action_hash": "h1", "decision": "block", "risk": "high",
            "reasons": ["reads a secret"], "rule": "block.secret_path", "status": "blocked",
        });
        let read: SubmitResponse =
            serde_json::from_value(stored).expect("an answer stored before still reads");
        assert_eq!(
            (
                read.facts.rule.as_str(),
                read.facts.offered_scopes.len(),
                read.facts.profile
            ),
            ("block.secret_path", 0, None),
            "the facts read from the flat document; missing scopes are none"
        );
    }
}
