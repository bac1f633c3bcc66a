use std::time::Duration;

use crate::common::{maven, Service};
use serde_json::json;

#[tokio::test]
async fn every_change_is_an_event_with_an_increasing_id() {
    let svc = Service::start().await;
    let mut events = svc.events(None).await;
    let first = svc.submit(&maven("r-1")).await;
    svc.submit(&maven("r-1")).await;
    let id = first["approval_id"].as_str().unwrap();
    let decided = svc.approve_for_run(id).await;
    svc.submit(&maven("r-1")).await;
    let grant_id = decided["grant"]["grant_id"].as_str().unwrap();
    svc.post(
        &format!("/v1/grants/{grant_id}/revoke"),
        &svc.approver,
        &json!({"reason":"done"}),
    )
    .await;
    svc.post("/v1/runs/r-1/end", &svc.requester, &json!({}))
        .await;

    let expected = [
        "approval.requested",
        "approval.updated",
        "approval.settled",
        "grant.created",
        "grant.used",
        "grant.revoked",
        "run.ended",
    ];
    let mut last_id = 0_i64;
    for name in expected {
        let event = events.next_event().await;
        assert_eq!(
            event.event.as_deref(),
            Some(name),
            "events arrive in order: {event:?}"
        );
        let id: i64 = event.id.as_deref().unwrap().parse().unwrap();
        assert!(id > last_id, "ids increase ({id} after {last_id})");
        last_id = id;
        let data = event.json();
        assert_eq!(
            data["type"], name,
            "data carries the type of the one event enum"
        );
        assert_eq!(data["id"], id, "data carries the same id");
    }
    svc.stop().await;
}

