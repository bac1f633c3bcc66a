//! `fallback_on_timeout`: what an unanswered approval does at its `expires_at` — deny, pause
//! the run until an approver resumes it, or cancel the run — seen over real HTTP, in the audit
//! and on `/v1/events`, with a fake clock and no periodic tick (the sweeper's safety cap is an
//! hour; only the deadline and the clock moving wake it).

use crate::common::{maven, shell, Service, SseReader};
use assent_core::FallbackOnTimeout;
use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn at(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

async fn start(fallback: FallbackOnTimeout) -> Service {
    Service::start_with(|config| config.policy.fallback_on_timeout = fallback).await
}

/// `pytest` in an unknown repo: another ask, in another batch than `mvn -B test`.
fn pytest(run: &str) -> Value {
    shell(run, "pytest -q", "unknown", None)
}

fn ls(run: &str) -> Value {
    shell(run, "ls", "trusted", None)
}

async fn run_state(svc: &Service, run: &str) -> Value {
    let (status, body) = svc.get(&format!("/v1/runs/{run}"), &svc.requester).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "anyone with a token reads a run: {body}"
    );
    body
}

/// Opens a prompt and moves the clock to one microsecond before it expires, checking that
/// nothing happened yet; answers the approval id and its `expires_at`.
async fn pending_until_the_boundary(svc: &Service, body: &Value) -> (String, DateTime<Utc>) {
    let ask = svc.submit(body).await;
    assert_eq!(ask["status"], "pending", "an ask opens a prompt: {ask}");
    let id = ask["approval_id"].as_str().unwrap().to_owned();
    let expires_at = at(&svc.approval(&id).await["expires_at"]);
    svc.clock.set(expires_at - Duration::microseconds(1));
    assert_eq!(
        svc.approval(&id).await["status"],
        "requested",
        "one microsecond before expires_at the prompt is still open"
    );
    (id, expires_at)
}

/// The next event called `name` (others in between are skipped), as JSON.
async fn next_named(events: &mut SseReader, name: &str) -> Value {
    loop {
        let event = events.next_event().await;
        if event.event.as_deref() == Some(name) {
            return event.json();
        }
    }
}

/// The next `approval.settled` event (skipping others), as its approval.
async fn next_settled(events: &mut SseReader) -> Value {
    next_named(events, "approval.settled").await["approval"].clone()
}

#[tokio::test]
async fn deny_fallback_denies_every_member_at_expires_at() {
    let svc = start(FallbackOnTimeout::Deny).await;
    let mut events = svc.events(None).await;
    let (id, expires_at) = pending_until_the_boundary(&svc, &maven("r-1")).await;
    let joined = svc.submit(&maven("r-1")).await;
    assert_eq!(
        joined["approval_id"], id,
        "an equivalent request joins the prompt"
    );

    svc.clock.set(expires_at);
    let settled = next_settled(&mut events).await;
    assert_eq!(settled["approval_id"], id, "the sweeper settles it unasked");
    assert_eq!(settled["status"], "expired", "at expires_at it expires");
    assert_eq!(settled["resolution"], "timed_out", "as a timeout");
    assert_eq!(
        settled["fallback_on_timeout"], "deny",
        "the fallback is named"
    );
    assert_eq!(
        settled["decision_reason"], "nobody answered in time",
        "members are told why they were denied"
    );

    let expired: Vec<Value> = svc
        .audit("r-1")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "expired")
        .collect();
    assert_eq!(
        expired.len(),
        2,
        "each member is audited as expired: {expired:?}"
    );
    assert!(
        expired
            .iter()
            .all(|e| e["reason"] == "nobody answered in time" && e["approver"] == "timeout"),
        "the audit says nobody answered: {expired:?}"
    );
    assert_eq!(
        run_state(&svc, "r-1").await["status"],
        "running",
        "deny holds nothing against the run"
    );
    let again = svc.submit(&maven("r-1")).await;
    assert_eq!(again["status"], "pending", "the run may ask again: {again}");
    svc.stop().await;
}

