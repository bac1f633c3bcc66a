//! Two replicas of the service on one PostgreSQL database behave as one service: a decision
//! on either answers a long-poll on the other, both event streams carry every event with the
//! same ids, of two concurrent decisions exactly one wins, idempotency keys hold across
//! replicas, and a timeout happens once however many replicas sweep. (This binary's name makes
//! `common::backend` choose PostgreSQL; two services on one data dir share its database.)

use crate::common;
use std::sync::Arc;

use crate::common::{maven, shell, start_time, Service};
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Two replicas on one database (and one fake clock, as replicas share real time).
async fn two_replicas() -> (Service, Service) {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let a = Service::start_in(dir.clone(), clock.clone(), |_| {}).await;
    let b = Service::start_in(dir, clock, |_| {}).await;
    (a, b)
}

fn at(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_decision_on_one_replica_answers_a_long_poll_and_both_streams() {
    let (a, b) = two_replicas().await;
    let mut stream_a = a.events(None).await;
    let mut stream_b = b.events(None).await;
    let ask = a.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/approvals/{id}?wait=30");
    let poll = a.get(&path, &a.requester);
    let decide = async {
        // Past the poll's first read: the answer must come from B's commit, via the bus.
        tokio::task::yield_now().await;
        b.approve_for_run(&id).await
    };
    let ((status, polled), decided) = tokio::join!(poll, decide);
    assert_eq!(
        status,
        StatusCode::OK,
        "the long-poll on A is answered: {polled}"
    );
    assert_eq!(
        polled["status"], decided["approval"]["status"],
        "the waiting agent on A sees the decision made on B"
    );
    assert_ne!(
        polled["status"], "requested",
        "the poll ends with the settlement"
    );

    let seen_a = until_settled(&mut stream_a).await;
    let seen_b = until_settled(&mut stream_b).await;
    assert_eq!(
        seen_a.first().map(|(_, kind)| kind.as_str()),
        Some("approval.requested"),
        "the streams carry the prompt opened on A: {seen_a:?}"
    );
    assert_eq!(
        seen_a, seen_b,
        "both replicas' streams carry the same events with the same ids, settlement included"
    );
    a.stop().await;
    b.stop().await;
}

/// (id, event) of a stream's events up to and including `approval.settled`.
/// The persisted events up to the settlement. `approval.waiting` is live only and comes from
/// the replica the gate long-polls, so it is left out of what both streams must share.
async fn until_settled(stream: &mut common::SseReader) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    loop {
        let sse = stream.next_event().await;
        let kind = sse.event.clone().unwrap_or_default();
        if kind == "approval.waiting" {
            continue;
        }
        seen.push((sse.id.expect("every event has an id"), kind.clone()));
        if kind == "approval.settled" {
            return seen;
        }
    }
}

