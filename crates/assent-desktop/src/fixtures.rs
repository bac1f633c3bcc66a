//! Test fixtures: a pending approval as the service sends it, and a real service (assent-server
//! in this process, a real SQLite file, real HTTP on a free port) with a request it asks about.
#![allow(clippy::expect_used, reason = "tests")]

use assent_core::{
    Action, ActionContext, ActionKind, ActionRequest, ApprovalEvidence, ApprovalStatus, Decision,
    FallbackOnTimeout, IdentityKind, Policy, RequestedBy, RiskLevel, Role, ScopeKind, ALL_ROLES,
};
use assent_protocol::{Approval, Me, Recommendation};
use assent_server::{App, Config, Tokens};
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

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
        approval_type: assent_core::ApprovalType::Tool,
        status: ApprovalStatus::Requested,
        resolution: None,
        facts: assent_core::RiskDecision {
            decision: Decision::Ask,
            risk: RiskLevel::Medium,
            reasons: vec![
                "runs the build tool".to_owned(),
                "writes target/**".to_owned(),
                "third reason".to_owned(),
            ],
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
            command: Some(vec!["mvn".to_owned(), "-q".to_owned(), "test".to_owned()]),
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
        quick_up_to: assent_core::RiskLevel::Medium,
        step_up_url: None,
        review: None,
        asked: None,
        words: assent_protocol::words::PromptWords::default(),
    }
}

/// A running service; it stops when dropped.
pub struct Running {
    _dir: tempfile::TempDir,
    pub url: String,
    pub tokens: Tokens,
    _stop: oneshot::Sender<()>,
}

pub async fn service() -> Running {
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let app = App::open(Config::new(dir.path(), Policy::default()))
        .await
        .expect("open");
    let tokens = app.tokens().expect("SQLite has tokens").clone();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(app.serve(listener, async {
        let _ = stopped.await;
    }));
    Running {
        _dir: dir,
        url,
        tokens,
        _stop: stop,
    }
}

/// `mvn -q test` in run `run_id`: the default policy asks a person.
pub fn asked(run_id: &str) -> ActionRequest {
    ActionRequest {
        run_id: run_id.to_owned(),
        task_id: "task".to_owned(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Shell,
            command: Some("mvn -q test".to_owned()),
            argv: None,
            cwd: "/work/shop".to_owned(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: None,
            tool: None,
        },
        context: ActionContext::default(),
        reason: "run the tests".to_owned(),
    }
}
