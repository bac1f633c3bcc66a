//! Test fixtures the crates' tests share: a pending approval as the service sends it.
//! Compiled for this crate's own tests and, with the `fixtures` feature, for the tests of the
//! crates that speak this protocol (a dev-dependency only).
//!
//! They live here rather than in `assent-test-support`, which depends on `assent-server` and so
//! on this crate: this crate's own unit tests could not use them from there (they would get a
//! second build of these types).
#![allow(clippy::expect_used, reason = "test fixtures")]

use assent_core::{
    ActionKind, ApprovalEvidence, ApprovalStatus, ApprovalType, Decision, FallbackOnTimeout,
    RequestedBy, RiskDecision, RiskLevel, ScopeKind,
};
use chrono::{DateTime, Utc};

use crate::words::PromptWords;
use crate::{Approval, Recommendation};

/// A fixed instant, `seconds` after the fixtures' epoch (2027-01-15T08:00:00Z).
pub fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("valid timestamp")
}

/// `mvn -q test` in repo `shop` (profile `maven-test`) in run `run-1`, requested by the agent
/// `default`: asking, medium risk, offering once and run, needing one approval, expiring in
/// ten minutes.
pub fn approval(id: &str) -> Approval {
    Approval {
        approval_id: id.to_owned(),
        run_id: "run-1".to_owned(),
        task_id: "task-1".to_owned(),
        repo: Some("shop".to_owned()),
        requested_by: RequestedBy::Agent,
        action_kind: ActionKind::Shell,
        approval_type: ApprovalType::Tool,
        status: ApprovalStatus::Requested,
        resolution: None,
        facts: RiskDecision {
            decision: Decision::Ask,
            risk: RiskLevel::Medium,
            reasons: ["runs the build tool", "writes target/**", "third reason"]
                .map(str::to_owned)
                .to_vec(),
            rule: "profile.maven-test".to_owned(),
            required_role: None,
            profile: Some("maven-test".to_owned()),
            offered_scopes: vec![ScopeKind::Once, ScopeKind::Run],
        },
        recommendation: Recommendation {
            decision: "approve".to_owned(),
            scope: Some(ScopeKind::Run),
            text: "Allow for this run".to_owned(),
        },
        evidence: ApprovalEvidence {
            summary: "Run maven-test in shop".to_owned(),
            command: Some(["mvn", "-q", "test"].map(str::to_owned).to_vec()),
            command_line: Some("mvn -q test".to_owned()),
            cwd: "/home/dev/shop".to_owned(),
            ..ApprovalEvidence::default()
        },
        batch_key: "bk-1".to_owned(),
        count: 1,
        members: Vec::new(),
        reason: "run the tests".to_owned(),
        created_at: at(0),
        updated_at: at(0),
        expires_at: at(600),
        fallback_on_timeout: FallbackOnTimeout::Deny,
        decided_at: None,
        decided_by: None,
        decision_reason: None,
        grant_id: None,
        decided_role: None,
        requester: "default".to_owned(),
        required_approvals: 1,
        approvals: Vec::new(),
        quick_decisions: Vec::new(),
        agents_waiting: 0,
        agents_stopped_waiting_at: None,
        quick_up_to: RiskLevel::Medium,
        step_up_url: None,
        review: None,
        asked: None,
        words: PromptWords::default(),
    }
}