#[tokio::test]
async fn pause_fallback_blocks_the_run_until_an_approver_resumes_it() {
    let svc = start(FallbackOnTimeout::Pause).await;
    let covered = svc.submit(&maven("r-1")).await;
    svc.approve_for_run(covered["approval_id"].as_str().unwrap())
        .await;
    let mut events = svc.events(None).await;
    let (id, expires_at) = pending_until_the_boundary(&svc, &pytest("r-1")).await;
    let other_run = svc.submit(&pytest("r-2")).await;

    svc.clock.set(expires_at);
    let settled = next_settled(&mut events).await;
    assert_eq!(settled["approval_id"], id, "the sweeper settles it unasked");
    assert_eq!(settled["resolution"], "timed_out", "as a timeout");
    assert_eq!(
        settled["fallback_on_timeout"], "pause",
        "the fallback is named"
    );
    let reason = settled["decision_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("nobody answered in time") && reason.contains("paused"),
        "the members learn that the run is paused: {reason}"
    );
    let paused = next_named(&mut events, "run.paused").await;
    assert_eq!(
        paused["run"]["run_id"], "r-1",
        "desks learn at once which run waits for a person: {paused}"
    );
    assert_eq!(paused["run"]["status"], "paused", "as paused: {paused}");
    let run = run_state(&svc, "r-1").await;
    assert_eq!(run["status"], "paused", "the run is paused: {run}");
    let (status, held) = svc.get("/v1/runs?status=paused", &svc.approver).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the approver lists paused runs: {held}"
    );
    assert_eq!(
        held["runs"].as_array().unwrap().len(),
        1,
        "only r-1 is paused, r-2 still waits on its prompt: {held}"
    );
    assert_eq!(held["runs"][0]["run_id"], "r-1", "the paused run: {held}");
    let (status, _) = svc.get("/v1/runs", &svc.requester).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent cannot list the runs people are holding"
    );
    let (status, body) = svc.get("/v1/runs?status=running", &svc.approver).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "running runs are not a list Assent keeps: {body}"
    );
    assert_eq!(
        run["approval_id"],
        id.as_str(),
        "by the unanswered approval"
    );

    let blocked = svc.submit(&pytest("r-1")).await;
    assert_eq!(
        blocked["status"], "blocked",
        "a paused run's asks are blocked: {blocked}"
    );
    assert_eq!(
        blocked["rule"], "run.paused",
        "the hold is the rule that fired"
    );
    assert!(
        blocked["reasons"][0]
            .as_str()
            .unwrap()
            .contains("paused awaiting a person"),
        "the reason says the run waits for a person: {blocked}"
    );
    assert!(blocked["approval_id"].is_null(), "no prompt is opened");
    let granted = svc.submit(&maven("r-1")).await;
    assert_eq!(
        granted["status"], "blocked",
        "not even a run grant silently allows a paused run's ask: {granted}"
    );
    assert_eq!(
        svc.submit(&ls("r-1")).await["status"],
        "allowed",
        "auto decisions of a paused run still flow"
    );
    assert_eq!(
        svc.approval(other_run["approval_id"].as_str().unwrap())
            .await["status"],
        "requested",
        "another run's prompt is untouched"
    );
    let (status, _) = svc
        .decide(
            blocked["action_id"].as_str().unwrap(),
            &json!({"decision":"deny","reason":"x"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a blocked action is never decided"
    );

    let audited = svc.audit("r-1").await;
    assert!(
        audited.iter().any(|e| e["decision"] == "expired"
            && e["approval_id"] == id.as_str()
            && e["reason"].as_str().unwrap().contains("paused")),
        "the timeout is audited with its fallback: {audited:?}"
    );
    assert_eq!(
        audited
            .iter()
            .filter(
                |e| e["decision"] == "blocked" && e["reason"].as_str().unwrap().contains("paused")
            )
            .count(),
        2,
        "both held requests are audited as blocked: {audited:?}"
    );

    let resume = "/v1/runs/r-1/resume";
    let (status, _) = svc.post(resume, &svc.requester, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent cannot resume its own run"
    );
    let (status, resumed) = svc.post(resume, &svc.approver, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the approver resumes the run: {resumed}"
    );
    assert_eq!(resumed["status"], "running", "the run runs again");
    let (_, held) = svc.get("/v1/runs", &svc.approver).await;
    assert_eq!(
        held["runs"].as_array().map(Vec::len),
        Some(0),
        "a resumed run is no longer listed as paused: {held}"
    );
    let announced = next_named(&mut events, "run.resumed").await;
    assert_eq!(
        announced["run"]["status"], "running",
        "the resume is announced so every desk clears the hold: {announced}"
    );
    let resumes: Vec<_> = svc
        .audit("r-1")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "resumed")
        .collect();
    assert_eq!(
        resumes.len(),
        1,
        "every decision is audited, the resume too (once): {resumes:?}"
    );
    let resumed_audit = &resumes[0];
    assert_eq!(
        resumed_audit["approver"], "owner",
        "a person resumed it (the owner holds approver.token), never the agent: {resumed_audit}"
    );
    assert_eq!(
        resumed_audit["approver_role"], "task_author",
        "the record names the role the person acted in: {resumed_audit}"
    );
    assert_eq!(
        resumed_audit["approval_id"],
        id.as_str(),
        "the record names the prompt whose timeout paused the run: {resumed_audit}"
    );
    assert!(
        !resumed_audit["action_hash"].as_str().unwrap().is_empty(),
        "and its action: {resumed_audit}"
    );
    let (status, _) = svc.post(resume, &svc.approver, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a running run cannot be resumed"
    );
    assert_eq!(
        svc.audit("r-1")
            .await
            .iter()
            .filter(|e| e["decision"] == "resumed")
            .count(),
        1,
        "a refused resume writes no record"
    );
    assert_eq!(
        svc.submit(&pytest("r-1")).await["status"],
        "pending",
        "after the resume the run's asks reach a person again"
    );
    assert_eq!(
        svc.submit(&maven("r-1")).await["status"],
        "allowed",
        "and its grant covers again"
    );
    svc.stop().await;
}

