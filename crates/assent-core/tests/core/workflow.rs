//! The workflow's pure rules, scenario by scenario: joining a prompt, run holds, timeouts,
//! grant issuing and audit records. The server's story tests prove them end to end.

use crate::common::*;
use assent_core::workflow::*;
use assent_core::{
    ActionKind, ApprovalEvent, AuditDecision, Decision, FallbackOnTimeout, Role, ScopeError,
    ScopeKind,
};
use chrono::Duration;

fn prompt(id: &str, requester: &str, key: &str, created: i64, expires: i64) -> PendingPrompt {
    PendingPrompt {
        approval_id: id.into(),
        requester: requester.into(),
        batch_key: key.into(),
        created_at: t0() + Duration::seconds(created),
        expires_at: t0() + Duration::seconds(expires),
    }
}

#[test]
fn a_request_joins_the_oldest_live_prompt_of_its_requester_and_batch_key() {
    let candidates = [
        prompt("newer", "agent", "k", 20, 600),
        prompt("older", "agent", "k", 10, 600),
        prompt("other-key", "agent", "k2", 0, 600),
        prompt("other-agent", "someone", "k", 0, 600),
        prompt("expired", "agent", "k", 0, 30),
    ];
    // (requester, batch key, seconds after t0, joins)
    let table: [(&str, &str, i64, Option<&str>); 6] = [
        ("agent", "k", 40, Some("older")),
        ("agent", "k2", 40, Some("other-key")),
        ("someone", "k", 40, Some("other-agent")),
        ("agent", "k3", 40, None),
        ("stranger", "k", 40, None),
        ("agent", "k", 600, None),
    ];
    for (requester, key, at, joins) in table {
        let joined = joinable(&candidates, requester, key, t0() + Duration::seconds(at));
        assert_eq!(
            joined.map(|p| p.approval_id.as_str()),
            joins,
            "{requester} asking with {key} at +{at}s: same requester and key, not expired, oldest first"
        );
    }
    assert!(
        joinable(&[], "agent", "k", t0()).is_none(),
        "with no pending prompt the request opens one"
    );
}

#[test]
fn a_held_run_blocks_what_it_must_and_lets_the_rest_through() {
    let ask = eval_default(&shell("rm -rf ./build")).decision;
    let auto = eval_default(&shell("ls")).decision;
    assert_eq!(ask.decision, Decision::Ask, "the scenario needs an ask");
    assert_eq!(auto.decision, Decision::Auto, "the scenario needs an auto");
    let paused = RunHold::Paused {
        reason: Some("resume me"),
    };
    let cancelled = RunHold::Cancelled { reason: None };
    // (hold, decision, expected rule when blocked)
    let table = [
        (RunHold::Running, &ask, None),
        (RunHold::Running, &auto, None),
        (paused, &auto, None),
        (paused, &ask, Some("run.paused")),
        (cancelled, &auto, Some("run.cancelled")),
        (cancelled, &ask, Some("run.cancelled")),
    ];
    for (hold, decision, rule) in table {
        let held = held_decision(hold, "r1", decision);
        assert_eq!(
            held.as_ref().map(|d| d.rule.as_str()),
            rule,
            "{hold:?} on a {:?} decides whether the hold answers",
            decision.decision
        );
        if let Some(held) = held {
            assert_eq!(held.decision, Decision::Block, "a hold answers by blocking");
            assert!(
                held.offered_scopes.is_empty(),
                "a blocked answer offers no scope"
            );
            assert_eq!(
                held.required_role, None,
                "nobody can approve a held request"
            );
        }
    }
    let paused_reason = held_decision(paused, "r1", &ask).unwrap().reasons;
    assert_eq!(
        paused_reason,
        vec!["resume me"],
        "the hold's reason tells the agent how to go on"
    );
    let default_reason = held_decision(cancelled, "r1", &ask).unwrap().reasons;
    assert_eq!(
        default_reason,
        vec!["run r1 is held"],
        "a hold without reason still names the run"
    );
}