#[tokio::test]
async fn a_stream_resumes_on_another_replica_with_last_event_id() {
    let (a, b) = two_replicas().await;
    let mut on_a = a.events(None).await;
    a.submit(&maven("r-1")).await;
    let first = on_a.next_event().await;
    let last_id = first.id.clone().unwrap();
    let second = a.submit(&maven("r-2")).await;
    let mut on_b = b.events(Some(&last_id)).await;
    let resumed = on_b.next_event().await;
    assert_eq!(
        resumed.json()["approval"]["approval_id"],
        second["approval_id"],
        "B replays what A wrote after the Last-Event-ID A gave"
    );
    assert!(
        resumed.id.unwrap().parse::<i64>().unwrap() > last_id.parse::<i64>().unwrap(),
        "ids keep increasing across replicas"
    );
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn of_two_concurrent_decisions_on_two_replicas_exactly_one_wins() {
    let (a, b) = two_replicas().await;
    for run in 0..5 {
        let ask = a.submit(&maven(&format!("r-{run}"))).await;
        let id = ask["approval_id"].as_str().unwrap();
        let approve = json!({"decision":"approve","scope":"run","expires_in_seconds":600});
        let deny = json!({"decision":"deny","reason":"no"});
        let ((sa, _), (sb, _)) = tokio::join!(a.decide(id, &approve), b.decide(id, &deny));
        let mut statuses = [sa, sb];
        statuses.sort();
        assert_eq!(
            statuses,
            [StatusCode::OK, StatusCode::CONFLICT],
            "exactly one decision wins, the other is told 409"
        );
        let settled = a.audit(&format!("r-{run}")).await;
        let decisions = settled.iter().filter(|e| e["approver"] == "owner").count();
        assert_eq!(decisions, 1, "one decision is audited: {settled:?}");
    }
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn an_idempotency_key_holds_across_replicas() {
    let (a, b) = two_replicas().await;
    let body = shell("r-1", "cargo test", "trusted", Some("key-1"));
    let (first, second) = tokio::join!(a.submit(&body), b.submit(&body));
    assert_eq!(
        first["action_id"], second["action_id"],
        "the same key and body on two replicas are one action: {first} {second}"
    );
    let mut other = body.clone();
    other["action"]["command"] = json!("cargo build");
    let (status, reused) = b.post("/v1/actions", &b.requester, &other).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the key with another body is refused on any replica: {reused}"
    );
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_timeout_happens_once_however_many_replicas_sweep() {
    let (a, b) = two_replicas().await;
    let mut ids = Vec::new();
    for run in 0..4 {
        let ask = a.submit(&maven(&format!("r-{run}"))).await;
        ids.push(ask["approval_id"].as_str().unwrap().to_owned());
    }
    let expires_at = at(&a.approval(&ids[0]).await["expires_at"]);
    let mut stream = b.events(None).await;
    // Both sweepers wake on the clock and race for the same timeouts.
    a.clock.set(expires_at + chrono::Duration::seconds(1));
    let mut settled = Vec::new();
    while settled.len() < ids.len() {
        let sse = stream.next_event().await;
        if sse.event.as_deref() == Some("approval.settled") {
            settled.push(
                sse.json()["approval"]["approval_id"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
    }
    settled.sort();
    ids.sort();
    assert_eq!(settled, ids, "each timeout is announced exactly once");
    for run in 0..4 {
        let audit = b.audit(&format!("r-{run}")).await;
        let timeouts = audit.iter().filter(|e| e["approver"] == "timeout").count();
        assert_eq!(timeouts, 1, "one timeout record per prompt: {audit:?}");
    }
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn concurrent_writes_on_two_replicas_reach_every_stream_in_id_order_without_gaps() {
    let (a, b) = two_replicas().await;
    let mut on_a = a.events(None).await;
    let asks = (0..40).map(|n| {
        let replica = if n % 2 == 0 { &a } else { &b };
        async move { replica.submit(&maven(&format!("burst-{n}"))).await }
    });
    let answered = futures::future::join_all(asks).await;
    // Every event id the stream delivers, until it has seen every prompt opened.
    let (mut ids, mut prompts) = (Vec::new(), 0);
    while prompts < answered.len() {
        let sse = on_a.next_event().await;
        ids.push(sse.id.unwrap().parse::<i64>().unwrap());
        if sse.event.as_deref() == Some("approval.requested") {
            prompts += 1;
        }
    }
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "a stream sees ids in increasing order, whichever replica wrote them: {ids:?}"
    );
    assert_eq!(
        ids.last().unwrap() - ids.first().unwrap() + 1,
        ids.len() as i64,
        "no id is skipped: a commit on one replica is never overtaken by a later id on the other"
    );
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn once_is_one_execution_when_the_gate_waits_on_another_replica() {
    let (a, b) = two_replicas().await;
    let push = shell("r-once", "git push origin main", "unknown", None);
    let ask = a.submit(&push).await;
    assert_eq!(ask["status"], "pending", "a person decides a push: {ask}");
    let id = ask["approval_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/approvals/{id}?wait=30");
    let gate = a.get(&path, &a.requester);
    let decide = async {
        // The ready signal: replica A counts the gate as waiting (bounded, never a sleep).
        let ready = async {
            while a.approval(&id).await["agents_waiting"] != 1 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), ready)
            .await
            .expect("the waiting gate is counted on A");
        b.decide(
            &id,
            &json!({"decision":"approve","scope":"once","expires_in_seconds":600}),
        )
        .await
    };
    let ((_, answered), (status, decided)) = tokio::join!(gate, decide);
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(
        answered["status"], "approved_once",
        "the gate waiting on A got the approval made on B"
    );
    let later = b.submit(&push).await;
    assert_eq!(
        later["status"], "pending",
        "the gate on A ran the one execution, so a later identical push is asked again \
         on any replica, not covered by the spent grant: {later}"
    );
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_prompt_opened_on_a_replica_that_stopped_times_out_on_another() {
    // The machine's clock (nothing moves it by hand), a one-second approval timeout and an
    // hour-long safety cap: B's sweeper, asleep with nothing pending, only looks again in time
    // because A's commit reached B's bus.
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let real_time = |config: &mut assent_server::Config| {
        config.clock = Arc::new(assent_server::SystemClock);
        config.policy.approval_timeout_seconds = 1;
    };
    let a = Service::start_in(dir.clone(), clock.clone(), real_time).await;
    let b = Service::start_in(dir, clock, real_time).await;
    let mut stream_b = b.events(None).await;
    let ask = a.submit(&maven("r-died")).await;
    assert_eq!(ask["status"], "pending", "a person decides maven: {ask}");
    a.stop().await;
    let seen = until_settled(&mut stream_b).await;
    assert_eq!(
        seen.last().map(|(_, kind)| kind.as_str()),
        Some("approval.settled"),
        "the prompt of the stopped replica A timed out on B: {seen:?}"
    );
    let settled = b.approval(ask["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        settled["resolution"], "timed_out",
        "at its deadline, by B's sweeper: {settled}"
    );
    b.stop().await;
}