#[tokio::test]
async fn cancel_run_fallback_ends_the_run_like_run_end() {
    let svc = start(FallbackOnTimeout::CancelRun).await;
    let covered = svc.submit(&maven("r-1")).await;
    let grant = svc
        .approve_for_run(covered["approval_id"].as_str().unwrap())
        .await["grant"]["grant_id"]
        .clone();
    let mut events = svc.events(None).await;
    let first = svc.submit(&pytest("r-1")).await;
    let first_id = first["approval_id"].as_str().unwrap().to_owned();
    svc.clock.advance(Duration::seconds(1));
    let other_run = svc.submit(&maven("r-2")).await;
    let later = svc
        .submit(&shell("r-1", "go test ./...", "unknown", None))
        .await;
    assert_eq!(
        later["status"], "pending",
        "a second prompt in the run: {later}"
    );
    let later_id = later["approval_id"].as_str().unwrap().to_owned();
    assert_ne!(later_id, first_id, "two prompts are open in the run");
    let expires_at = at(&svc.approval(&first_id).await["expires_at"]);
    svc.clock.set(expires_at - Duration::microseconds(1));
    assert_eq!(
        run_state(&svc, "r-1").await["status"],
        "running",
        "one microsecond before, the run runs"
    );

    svc.clock.set(expires_at);
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|(name, _): &(String, Value)| name == "run.ended")
    {
        let event = events.next_event().await;
        let name = event.event.clone().unwrap();
        if name.starts_with("approval.settled") || name == "grant.expired" || name == "run.ended" {
            seen.push((name, event.json()));
        }
    }
    let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "approval.settled",
            "approval.settled",
            "grant.expired",
            "run.ended"
        ],
        "the timeout, the other prompt, the run grant, then the run's end are announced"
    );
    let timed_out = &seen[0].1["approval"];
    assert_eq!(
        timed_out["approval_id"],
        first_id.as_str(),
        "the unanswered one first"
    );
    assert_eq!(timed_out["resolution"], "timed_out", "as a timeout");
    assert_eq!(
        timed_out["fallback_on_timeout"], "cancel_run",
        "the fallback is named"
    );
    let closed = &seen[1].1["approval"];
    assert_eq!(
        closed["approval_id"],
        later_id.as_str(),
        "the other prompt closes"
    );
    assert_eq!(
        closed["resolution"], "cancelled",
        "as cancelled, like a run end"
    );
    assert!(
        closed["decision_reason"]
            .as_str()
            .unwrap()
            .contains("run cancelled"),
        "it says the run was cancelled: {closed}"
    );
    assert_eq!(
        seen[2].1["grant"]["grant_id"], grant,
        "the run grant expired"
    );
    assert_eq!(seen[3].1["run_id"], "r-1", "the run ended");

    let run = run_state(&svc, "r-1").await;
    assert_eq!(run["status"], "cancelled", "the run is cancelled: {run}");
    for body in [maven("r-1"), ls("r-1")] {
        let blocked = svc.submit(&body).await;
        assert_eq!(
            blocked["status"], "blocked",
            "every later request is blocked: {blocked}"
        );
        assert!(
            blocked["reasons"][0]
                .as_str()
                .unwrap()
                .starts_with("run cancelled"),
            "with the reason run cancelled: {blocked}"
        );
    }
    assert_eq!(
        svc.approval(other_run["approval_id"].as_str().unwrap())
            .await["status"],
        "requested",
        "another run is untouched"
    );
    let (status, _) = svc
        .post("/v1/runs/r-1/resume", &svc.approver, &json!({}))
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a cancelled run is never resumed"
    );

    let audited = svc.audit("r-1").await;
    let count = |decision: &str| audited.iter().filter(|e| e["decision"] == decision).count();
    assert_eq!(
        count("expired"),
        3,
        "both prompts and the grant are audited as expired: {audited:?}"
    );
    assert_eq!(
        count("blocked"),
        2,
        "the held requests are audited as blocked: {audited:?}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn the_long_poll_answers_with_the_fallback_that_applied() {
    let svc = start(FallbackOnTimeout::Pause).await;
    let (id, expires_at) = pending_until_the_boundary(&svc, &maven("r-1")).await;
    let (status, waited) = svc.wait_across_expiry(&id, expires_at).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the requester may wait on its approval"
    );
    assert_eq!(
        waited["resolution"], "timed_out",
        "the wait ends with the timeout: {waited}"
    );
    assert_eq!(
        waited["fallback_on_timeout"], "pause",
        "and names the fallback"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_timeout_due_while_the_service_was_down_applies_its_fallback_on_start() {
    let svc = start(FallbackOnTimeout::CancelRun).await;
    let (id, expires_at) = pending_until_the_boundary(&svc, &maven("r-1")).await;
    let (dir, clock) = svc.stop().await;
    clock.set(expires_at + Duration::hours(1));
    let svc = Service::start_in(dir, clock, |config| {
        config.policy.fallback_on_timeout = FallbackOnTimeout::Deny;
    })
    .await;
    let mut events = svc.events(Some("0")).await;
    let settled = next_settled(&mut events).await;
    assert_eq!(
        settled["approval_id"],
        id.as_str(),
        "the sweeper's first look settles it"
    );
    assert_eq!(
        settled["fallback_on_timeout"], "cancel_run",
        "the fallback recorded when the prompt opened applies, not today's policy"
    );
    assert_eq!(
        run_state(&svc, "r-1").await["status"],
        "cancelled",
        "so the run is cancelled"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_new_prompt_wakes_the_sweeper_sleeping_with_nothing_pending() {
    // The machine's clock this once (nothing moves it by hand), a one-second approval timeout
    // and an hour-long safety cap: only the wake-up from the new prompt can make the sweeper
    // look again within the SSE reader's ten seconds.
    let svc = Service::start_with(|config| {
        config.clock = std::sync::Arc::new(assent_server::SystemClock);
        config.policy.approval_timeout_seconds = 1;
    })
    .await;
    let mut events = svc.events(None).await;
    let ask = svc.submit(&maven("r-1")).await;
    let settled = next_settled(&mut events).await;
    assert_eq!(
        settled["approval_id"], ask["approval_id"],
        "the prompt timed out unasked"
    );
    assert_eq!(settled["resolution"], "timed_out", "at its deadline");
    svc.stop().await;
}
