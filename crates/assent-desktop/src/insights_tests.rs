//! Reading the audit for the Insights view a page at a time, and gathering it against a real
//! service (assent-server in this process, a real SQLite file, real HTTP on a free port).
#![allow(clippy::expect_used, clippy::panic, reason = "tests")]

use std::cell::RefCell;

use super::*;
use crate::fixtures::{asked, at, service};
use assent_core::ActionKind;
use assent_protocol::DecisionRequest;

fn event(n: usize, seconds: i64, decision: AuditDecision) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        event_id: format!("e{n}"),
        timestamp: at(seconds),
        approval_id: Some(format!("ap{n}")),
        action_id: Some(format!("ac{n}")),
        run_id: "run-1".to_owned(),
        task_id: "task".to_owned(),
        action_kind: ActionKind::Shell,
        action_hash: "h".to_owned(),
        requested_scope: serde_json::Value::Null,
        decision,
        approver: None,
        approver_role: None,
        requester: None,
        reason: String::new(),
        policy_version: "v1".to_owned(),
        evidence_artifact_id: String::new(),
        grant_id: None,
        repo: Some("shop".to_owned()),
        granted_scope: None,
        grant_expires_at: None,
        subject: Some("mvn -q test".to_owned()),
    }
}

/// The audit as the service pages it: events at or after `from`, oldest first, `page_len` at
/// most. Also counts the calls.
struct FakeAudit {
    events: Vec<ApprovalAuditEvent>,
    page_len: usize,
    calls: RefCell<usize>,
}

impl FakeAudit {
    fn page(&self, from: DateTime<Utc>) -> Result<Vec<ApprovalAuditEvent>, ClientError> {
        *self.calls.borrow_mut() += 1;
        Ok(self
            .events
            .iter()
            .filter(|e| e.timestamp >= from)
            .take(self.page_len)
            .cloned()
            .collect())
    }
}

#[tokio::test]
async fn the_audit_is_read_a_page_at_a_time_and_trimmed() {
    struct Case {
        name: &'static str,
        /// Seconds of each event; every fourth is a grant use, which no chart counts.
        times: Vec<i64>,
        max_pages: usize,
        kept: usize,
        complete: bool,
        calls: usize,
    }
    let cases = [
        Case {
            name: "an empty audit is complete after one call",
            times: vec![],
            max_pages: 5,
            kept: 0,
            complete: true,
            calls: 1,
        },
        Case {
            name: "what fits in one page",
            times: vec![1, 2],
            max_pages: 5,
            kept: 2,
            complete: true,
            calls: 1,
        },
        Case {
            name: "three pages sharing boundary instants: nothing is counted twice",
            // Pages of 3: [1 2 2] then from 2: [2 2 3] then from 3: [3 4] (short).
            times: vec![1, 2, 2, 3, 4],
            max_pages: 5,
            kept: 4,
            complete: true,
            calls: 3,
        },
        Case {
            name: "more than the pages a view reads is not complete",
            // Pages of 3: [0 1 2] then from 2: [2 3 4], where 3 is a use.
            times: (0..20).collect(),
            max_pages: 2,
            kept: 4,
            complete: false,
            calls: 2,
        },
        Case {
            name: "a full page at one instant cannot be paged past",
            times: vec![7, 7, 7, 7, 8],
            max_pages: 5,
            kept: 3,
            complete: false,
            calls: 2,
        },
    ];
    for case in cases {
        let audit = FakeAudit {
            events: case
                .times
                .iter()
                .enumerate()
                .map(|(n, t)| {
                    let decision = if n % 4 == 3 {
                        AuditDecision::Used
                    } else {
                        AuditDecision::Approved
                    };
                    event(n, *t, decision)
                })
                .collect(),
            page_len: 3,
            calls: RefCell::new(0),
        };
        let (kept, complete) = read_audit(
            |from| std::future::ready(audit.page(from)),
            at(0),
            audit.page_len,
            case.max_pages,
        )
        .await
        .expect("the fake never fails");
        assert_eq!(
            (kept.len(), complete, *audit.calls.borrow()),
            (case.kept, case.complete, case.calls),
            "{}: (kept, complete, calls)",
            case.name
        );
        let ids: HashSet<_> = kept.iter().map(|e| e.action_id.clone()).collect();
        assert_eq!(ids.len(), kept.len(), "{}: each event once", case.name);
        assert!(
            kept.iter().all(|e| e.decision != AuditDecision::Used),
            "{}: grant uses are no prompt and are dropped",
            case.name
        );
    }
}