#[tokio::test]
async fn resume_with_last_event_id_replays_what_was_missed() {
    let svc = Service::start().await;
    let mut events = svc.events(None).await;
    svc.submit(&maven("r-1")).await;
    let seen = events.next_event().await;
    drop(events);

    let missed_a = svc.submit(&maven("r-2")).await;
    let missed_b = svc.submit(&maven("r-3")).await;
    let mut resumed = svc.events(seen.id.as_deref()).await;
    let a = resumed.next_event().await;
    let b = resumed.next_event().await;
    assert_eq!(
        a.json()["approval"]["approval_id"],
        missed_a["approval_id"],
        "the first missed event is replayed"
    );
    assert_eq!(
        b.json()["approval"]["approval_id"],
        missed_b["approval_id"],
        "then the second, in order"
    );
    let live = svc.submit(&maven("r-4")).await;
    let c = resumed.next_event().await;
    assert_eq!(
        c.json()["approval"]["approval_id"],
        live["approval_id"],
        "after the replay it goes live"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_client_too_far_behind_gets_reset() {
    let svc = Service::start_with(|config| config.replay_limit = 3).await;
    for run in 0..6 {
        svc.submit(&maven(&format!("r-{run}"))).await;
    }
    let mut behind = svc.events(Some("1")).await;
    let reset = behind.next_event().await;
    assert_eq!(
        reset.event.as_deref(),
        Some("reset"),
        "five events behind a window of three is a reset"
    );
    assert_eq!(
        reset.id.as_deref(),
        Some("6"),
        "the reset carries the id to resume from"
    );
    let live = svc.submit(&maven("r-live")).await;
    let next = behind.next_event().await;
    assert_eq!(
        next.json()["approval"]["approval_id"],
        live["approval_id"],
        "after a reset it goes live"
    );

    let mut future = svc.events(Some("999")).await;
    assert_eq!(
        future.next_event().await.event.as_deref(),
        Some("reset"),
        "an id from the future resets"
    );
    let mut garbage = svc.events(Some("abc")).await;
    assert_eq!(
        garbage.next_event().await.event.as_deref(),
        Some("reset"),
        "a malformed id resets"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_heartbeat_comment_keeps_the_stream_alive() {
    let svc = Service::start_with(|config| config.heartbeat = Duration::from_millis(100)).await;
    let mut events = svc.events(None).await;
    let beat = events.next().await;
    assert_eq!(
        beat.comment.as_deref(),
        Some("heartbeat"),
        "an idle stream sends heartbeat comments"
    );
    svc.stop().await;
}

#[tokio::test]
async fn expiry_is_announced_by_the_sweeper() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let decided = svc
        .decide(
            ask["approval_id"].as_str().unwrap(),
            &json!({"decision":"approve","scope":"run","expires_in_seconds":60}),
        )
        .await
        .1;
    let pending = svc.submit(&maven("r-2")).await;
    let mut events = svc.events(None).await;
    svc.clock.advance(chrono::Duration::days(1));
    let mut names = Vec::new();
    for _ in 0..2 {
        let event = events.next_event().await;
        names.push(event.event.clone().unwrap());
        let data = event.json();
        match event.event.as_deref() {
            Some("grant.expired") => assert_eq!(
                data["grant"]["grant_id"], decided["grant"]["grant_id"],
                "the grant expired"
            ),
            Some("approval.settled") => {
                assert_eq!(
                    data["approval"]["approval_id"], pending["approval_id"],
                    "the open prompt timed out"
                );
                assert_eq!(data["approval"]["resolution"], "timed_out", "as a timeout");
            }
            other => panic!("unexpected event {other:?}"),
        }
    }
    names.sort();
    assert_eq!(
        names,
        ["approval.settled", "grant.expired"],
        "both expiries are announced once"
    );
    svc.stop().await;
}

/// A gate that gives up is announced on the stream (`approval.waiting`), once the stop held
/// past the pause between two long-poll rounds, and the list says when: a desk can tell the
/// person the agent stopped waiting instead of showing the prompt as live.
#[tokio::test]
async fn an_agent_that_stops_waiting_is_announced_with_when() {
    let svc = Service::start().await;
    let mut events = svc.events(None).await;
    let submitted = svc.submit(&maven("r-wait")).await;
    let id = submitted["approval_id"].as_str().unwrap().to_owned();
    let requested = events.next_event().await;
    assert_eq!(requested.event.as_deref(), Some("approval.requested"));

    // The agent's gate long-polls for 1 s, then gives up.
    let (status, waited) = svc
        .get(&format!("/v1/approvals/{id}?wait=1"), &svc.requester)
        .await;
    assert_eq!(status, 200, "the long poll answers when its wait is over");
    assert_eq!(waited["status"], "requested", "still pending: {waited}");

    let first = events.next_event().await;
    assert_eq!(
        (
            first.event.as_deref(),
            first.json()["agents_waiting"].as_u64()
        ),
        (Some("approval.waiting"), Some(1)),
        "the first agent waiting is announced: {first:?}"
    );
    assert_eq!(
        first.id, requested.id,
        "a live-only event keeps the stream's position, so a resume replays from there"
    );
    let stop = tokio::time::timeout(Duration::from_secs(10), events.next_event())
        .await
        .expect("the stop is announced within the grace");
    let data = stop.json();
    assert_eq!(
        (stop.event.as_deref(), data["agents_waiting"].as_u64()),
        (Some("approval.waiting"), Some(0)),
        "the stop is announced: {data}"
    );
    let at = data["stopped_waiting_at"]
        .as_str()
        .expect("the stop says when the agent left");
    let listed = svc.approval(&id).await;
    assert_eq!(
        listed["agents_stopped_waiting_at"].as_str(),
        Some(at),
        "the approval says the same to a desk that fetches it later"
    );
    assert_eq!(listed["agents_waiting"], 0, "nobody waits");

    // Settled, nobody waits on it any more: it no longer says an agent stopped.
    svc.decide(&id, &json!({"decision":"deny","reason":"no"}))
        .await;
    assert!(
        svc.approval(&id)
            .await
            .get("agents_stopped_waiting_at")
            .is_none(),
        "only a pending prompt says its agent stopped waiting"
    );
    svc.stop().await;
}