#[test]
fn each_fallback_settles_the_prompt_and_holds_the_run_as_it_says() {
    let table = [
        (FallbackOnTimeout::Deny, None),
        (FallbackOnTimeout::Pause, Some(HoldPlan::Pause)),
        (FallbackOnTimeout::CancelRun, Some(HoldPlan::Cancel)),
    ];
    for (fallback, hold) in table {
        let plan = on_timeout(fallback, "r1", "ap1");
        assert_eq!(
            plan.hold.as_ref().map(|h| h.0),
            hold,
            "{fallback:?} holds the run as named"
        );
        assert!(
            plan.reason.starts_with(NOBODY_ANSWERED),
            "{fallback:?}: every member learns nobody answered"
        );
        if let Some((_, why)) = plan.hold {
            assert!(
                why.contains("ap1"),
                "the hold names the unanswered approval: {why}"
            );
        }
    }
    let pause = on_timeout(FallbackOnTimeout::Pause, "r1", "ap1");
    assert!(
        pause.hold.unwrap().1.contains("POST /v1/runs/r1/resume"),
        "a paused run's reason says how to resume it"
    );
    assert_eq!(
        closed_by(true),
        "timeout",
        "a timeout is decided by nobody: `timeout`"
    );
    assert_eq!(
        closed_by(false),
        "run-end",
        "the end of a run closes its prompts as `run-end`"
    );
}

fn choice(scope: ScopeKind, seconds: i64, max_uses: Option<u32>) -> GrantChoice {
    GrantChoice {
        scope,
        expires_in_seconds: seconds,
        max_uses,
        path_patterns: None,
    }
}

#[test]
fn an_approval_issues_the_grant_chosen_within_what_was_offered_and_the_policy() {
    let request = shell("rm -rf ./build");
    let eval = eval_default(&request);
    let offered = eval.decision.offered_scopes.clone();
    assert!(
        offered.contains(&ScopeKind::Once),
        "the scenario needs once offered"
    );
    let order = |gate_waiting: bool| GrantOrder {
        grant_id: "g1",
        approval_id: "ap1",
        run_id: &request.run_id,
        action_kind: ActionKind::Shell,
        offered_scopes: &offered,
        request: &request,
        eval: &eval,
        max_lifetime: Duration::seconds(3600),
        created_by: "alice",
        requester: AGENT,
        gate_waiting,
        now: t0(),
    };
    // (choice, gate waiting, issued (max_uses, used_count) or the error)
    let table = [
        (choice(ScopeKind::Once, 60, None), false, Ok((Some(1), 0))),
        (choice(ScopeKind::Once, 60, None), true, Ok((Some(1), 1))),
        (choice(ScopeKind::Once, 60, Some(3)), true, Ok((Some(3), 3))),
        (choice(ScopeKind::Once, 3600, None), false, Ok((Some(1), 0))),
        (
            choice(ScopeKind::Once, 3601, None),
            false,
            Err(IssueError::Lifetime {
                max: 3600,
                scope: "once".into(),
            }),
        ),
        (
            choice(ScopeKind::Once, 0, None),
            false,
            Err(IssueError::Lifetime {
                max: 3600,
                scope: "once".into(),
            }),
        ),
        (
            choice(ScopeKind::Once, 60, Some(0)),
            false,
            Err(IssueError::NoUses),
        ),
        (
            choice(ScopeKind::Org, 60, None),
            false,
            Err(IssueError::NotOffered("org".into())),
        ),
    ];
    for (chosen, waiting, expected) in table {
        let issued = issue_grant(order(waiting), &chosen).map(|g| (g.max_uses, g.used_count));
        assert_eq!(
            issued, expected,
            "{chosen:?} with a gate waiting: {waiting}"
        );
    }
    let grant = issue_grant(order(false), &choice(ScopeKind::Once, 60, None)).unwrap();
    assert_eq!(
        grant.expires_at,
        t0() + Duration::seconds(60),
        "expiry counts from `now`"
    );
    assert_eq!(
        (
            grant.grant_id.as_str(),
            grant.approval_id.as_str(),
            grant.created_by.as_str()
        ),
        ("g1", "ap1", "alice"),
        "ids and the granting person come from the caller"
    );
    assert!(
        grant.covers(&request, &eval, AGENT, t0()).is_ok(),
        "the issued grant covers the approved action"
    );
    assert!(
        IssueError::Scope(ScopeError::Blocked).is_conflict()
            && IssueError::NowBlocked.is_conflict(),
        "what the approval's state refuses is a conflict"
    );
    assert!(
        !IssueError::NoUses.is_conflict(),
        "a bad choice is the person's error"
    );
    let table = [
        (ScopeKind::Once, ApprovalEvent::ApproveOnce),
        (ScopeKind::Run, ApprovalEvent::ApproveForRun),
        (ScopeKind::Repo, ApprovalEvent::ApproveForPolicyScope),
    ];
    for (scope, event) in table {
        assert_eq!(
            approve_event(scope),
            event,
            "{scope:?} moves the approval as named"
        );
    }
}

