//! Routing across two replicas on one PostgreSQL database: a desk connected to one replica
//! makes its person present for prompts opened on the other (presence is kept in the store,
//! not in a replica's memory), and a prompt escalates once however many replicas sweep.

use std::sync::Arc;

use assent_core::{Policy, Role};
use serde_json::{json, Value};

use crate::common::{shell, start_time, Service};

fn routed() -> Policy {
    Policy::from_toml("[routing]\nescalate_after = \"5m\"\n").unwrap()
}

fn cloud(run: &str) -> Value {
    shell(run, "aws s3 rm s3://shop-assets/logo.png", "trusted", None)
}

#[tokio::test]
async fn a_desk_on_one_replica_is_present_for_prompts_opened_on_the_other() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let a = Service::start_in(dir.clone(), clock.clone(), |c| c.policy = routed()).await;
    let b = Service::start_in(dir, clock, |c| c.policy = routed()).await;
    let people = crate::common::backend::directory(&a.data_dir()).await;
    let alice = people
        .add_person("alice", &[Role::PlatformAdmin])
        .await
        .unwrap();
    people
        .add_person("bob", &[Role::PlatformAdmin])
        .await
        .unwrap();
    people
        .roles("owner", &[], &[Role::PlatformAdmin])
        .await
        .unwrap();

    // alice's desk holds replica A's stream; the prompt opens on replica B.
    let _alice_desk = a.events_as(&alice, None).await;
    let mut watching = b.events(None).await;
    let answer = b.submit(&cloud("r-two")).await;
    let id = answer["approval_id"].as_str().unwrap().to_owned();
    let asked = b.approval(&id).await["asked"].clone();
    assert_eq!(
        (&asked["people"], &asked["basis"]),
        (&json!(["alice"]), &json!("present")),
        "replica B knows alice is present from the store, though her desk is on A: {asked}"
    );

    // Both replicas sweep when the clock moves; the prompt escalates once.
    a.clock.advance(chrono::Duration::minutes(5));
    loop {
        let sse = watching.next_event().await;
        if sse.event.as_deref() == Some("approval.updated")
            && sse.json()["approval"]["approval_id"] == id.as_str()
        {
            assert_eq!(
                sse.json()["approval"]["asked"]["escalated_to"],
                json!(["bob"]),
                "the escalation asks bob"
            );
            break;
        }
    }
    let (status, _) = a
        .post(
            &format!("/v1/approvals/{id}/decision"),
            &alice,
            &json!({"decision": "deny", "reason": "no"}),
        )
        .await;
    assert_eq!(status, 200, "alice decides on A");
    let audit = b.audit("r-two").await;
    let escalations = audit
        .iter()
        .filter(|e| e["decision"] == "escalated")
        .count();
    assert_eq!(
        escalations, 1,
        "one escalation record, whichever replica swept first: {audit:?}"
    );
    a.stop().await;
    b.stop().await;
}
