//! Who a prompt asks, and when nobody answers (the policy's `[routing] escalate_after`): two
//! people holding the role a prompt needs, alice with her desk connected and bob away, and the
//! fake clock. The prompt asks alice; `escalate_after` later it escalates to bob too, audited
//! and shown on the prompt; a prompt decided in time never escalates; without the setting
//! nothing escalates; an overdue prompt escalates when the service starts again.

use assent_core::{Policy, Role};
use chrono::Duration;
use serde_json::{json, Value};

use crate::common::{self, shell, start_time, Service, SseReader};

/// `aws s3 rm …`: cloud mutation, a prompt only a platform admin may decide.
fn cloud(run: &str) -> Value {
    shell(run, "aws s3 rm s3://shop-assets/logo.png", "trusted", None)
}

fn routed() -> Policy {
    Policy::from_toml("[routing]\nescalate_after = \"5m\"\n").unwrap()
}

/// The people of the story: alice and bob hold platform_admin, and the owner (whose token
/// reads the stream and the audit) no longer does, so they are the only two who may decide.
async fn two_admins(svc: &Service) -> (String, String) {
    let dir = common::backend::directory(&svc.data_dir()).await;
    let alice = dir
        .add_person("alice", &[Role::PlatformAdmin])
        .await
        .unwrap();
    let bob = dir.add_person("bob", &[Role::PlatformAdmin]).await.unwrap();
    dir.roles("owner", &[], &[Role::PlatformAdmin])
        .await
        .unwrap();
    (alice, bob)
}

async fn open_prompt(svc: &Service, run: &str) -> String {
    let answer = svc.submit(&cloud(run)).await;
    assert_eq!(answer["status"], "pending", "cloud mutation asks: {answer}");
    answer["approval_id"].as_str().unwrap().to_owned()
}

/// The next `name` event about approval `id` on `events`, skipping others.
async fn next_about(events: &mut SseReader, name: &str, id: &str) -> Value {
    loop {
        let sse = events.next_event().await;
        let body = sse.json();
        if sse.event.as_deref() == Some(name) && body["approval"]["approval_id"] == id {
            return body["approval"].clone();
        }
    }
}

/// The audit records of `decision` about approval `id`.
async fn audited(svc: &Service, run: &str, decision: &str, id: &str) -> Vec<Value> {
    svc.audit(run)
        .await
        .into_iter()
        .filter(|e| e["decision"] == decision && e["approval_id"] == id)
        .collect()
}

