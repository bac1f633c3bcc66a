//! The desk's audit calls (`audit_key`, `audit_verify`) against a real service on a real
//! SQLite file: the key is the data dir's, the chain holds after real decisions, and a reason
//! changed with the `sqlite3` CLI while the service was stopped is named at its event.

use std::process::Command;

use assent_client::{Client, ClientError};
use assent_protocol::{Break, ErrorCode};

use crate::client_service::{request, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_desk_reads_the_audit_key_and_a_verification_that_names_a_changed_event() {
    let dir = tempfile::tempdir().unwrap();
    let service = start(dir.path(), "127.0.0.1:0").await;
    let desk = Client::new(&service.url, &service.approver).unwrap();
    let agent = Client::new(&service.url, &service.requester).unwrap();
    for n in 0..3 {
        agent
            .submit(&request("r1", "ls", &format!("k{n}")))
            .await
            .unwrap();
    }
    let key = desk.audit_key().await.unwrap();
    let on_disk =
        assent_server::audit_chain::AuditKey::load(&dir.path().join("audit-key")).unwrap();
    assert_eq!(
        (key.public_key.as_str(), key.key_id.as_str()),
        (on_disk.public_hex().as_str(), on_disk.key_id().as_str()),
        "the key shown is the data dir's checkpoint key (what `assent audit key` prints)"
    );
    let held = desk.audit_verify().await.unwrap();
    assert!(
        held.report.ok && held.report.events == 3,
        "three audited decisions, an intact chain: {held:?}"
    );
    assert!(
        held.report.last_checkpoint_at.is_some(),
        "the service signed the head at start, so the desk can say when: {held:?}"
    );
    let refused = [
        agent.audit_key().await.map(|_| ()),
        agent.audit_verify().await.map(|_| ()),
    ];
    for refused in refused {
        assert!(
            matches!(
                refused,
                Err(ClientError::Api {
                    code: ErrorCode::Forbidden,
                    ..
                })
            ),
            "an agent's token reads neither the key nor the verification: {refused:?}"
        );
    }
    service.stop().await;

    let edited = Command::new("sqlite3")
        .args(["-cmd", ".timeout 5000"])
        .arg(dir.path().join("assent.db"))
        .arg("UPDATE audit_events SET body = replace(body, '\"auto\"', '\"approved\"') WHERE chain_seq = 2")
        .status()
        .unwrap();
    assert!(edited.success(), "sqlite3 edits the service's file");

    let service = start(dir.path(), "127.0.0.1:0").await;
    let desk = Client::new(&service.url, &service.approver).unwrap();
    let broken = desk.audit_verify().await.unwrap();
    service.stop().await;
    assert!(!broken.report.ok, "an edited event fails the check");
    assert!(
        matches!(
            broken.report.breaks.first(),
            Some(Break::Changed { chain_seq: 2, .. })
        ),
        "the desk is told which event was changed: {:?}",
        broken.report.breaks
    );
}
