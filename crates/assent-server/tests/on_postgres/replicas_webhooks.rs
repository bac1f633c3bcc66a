//! Two replicas on one PostgreSQL database share one outbox: both delivery loops wake on
//! every commit (their own, or the other's via `LISTEN`), and each delivery is claimed
//! (`FOR UPDATE SKIP LOCKED`, then a lease) and sent by exactly one of them.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::{maven, start_time, Service};
use crate::webhooks::{register, until_attempts, Receiver};

#[tokio::test]
async fn each_delivery_is_sent_by_one_replica() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let a = Service::start_in(dir.clone(), clock.clone(), |_| {}).await;
    let b = Service::start_in(dir, clock, |_| {}).await;
    let mut receiver = Receiver::start(vec![]).await;
    let (id, secret) = register(&a, serde_json::json!({"url": receiver.url})).await;

    const DECISIONS: usize = 12;
    for n in 0..DECISIONS {
        let ask = a.submit(&maven(&format!("r-{n}"))).await;
        let approval = ask["approval_id"].as_str().unwrap();
        // Half decided on each replica: both write outbox rows, both loops claim.
        let on = if n % 2 == 0 { &a } else { &b };
        on.approve_for_run(approval).await;
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..DECISIONS {
        let got = receiver.next().await;
        got.verify(&secret);
        *seen.entry(got.id()).or_default() += 1;
    }
    assert_eq!(
        seen.len(),
        DECISIONS,
        "every decision was delivered: {seen:?}"
    );
    // Every delivery is recorded delivered after one attempt: no replica sent one twice.
    until_attempts(&b, &id, 1).await;
    let mut all = Vec::new();
    for _ in 0..500 {
        all = crate::webhooks::deliveries(&b, &id).await;
        if all.iter().all(|row| row["state"] != "pending") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(all.len(), DECISIONS, "one row per decision: {all:?}");
    for row in &all {
        assert_eq!(row["state"], "delivered", "each delivered: {row}");
        assert_eq!(
            row["attempts"].as_array().unwrap().len(),
            1,
            "each attempted once, by one replica: {row}"
        );
    }
    assert!(
        receiver.already().is_empty(),
        "no delivery arrived twice: {seen:?}"
    );
    a.stop().await;
    b.stop().await;
}
