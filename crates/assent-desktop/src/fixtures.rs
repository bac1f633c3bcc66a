//! Test fixtures: a pending approval as the service sends it.
#![allow(clippy::expect_used, reason = "tests")]

use assent_core::{
    ActionKind, ApprovalEvidence, ApprovalStatus, Decision, FallbackOnTimeout, IdentityKind,
    RequestedBy, RiskLevel, Role, ScopeKind, ALL_ROLES,
};
use assent_protocol::{Approval, Me, Recommendation};
use chrono::{DateTime, Utc};

pub fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("valid timestamp")
}

/// A person as `GET /v1/me` answers for them.
pub fn person(name: &str, roles: &[Role]) -> Me {
    Me {
        name: name.to_owned(),
        kind: IdentityKind::Person,
        roles: roles.to_vec(),
    }
}

/// The local install's owner: a person holding every role (the embedded desk signs in as them).
pub fn owner() -> Me {
    person("owner", &ALL_ROLES)
}

/// `mvn -q test` in repo `shop`, requested by the agent `default`, asking, medium risk,
/// offering once and run, needing one approval.
pub fn approval(id: &str) -> Approval {
    Approval {
        approval_id: id.to_owned(),
        run_id: "run-1".to_owned(),
        task_id: "task-1".to_owned(),
        repo: Some("shop".to_owned()),
        requested_by: RequestedBy::Agent,
        action_kind: ActionKind::Shell,
        status: ApprovalStatus::Requested,
        resolution: None,
        decision: Decision::Ask,
        risk: RiskLevel::Medium,
        reasons: vec![
            "runs the build tool".to_owned(),
            "writes target/**".to_owned(),
            "third reason".to_owned(),
        ],
        rule: "profile.maven-test".to_owned(),
        recommendation: Recommendation {
            decision: "approve".to_owned(),
            scope: Some(ScopeKind::Run),
            text: "Allow for this run".to_owned(),
        },
        required_role: None,
        profile: Some("maven-test".to_owned()),
        evidence: ApprovalEvidence {
            summary: "Run maven-test in shop".to_owned(),
            command: Some(vec!["mvn".to_owned(), "-q".to_owned(), "test".to_owned()]),
            command_line: Some("mvn -q test".to_owned()),
            cwd: "/home/dev/shop".to_owned(),
            ..ApprovalEvidence::default()
        },
        offered_scopes: vec![ScopeKind::Once, ScopeKind::Run],
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
    }
}