fn at(offset: Duration) -> Value {
    json!((start_time() + offset).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

#[tokio::test]
async fn a_prompt_asks_who_is_present_then_everyone_after_escalate_after() {
    let svc = Service::start_with(|c| c.policy = routed()).await;
    let (alice, _bob) = two_admins(&svc).await;
    // alice's desk is connected; bob's is not. The owner watches, but may not decide.
    let _alice_desk = svc.events_as(&alice, None).await;
    let mut events = svc.events(None).await;

    let id = open_prompt(&svc, "r-esc").await;
    let requested = next_about(&mut events, "approval.requested", &id).await;
    assert_eq!(
        requested["asked"],
        json!({"step": 1, "people": ["alice"], "basis": "present", "at": at(Duration::zero()), "escalated_to": []}),
        "the prompt asks only alice: she may decide it and is present; bob is away and the \
         owner, present too, may not decide it"
    );
    let asked = audited(&svc, "r-esc", "asked", &id).await;
    assert_eq!(asked.len(), 1, "the first step is audited once: {asked:?}");
    let reason = asked[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("alice") && !reason.contains("bob"),
        "the audit names who was asked, and only them: {reason}"
    );

    svc.clock.advance(Duration::minutes(5));
    let escalated = next_about(&mut events, "approval.updated", &id).await;
    assert_eq!(
        escalated["asked"],
        json!({
            "step": 2, "people": ["alice"], "basis": "present", "at": at(Duration::zero()),
            "escalated_at": at(Duration::minutes(5)), "escalated_to": ["bob"]
        }),
        "unanswered after escalate_after, the prompt asks everyone holding its role: bob too"
    );
    assert_eq!(
        svc.approval(&id).await["asked"],
        escalated["asked"],
        "the approval itself shows both steps, as the event did"
    );
    let record = audited(&svc, "r-esc", "escalated", &id).await;
    assert_eq!(
        record.len(),
        1,
        "the escalation is audited once: {record:?}"
    );
    let reason = record[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("bob") && reason.contains("platform_admin") && reason.contains("5m"),
        "the audit says after how long, to which role, and who was newly asked: {reason}"
    );
    assert!(
        record[0].get("approver").is_none(),
        "nobody decided anything: the service escalated on its own: {}",
        record[0]
    );

    // alice answers; nothing escalates again.
    let (status, answer) = svc
        .post(
            &format!("/v1/approvals/{id}/decision"),
            &alice,
            &json!({"decision": "deny", "reason": "not now"}),
        )
        .await;
    assert_eq!(status, 200, "alice may decide it: {answer}");
    assert_eq!(
        answer["approval"]["asked"]["step"], 2,
        "the settled prompt keeps its steps: {answer}"
    );
    assert_eq!(
        audited(&svc, "r-esc", "escalated", &id).await.len(),
        1,
        "a prompt escalates once"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_prompt_decided_before_its_deadline_never_escalates() {
    let svc = Service::start_with(|c| c.policy = routed()).await;
    let (alice, _bob) = two_admins(&svc).await;
    let mut events = svc.events(None).await;

    // Nobody who may decide is present: the first step asks them all, and says so.
    let early = open_prompt(&svc, "r-early").await;
    let requested = next_about(&mut events, "approval.requested", &early).await;
    assert_eq!(
        (&requested["asked"]["people"], &requested["asked"]["basis"]),
        (&json!(["alice", "bob"]), &json!("nobody_present")),
        "with nobody present a prompt still asks someone: everyone who may decide it"
    );
    svc.clock.advance(Duration::minutes(1));
    let (status, answer) = svc
        .post(
            &format!("/v1/approvals/{early}/decision"),
            &alice,
            &json!({"decision": "deny", "reason": "no"}),
        )
        .await;
    assert_eq!(status, 200, "alice decides within a minute: {answer}");

    // A second prompt, opened later, escalates when its time comes: the sweep that escalates
    // it would have escalated the first one too, had it still been open.
    let late = open_prompt(&svc, "r-late").await;
    svc.clock.advance(Duration::minutes(5));
    let escalated = next_about(&mut events, "approval.updated", &late).await;
    assert_eq!(
        (
            &escalated["asked"]["step"],
            &escalated["asked"]["escalated_to"]
        ),
        (&json!(2), &json!([])),
        "the open prompt escalates; everyone was asked already, so nobody is new"
    );
    let first = svc.approval(&early).await;
    assert_eq!(
        first["asked"]["step"], 1,
        "a prompt decided before escalate_after never escalates: {first}"
    );
    assert!(
        first["asked"].get("escalated_at").is_none(),
        "it has no escalation time: {first}"
    );
    assert!(
        audited(&svc, "r-early", "escalated", &early)
            .await
            .is_empty(),
        "and the audit records none for it"
    );
    svc.stop().await;
}

#[tokio::test]
async fn without_escalate_after_a_prompt_asks_everyone_and_never_escalates() {
    let svc = Service::start().await;
    let (alice, _bob) = two_admins(&svc).await;
    let _alice_desk = svc.events_as(&alice, None).await;
    let mut events = svc.events(None).await;

    let id = open_prompt(&svc, "r-off").await;
    let requested = next_about(&mut events, "approval.requested", &id).await;
    assert_eq!(
        (&requested["asked"]["people"], &requested["asked"]["basis"]),
        (&json!(["alice", "bob"]), &json!("everyone")),
        "an unrouted prompt asks everyone who may decide it, present or not"
    );
    assert!(
        audited(&svc, "r-off", "asked", &id).await.is_empty(),
        "unrouted prompts add no routing records to the audit"
    );

    // A grant expiring at +10 min makes the sweeper's pass at +10 min visible (grant.expired);
    // that pass would escalate the prompt if anything did.
    let maven = svc.submit(&common::maven("r-grant")).await;
    let grant_prompt = maven["approval_id"].as_str().unwrap();
    let (status, answer) = svc
        .decide(
            grant_prompt,
            &json!({"decision": "approve", "scope": "run", "expires_in_seconds": 600}),
        )
        .await;
    assert_eq!(status, 200, "the owner approves the maven prompt: {answer}");
    svc.clock.advance(Duration::minutes(10));
    loop {
        let sse = events.next_event().await;
        let body = sse.json();
        assert!(
            !(sse.event.as_deref() == Some("approval.updated")
                && body["approval"]["approval_id"] == id.as_str()),
            "nothing changes the open prompt without escalate_after: {body}"
        );
        if sse.event.as_deref() == Some("grant.expired") {
            break;
        }
    }
    let approval = svc.approval(&id).await;
    assert_eq!(
        approval["asked"]["step"], 1,
        "ten minutes on, the prompt is still at its first step: {approval}"
    );
    assert!(
        audited(&svc, "r-off", "escalated", &id).await.is_empty(),
        "nothing escalated"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_prompt_overdue_at_a_restart_escalates_when_the_service_starts() {
    let svc = Service::start_with(|c| c.policy = routed()).await;
    let (alice, _bob) = two_admins(&svc).await;
    let alice_desk = svc.events_as(&alice, None).await;
    let mut events = svc.events(None).await;
    let id = open_prompt(&svc, "r-restart").await;
    let requested = loop {
        let sse = events.next_event().await;
        if sse.event.as_deref() == Some("approval.requested") {
            break sse;
        }
    };
    assert_eq!(
        requested.json()["approval"]["asked"]["people"],
        json!(["alice"]),
        "alice is asked first"
    );
    let last_seen = requested.id.clone().unwrap();
    drop(alice_desk);
    drop(events);
    let (dir, clock) = svc.stop().await;

    // Down for six minutes: the prompt's escalation came due while nothing ran.
    clock.advance(Duration::minutes(6));
    let svc = Service::start_in(dir, clock, |c| c.policy = routed()).await;
    let mut events = svc.events(Some(&last_seen)).await;
    let escalated = next_about(&mut events, "approval.updated", &id).await;
    assert_eq!(
        (
            &escalated["asked"]["escalated_to"],
            &escalated["asked"]["escalated_at"]
        ),
        (&json!(["bob"]), &at(Duration::minutes(6))),
        "the service escalates the overdue prompt as it starts, recomputed from the store"
    );
    assert_eq!(
        audited(&svc, "r-restart", "escalated", &id).await.len(),
        1,
        "the escalation is audited once"
    );
    svc.stop().await;
}
