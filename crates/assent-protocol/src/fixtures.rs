//! Test fixtures the crates' tests share: a pending approval as the service sends it, and an
//! event of every kind. Compiled for this crate's own tests and, with the `fixtures` feature,
//! for the tests of the crates that speak this protocol (a dev-dependency only).
//!
//! They live here rather than in `assent-test-support`, which depends on `assent-server` and so
//! on this crate: this crate's own unit tests could not use them from there (they would get a
//! second build of these types).
#![allow(clippy::expect_used, clippy::panic, reason = "test fixtures")]

use assent_core::campaign::{Campaign, CampaignDefinition, CampaignStatus};
use assent_core::{
    ActionKind, ApprovalEvidence, ApprovalGrant, ApprovalStatus, ApprovalType, Decision,
    FallbackOnTimeout, GrantConstraints, GrantStatus, RequestedBy, RiskDecision, RiskLevel,
    ScopeKind,
};
use chrono::{DateTime, Utc};

use crate::words::PromptWords;
use crate::{Approval, Event, Grant, Recommendation, RunState, RunStatus};

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

/// A run-scoped grant in run `run-1` from approval `apr-1`, limited to agent `requester` (or to
/// no agent), active.
pub fn grant(requester: Option<&str>) -> Grant {
    Grant {
        grant: ApprovalGrant {
            grant_id: "grant-1".to_owned(),
            approval_id: "apr-1".to_owned(),
            run_id: "run-1".to_owned(),
            scope_kind: ScopeKind::Run,
            action_kinds: vec![ActionKind::Shell],
            constraints: GrantConstraints {
                run_id: Some("run-1".to_owned()),
                requester: requester.map(str::to_owned),
                ..GrantConstraints::default()
            },
            created_at: at(0),
            expires_at: at(3600),
            max_uses: None,
            used_count: 0,
            created_by: "alice".to_owned(),
            revocable: true,
            revoked_at: None,
            policy_version: "v1".to_owned(),
            invalidated_at: None,
        },
        status: GrantStatus::Active,
        revoke_reason: None,
        summary: "maven-test for run run-1".to_owned(),
        created_by_role: None,
        invalidated_reason: None,
        revoked_by: None,
    }
}

/// Run `run_id`, paused by the unanswered approval `approval_id` (or by none).
pub fn run(run_id: &str, approval_id: Option<&str>) -> RunState {
    RunState {
        run_id: run_id.to_owned(),
        status: RunStatus::Paused,
        reason: Some("no answer in time".to_owned()),
        approval_id: approval_id.map(str::to_owned),
        updated_at: Some(at(600)),
        campaign: None,
    }
}

/// A proposed fleet campaign awaiting its approval `apr-fleet`.
pub fn campaign() -> Campaign {
    Campaign {
        campaign_id: "camp-1".to_owned(),
        definition: CampaignDefinition {
            name: "bump-deps".to_owned(),
            target_repos: vec!["shop".to_owned()],
            selection_criteria: "every service".to_owned(),
            excluded_repos: Vec::new(),
            prompt_contract: "bump the dependencies".to_owned(),
            risk: RiskLevel::Medium,
            verifier_profile: "maven-test".to_owned(),
            sample_diff: String::new(),
            expected_pr_body: String::new(),
            cost_estimate: "1 h".to_owned(),
            owner_notification: None,
            failure_threshold: 1,
        },
        status: CampaignStatus::Proposed,
        approval_id: "apr-fleet".to_owned(),
        stages: Vec::new(),
        outcomes: Vec::new(),
        stop_reason: None,
        created_by: "alice".to_owned(),
        created_at: at(0),
        updated_at: at(0),
    }
}

/// The approval an approval's event of [`one_of_each`] carries (row `i`, for a table's
/// message); panics on any other event.
pub fn approval_in(events: &[Event], i: usize) -> &Approval {
    match events.get(i) {
        Some(
            Event::ApprovalRequested { approval }
            | Event::ApprovalUpdated { approval }
            | Event::ApprovalSettled { approval },
        ) => approval,
        Some(other) => panic!("row {i} is an approval's event, not {}", other.name()),
        None => panic!("no row {i}"),
    }
}

/// One event of every kind, in the order [`Event`] declares them: a table test over these
/// covers every variant. The approval's, grant's and run's are about agent `default`'s
/// approval `apr-1` in run `run-1`.
pub fn one_of_each() -> Vec<Event> {
    let mut events = about_default();
    events.extend(about_no_agent());
    events.iter().for_each(listed);
    events
}

/// The approval's, grant's and run's events: agent `default`'s approval `apr-1`, its grant and
/// its run `run-1`.
fn about_default() -> Vec<Event> {
    vec![
        Event::ApprovalRequested {
            approval: approval("apr-1"),
        },
        Event::ApprovalUpdated {
            approval: approval("apr-1"),
        },
        Event::ApprovalSettled {
            approval: Approval {
                status: ApprovalStatus::ApprovedForRun,
                ..approval("apr-1")
            },
        },
        Event::GrantCreated {
            grant: grant(Some("default")),
        },
        Event::GrantUsed {
            grant: grant(Some("default")),
            action_id: "act-1".to_owned(),
        },
        Event::GrantRevoked {
            grant: grant(Some("default")),
        },
        Event::GrantExpired {
            grant: grant(Some("default")),
        },
        Event::GrantInvalidated {
            grant: grant(Some("default")),
            action_id: "act-1".to_owned(),
        },
        Event::RunEnded {
            run_id: "run-1".to_owned(),
            requester: Some("default".to_owned()),
        },
        Event::RunPaused {
            run: run("run-1", Some("apr-1")),
        },
        Event::RunResumed {
            run: run("run-1", Some("apr-1")),
        },
    ]
}

/// The events no agent's request, grant or run names: the policy's, a credential's, a
/// campaign's, and the two a stream makes itself.
fn about_no_agent() -> Vec<Event> {
    vec![
        Event::PolicyChanged {
            version: "v2".to_owned(),
            by: Some("alice".to_owned()),
        },
        Event::CredentialReleased {
            run_id: "run-1".to_owned(),
            action_id: "act-1".to_owned(),
            grant_id: "grant-1".to_owned(),
            capability: "github-token".to_owned(),
        },
        Event::CampaignUpdated {
            campaign: campaign(),
        },
        Event::CampaignStopped {
            campaign: campaign(),
        },
        Event::ApprovalWaiting {
            approval_id: "apr-1".to_owned(),
            agents_waiting: 1,
            stopped_waiting_at: None,
        },
        Event::Reset {},
    ]
}

/// No catch-all: a new variant fails to compile here until [`one_of_each`] has one.
fn listed(event: &Event) {
    match event {
        Event::ApprovalRequested { .. }
        | Event::ApprovalUpdated { .. }
        | Event::ApprovalSettled { .. }
        | Event::GrantCreated { .. }
        | Event::GrantUsed { .. }
        | Event::GrantRevoked { .. }
        | Event::GrantExpired { .. }
        | Event::GrantInvalidated { .. }
        | Event::RunEnded { .. }
        | Event::RunPaused { .. }
        | Event::RunResumed { .. }
        | Event::PolicyChanged { .. }
        | Event::CredentialReleased { .. }
        | Event::CampaignUpdated { .. }
        | Event::CampaignStopped { .. }
        | Event::ApprovalWaiting { .. }
        | Event::Reset {} => {}
    }
}