#[test]
fn a_reviewers_call_and_who_decided_are_kept_for_the_reviewer_charts() {
    let mut call = event(1, 5, AuditDecision::Reviewed);
    call.approver = Some("reviewer:qwen3:8b".to_owned());
    call.review = Some(assent_core::AuditReview {
        model: "qwen3:8b".to_owned(),
        prompt_version: "assent-reviewer/1".to_owned(),
        state: "advised".to_owned(),
        outcome: Some("approve".to_owned()),
        risk: None,
        rationale: "a long rationale the charts never show".to_owned(),
        latency_ms: 80,
        request_sha256: "ab".to_owned(),
    });
    let kept = InsightEvent::of(call).expect("a reviewer's call is charted (agreement, failures)");
    assert_eq!(
        kept.review,
        Some(InsightReview {
            state: "advised".to_owned(),
            outcome: Some("approve".to_owned()),
        }),
        "its state and verdict, not its rationale (History shows that)"
    );
    assert_eq!(
        kept.approver, None,
        "a call decides nothing: no approver kept"
    );
    let mut approved = event(2, 6, AuditDecision::Approved);
    approved.approver = Some("reviewer:qwen3:8b".to_owned());
    assert_eq!(
        InsightEvent::of(approved)
            .and_then(|e| e.approver)
            .as_deref(),
        Some("reviewer:qwen3:8b"),
        "who approved: the charts tell the model's approvals from a person's"
    );
}

#[test]
fn the_page_may_look_back_at_most_so_far_and_not_ahead() {
    let now = at(100 * 86_400);
    for (name, since, want) in [
        ("two weeks back", now - TimeDelta::days(14), Ok(())),
        ("exactly the limit", now - TimeDelta::days(MAX_DAYS), Ok(())),
        (
            "past the limit",
            now - TimeDelta::days(MAX_DAYS) - TimeDelta::seconds(1),
            Err(SinceError::TooOld),
        ),
        (
            "in the future",
            now + TimeDelta::seconds(1),
            Err(SinceError::Future),
        ),
    ] {
        assert_eq!(check_since(since, now).map(|_| ()), want, "{name}");
    }
}

#[tokio::test]
async fn insights_hold_the_metrics_and_the_prompt_decisions_of_the_audit() {
    let running = service().await;
    let agent = Client::new(&running.url, &running.tokens.requester).expect("agent");
    let desk = Client::new(&running.url, &running.tokens.approver).expect("desk");
    let started = Utc::now() - TimeDelta::seconds(1);

    let first = agent.submit(&asked("run-a")).await.expect("submit");
    let first = first.approval_id.expect("the default policy asks");
    let allow_run = DecisionRequest::Approve {
        scope: assent_core::ScopeKind::Run,
        expires_in_seconds: 600,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    desk.decide(&first, &allow_run).await.expect("approve");
    let covered = agent.submit(&asked("run-a")).await.expect("submit");
    assert!(
        covered.grant_id.is_some(),
        "the run grant covers the repeat"
    );
    let second = agent.submit(&asked("run-b")).await.expect("submit");
    let second = second.approval_id.expect("another run asks again");
    let deny = DecisionRequest::Deny {
        reason: "not now".to_owned(),
    };
    desk.decide(&second, &deny).await.expect("deny");

    let insights = gather(&desk, started).await.expect("gather");
    assert_eq!(
        (insights.metrics.prompts_opened, insights.complete),
        (2, true),
        "two prompts, and the whole audit read"
    );
    let decisions: Vec<_> = insights
        .events
        .iter()
        .map(|e| (e.decision, e.approval_id.as_deref()))
        .collect();
    assert_eq!(
        decisions,
        [
            (AuditDecision::Approved, Some(first.as_str())),
            (AuditDecision::Denied, Some(second.as_str())),
        ],
        "the settled prompts are there; the grant's use is not (the service audited it)"
    );
    let audited = desk.audit(Some(started), None).await.expect("audit");
    assert!(
        audited.iter().any(|e| e.decision == AuditDecision::Used),
        "the service did audit the use the view leaves out"
    );

    let later = gather(&desk, Utc::now() + TimeDelta::seconds(5))
        .await
        .expect("gather");
    assert!(
        later.events.is_empty() && later.metrics.prompts_opened == 2,
        "events follow `since`; the metrics are the service's totals"
    );
}
