//! Two replicas on one PostgreSQL database: when many requests at a new base commit arrive on
//! both at once, the grant they moved is invalidated exactly once — one audit record, one
//! `grant.invalidated` — and every request is asked. (This binary's name makes
//! `common::backend` choose PostgreSQL; two services on one data dir share its database.)

use std::sync::Arc;

use crate::common::{maven, start_time, Service};
use crate::grant_moves::{at_base, for_run, granted, listed};
use serde_json::json;

const BASE_A: &str = "abc1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const BASE_B: &str = "def5678bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

#[tokio::test]
async fn replicas_racing_at_a_new_base_commit_invalidate_the_grant_once() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let a = Service::start_in(dir.clone(), clock.clone(), |_| {}).await;
    let b = Service::start_in(dir, clock, |_| {}).await;
    let grant_id = granted(&a, &at_base(maven("r-1"), BASE_A), for_run()).await;

    let moved = at_base(maven("r-1"), BASE_B);
    let submits = (0..8).map(|i| {
        let replica = if i % 2 == 0 { &a } else { &b };
        replica.submit(&moved)
    });
    let answers = futures::future::join_all(submits).await;
    for answer in &answers {
        assert_eq!(
            answer["status"], "pending",
            "every request at the new base commit is asked, on either replica: {answer}"
        );
    }
    let grant = listed(&b, &grant_id).await;
    assert_eq!(
        grant["invalidated_reason"], "base commit changed abc1234 → def5678",
        "both replicas see the one invalidation: {grant}"
    );

    let audit = a.audit("r-1").await;
    let invalidations = audit
        .iter()
        .filter(|e| e["decision"] == "invalidated")
        .count();
    assert_eq!(
        invalidations, 1,
        "the invalidation is audited once however many requests raced: {audit:?}"
    );
    let mut events = a.events(Some("0")).await;
    a.post("/v1/runs/r-1/end", &a.requester, &json!({})).await;
    let mut announced = 0;
    loop {
        let sse = events.next_event().await;
        match sse.event.as_deref() {
            Some("grant.invalidated") => announced += 1,
            Some("run.ended") => break,
            _ => {}
        }
    }
    assert_eq!(announced, 1, "and announced once on the stream");
    a.stop().await;
    b.stop().await;
}