#[test]
fn a_blocked_request_issues_no_grant() {
    let request = shell("rm -rf ./build");
    let mut eval = eval_default(&request);
    eval.decision.decision = Decision::Block;
    let offered = [ScopeKind::Once];
    let order = GrantOrder {
        grant_id: "g1",
        approval_id: "ap1",
        run_id: "r1",
        action_kind: ActionKind::Shell,
        offered_scopes: &offered,
        request: &request,
        eval: &eval,
        max_lifetime: Duration::seconds(3600),
        created_by: "alice",
        requester: AGENT,
        gate_waiting: false,
        now: t0(),
    };
    assert_eq!(
        issue_grant(order, &choice(ScopeKind::Once, 60, None)),
        Err(IssueError::NowBlocked),
        "what the policy blocks today is never granted, whatever the prompt offered"
    );
}

#[test]
fn audit_records_say_what_happened_and_who_did_it() {
    let request = shell("rm -rf ./build");
    let eval = eval_default(&request);
    let asked = Asked {
        action_id: "a1",
        requester: AGENT,
        request: &request,
        eval: &eval,
        now: t0(),
    };
    let auto = submission_audit("e1".into(), asked, AuditDecision::Auto, None, None);
    assert_eq!(
        auto.requester.as_deref(),
        Some(AGENT),
        "a submission's record names the token's identity that asked, not the agent's own \
         `requested_by` words, so two agents of one run stay apart in the audit"
    );
    assert_eq!(
        (
            auto.event_id.as_str(),
            auto.evidence_artifact_id.as_str(),
            auto.timestamp
        ),
        ("e1", "a1", t0()),
        "an unprompted decision's evidence is the action itself, at `now`"
    );
    let used = submission_audit(
        "e2".into(),
        asked,
        AuditDecision::Used,
        Some("ap1".into()),
        Some("g1".into()),
    );
    assert_eq!(
        used.evidence_artifact_id, "ap1",
        "a grant use points at the approval behind it"
    );
    let offered = [ScopeKind::Once];
    let prompt = PromptFacts {
        approval_id: "ap1",
        requester: AGENT,
        run_id: "r1",
        action_kind: ActionKind::Shell,
        offered_scopes: &offered,
        repo: Some("/repo"),
        evidence_summary: "rm ./build",
        policy_version: "p1",
    };
    let members = [
        MemberFacts {
            action_id: "a1",
            task_id: "t1",
            action_hash: "h1",
            command_line: Some("rm -rf ./build"),
        },
        MemberFacts {
            action_id: "a2",
            task_id: "t2",
            action_hash: "h2",
            command_line: None,
        },
    ];
    let verdict = Verdict {
        decision: AuditDecision::Denied,
        at: t0(),
        approver: Some("alice"),
        approver_role: Some(Role::TaskAuthor),
        reason: "no",
        grant_id: None,
        granted: None,
    };
    let subjects: Vec<_> = members
        .iter()
        .map(|m| {
            settlement_audit("e".into(), prompt, *m, verdict)
                .subject
                .unwrap()
        })
        .collect();
    assert_eq!(
        subjects,
        vec!["rm -rf ./build", "rm ./build"],
        "each member names its command, else the evidence summary"
    );
    let denied = settlement_audit("e3".into(), prompt, members[0], verdict);
    assert_eq!(
        (
            denied.approver.as_deref(),
            denied.policy_version.as_str(),
            denied.task_id.as_str()
        ),
        (Some("alice"), "p1", "t1"),
        "a settlement names the person, the prompt's policy and the member's task"
    );
    assert_eq!(
        (denied.approver.as_deref(), denied.requester.as_deref()),
        (Some("alice"), Some(AGENT)),
        "a person's decision names both who decided and which agent identity asked"
    );
    let old_prompt = PromptFacts {
        requester: "",
        ..prompt
    };
    assert_eq!(
        settlement_audit("e5".into(), old_prompt, members[0], verdict).requester,
        None,
        "a prompt from before requesters were recorded names nobody rather than an empty name"
    );
    let resumed = resume_audit("e4".into(), "r1", None, ("bob", None), "go on", t0());
    assert_eq!(
        (resumed.decision, resumed.subject.as_deref()),
        (AuditDecision::Resumed, Some("run r1")),
        "resuming a run without a pausing prompt names the run"
    );
    assert_eq!(
        resumed.requester, None,
        "without a pausing prompt no agent's request is named, so no requester either"
    );
    let remembered = remembered_denial(
        Earlier {
            approval_id: "ap1",
            decided_by: "alice",
            reason: " ",
        },
        "r1",
    );
    assert_eq!(
        remembered.answer, "alice denied this earlier in run r1 (approval ap1): no reason given",
        "the agent learns who denied it, where, and why (or that no reason was given)"
    );
    assert_eq!(
        remembered.audit, "remembered denial of approval ap1: no reason given",
        "the audit names the remembered approval"
    );
}

