//! Seed section 15 through the real service: a grant whose base commit or diff moved stops
//! covering, the agent is asked again, and the old grant shows `invalidated` with the reason
//! in `GET /v1/grants`, on `/v1/events` and in the audit. The other triggers (command, path,
//! network target, credential scope, policy version, revoke, run restart) are in
//! `invalidation_triggers.rs`.

use crate::common::{maven, Service, SseReader};
use crate::grant_moves::{asked, at_base, edit, for_run, granted, listed, once};
use serde_json::{json, Value};

const BASE_A: &str = "abc1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const BASE_B: &str = "def5678bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const DIFF_A: &str = "a1b2c3d4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DIFF_B: &str = "e5f6a7b8bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// The next `grant.invalidated` on the stream.
async fn next_invalidation(events: &mut SseReader) -> Value {
    loop {
        let sse = events.next_event().await;
        if sse.event.as_deref() == Some("grant.invalidated") {
            return sse.json();
        }
    }
}

/// What the person sees of an invalidated grant, everywhere: the list, the stream, the audit.
async fn shows_invalidated(
    svc: &Service,
    events: &mut SseReader,
    grant_id: &str,
    asked: &Value,
    reason: &str,
) {
    let grant = listed(svc, grant_id).await;
    assert_eq!(
        grant["status"], "invalidated",
        "the Grants view shows the old grant as invalidated: {grant}"
    );
    assert_eq!(
        grant["invalidated_reason"], reason,
        "and says what changed: {grant}"
    );
    assert!(
        grant["invalidated_at"].is_string(),
        "and when it stopped counting: {grant}"
    );
    let event = next_invalidation(events).await;
    assert_eq!(
        event["grant"]["grant_id"], grant_id,
        "the stream announces which grant stopped counting: {event}"
    );
    assert_eq!(
        event["grant"]["invalidated_reason"], reason,
        "with the reason: {event}"
    );
    assert_eq!(
        event["action_id"], asked["action_id"],
        "and the request that found it moved: {event}"
    );
    let audit = svc.audit("r-1").await;
    let record = audit
        .iter()
        .find(|e| e["decision"] == "invalidated" && e["grant_id"] == grant_id)
        .unwrap_or_else(|| panic!("the invalidation is audited: {audit:?}"));
    assert_eq!(record["reason"], reason, "the audit says why: {record}");
    assert_eq!(
        record["action_id"], asked["action_id"],
        "the audit names the request that moved it: {record}"
    );
    assert_eq!(
        record["approver"], "owner",
        "the audit names whose approval stopped counting: {record}"
    );
}

#[tokio::test]
async fn a_new_base_commit_invalidates_the_grant_and_asks_again() {
    let svc = Service::start().await;
    let grant_id = granted(&svc, &at_base(maven("r-1"), BASE_A), for_run()).await;
    let mut events = svc.events(None).await;

    let mut elsewhere = at_base(maven("r-1"), BASE_B);
    elsewhere["action"]["cwd"] = json!("/home/dev/other");
    elsewhere["context"]["repo"] = json!("/home/dev/other");
    asked(&svc, &elsewhere, "another repository is not covered").await;
    assert_eq!(
        listed(&svc, &grant_id).await["status"],
        "active",
        "a request in another repository at another commit leaves the grant alone"
    );

    let moved = asked(
        &svc,
        &at_base(maven("r-1"), BASE_B),
        "after the base commit changed the same command is asked again",
    )
    .await;
    let reason = "base commit changed abc1234 → def5678";
    shows_invalidated(&svc, &mut events, &grant_id, &moved, reason).await;
    asked(
        &svc,
        &at_base(maven("r-1"), BASE_A),
        "an invalidated grant never counts again, even back at the old commit",
    )
    .await;
    svc.stop().await;
}

#[tokio::test]
async fn a_changed_diff_invalidates_the_grant_and_asks_again() {
    let svc = Service::start().await;
    let original = edit("r-1", "Cargo.toml", BASE_A, DIFF_A);
    let grant_id = granted(&svc, &original, once(5)).await;
    let mut events = svc.events(None).await;

    asked(
        &svc,
        &edit("r-1", "web/package.json", BASE_A, DIFF_B),
        "an edit of another file is not covered",
    )
    .await;
    assert_eq!(
        listed(&svc, &grant_id).await["status"],
        "active",
        "an edit of another file leaves the grant alone"
    );

    let moved = asked(
        &svc,
        &edit("r-1", "Cargo.toml", BASE_A, DIFF_B),
        "after the diff changed the same edit is asked again",
    )
    .await;
    let reason = "diff changed (a1b2c3d4 → e5f6a7b8)";
    shows_invalidated(&svc, &mut events, &grant_id, &moved, reason).await;
    asked(
        &svc,
        &original,
        "an invalidated grant never counts again, even for the old diff",
    )
    .await;
    let (_, active) = svc.get("/v1/grants?status=active", &svc.approver).await;
    assert!(
        active["grants"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["grant_id"] != grant_id.as_str()),
        "an invalidated grant is not listed as active: {active}"
    );
    let (_, gone) = svc
        .get("/v1/grants?status=invalidated", &svc.approver)
        .await;
    assert_eq!(
        gone["grants"][0]["grant_id"], grant_id,
        "the Grants view can list invalidated grants alone: {gone}"
    );
    svc.stop().await;
}