#[test]
fn grant_records_and_summaries_name_the_grant() {
    let request = shell("rm -rf ./build");
    let eval = eval_default(&request);
    let offered = eval.decision.offered_scopes.clone();
    let order = GrantOrder {
        grant_id: "g1",
        approval_id: "ap1",
        run_id: "r1",
        action_kind: ActionKind::Shell,
        offered_scopes: &offered,
        request: &request,
        eval: &eval,
        max_lifetime: Duration::seconds(3600),
        created_by: "alice",
        requester: AGENT,
        gate_waiting: false,
        now: t0(),
    };
    let grant = issue_grant(order, &choice(ScopeKind::Once, 60, None)).unwrap();
    let summary = grant_summary(&grant, None, "rm ./build");
    assert_eq!(
        summary, "rm ./build once (run r1)",
        "a once grant names its run"
    );
    let facts = GrantFacts {
        grant: &grant,
        summary: &summary,
    };
    let record = grant_audit(
        "e1".into(),
        facts,
        AuditDecision::Revoked,
        ("bob", Some(Role::TaskAuthor)),
        "oops",
        t0(),
    );
    assert_eq!(
        (
            record.grant_id.as_deref(),
            record.approver.as_deref(),
            record.subject.as_deref()
        ),
        (Some("g1"), Some("bob"), Some(summary.as_str())),
        "a revocation names the grant, who revoked it and what it allowed"
    );
    assert_eq!(
        record.granted_scope,
        Some(ScopeKind::Once),
        "the record says which scope ended"
    );
    assert_eq!(
        record.requester.as_deref(),
        Some(AGENT),
        "a grant's revocation names the agent identity the grant was issued to"
    );
    let used = grant_use_audit(
        "e2".into(),
        Asked {
            action_id: "a2",
            requester: AGENT,
            request: &request,
            eval: &eval,
            now: t0(),
        },
        &grant,
    );
    assert_eq!(
        (
            used.decision,
            used.grant_id.as_deref(),
            used.approval_id.as_deref(),
            used.evidence_artifact_id.as_str(),
        ),
        (AuditDecision::Used, Some("g1"), Some("ap1"), "ap1"),
        "a grant use names the grant and points at the approval behind it"
    );
    assert_eq!(
        (
            used.granted_scope,
            used.grant_expires_at,
            used.requester.as_deref()
        ),
        (Some(ScopeKind::Once), Some(grant.expires_at), Some(AGENT)),
        "a grant use says for which scope and until when it was granted, and which agent \
         identity's request it answered"
    );
}

#[test]
fn an_executed_report_says_whether_anything_allowed_it() {
    let ran = |approval_id| Ran {
        action_id: "a1",
        requester: AGENT,
        run_id: "r1",
        task_id: "t1",
        action_kind: ActionKind::Shell,
        action_hash: "h1",
        approval_id,
        grant_id: None,
        policy_version: "p1",
        command_line: Some("rm -rf ./build"),
    };
    // (approval, covered, evidence, reason starts with)
    let table = [
        (None, true, "a1", "the agent ran it, covered"),
        (Some("ap1"), true, "ap1", "the agent ran it, covered"),
        (None, false, "a1", "the agent ran it WITHOUT cover"),
    ];
    for (approval, covered, evidence, reason) in table {
        let record = executed_audit("e1".into(), ran(approval), covered, t0());
        assert_eq!(
            (record.decision, record.evidence_artifact_id.as_str()),
            (AuditDecision::Executed, evidence),
            "an executed report points at the approval behind it, else the action"
        );
        assert!(
            record.reason.starts_with(reason),
            "covered: {covered} must be said plainly: {}",
            record.reason
        );
        assert_eq!(
            record.requester.as_deref(),
            Some(AGENT),
            "an executed report names the agent identity that ran it"
        );
    }
}
