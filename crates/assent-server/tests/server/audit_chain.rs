//! The audit chain against an attacker with write access to the database: each tampering is
//! done the way one would do it — with the `sqlite3` CLI on the real file and `psql` on the
//! suite's throwaway PostgreSQL — and `verify` must name the first broken place. Also: two
//! replicas appending at once keep one unbroken chain.

use crate::common::pg;

use std::sync::Arc;

use assent_server::audit_chain::{self, AuditKey, Break, Report};
use assent_server::{PgStore, SqliteStore, Store};
use assent_test_support::audit::{event, psql, sqlite3, story, t0};
use chrono::Duration;
use serde_json::json;

/// One tampering, as SQL both `sqlite3` and `psql` run, and the first break it must cause.
struct Tamper {
    name: &'static str,
    sql: &'static str,
    first: fn(&Break) -> bool,
}

fn tampers() -> Vec<Tamper> {
    vec![
        Tamper {
            name: "an event's reason changed",
            sql: "UPDATE audit_events SET body = replace(body, 'reason-3', 'nothing to see') WHERE chain_seq = 3",
            first: |b| matches!(b, Break::Changed { chain_seq: 3, .. }),
        },
        Tamper {
            name: "a denial deleted",
            sql: "DELETE FROM audit_events WHERE chain_seq = 3",
            first: |b| matches!(b, Break::Missing { after: 2, found: 4 }),
        },
        Tamper {
            name: "two events swapped",
            sql: "UPDATE audit_events SET body = (SELECT b.body FROM audit_events b WHERE b.chain_seq = 5 - audit_events.chain_seq) WHERE chain_seq IN (2, 3)",
            first: |b| matches!(b, Break::Changed { chain_seq: 2, .. }),
        },
        Tamper {
            name: "a forged event inserted",
            sql: "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
                  VALUES ('forged', 0, 'r1', 'approved', '{\"event_id\":\"forged\",\"decision\":\"approved\"}')",
            first: |b| matches!(b, Break::Unlinked { event_id } if event_id == "forged"),
        },
        Tamper {
            name: "the last events truncated",
            sql: "DELETE FROM audit_events WHERE chain_seq >= 5",
            first: |b| matches!(b, Break::Checkpoint { id: 2, .. }),
        },
        Tamper {
            name: "a checkpoint edited",
            sql: "UPDATE audit_checkpoints SET chain_seq = 3 WHERE id = 1",
            first: |b| matches!(b, Break::Checkpoint { id: 1, .. }),
        },
    ]
}

fn assert_caught(tamper: &Tamper, report: &Report, backend: &str) {
    assert!(
        !report.ok,
        "[{backend}] {}: verify must fail: {report:?}",
        tamper.name
    );
    let first = report.breaks.first().unwrap();
    assert!(
        (tamper.first)(first),
        "[{backend}] {}: the first break must be at the tampered place, got {:?}",
        tamper.name,
        report.breaks
    );
}

#[tokio::test]
async fn every_tampering_of_a_sqlite_file_is_caught_at_the_right_place() {
    for tamper in tampers() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("assent.db");
        let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
        let store = SqliteStore::open(&db).await.unwrap();
        story(&store, &key).await;
        let clean = audit_chain::verify(&store, &[key.public()]).await.unwrap();
        assert!(clean.ok, "the untouched story verifies: {clean:?}");
        assert_eq!(clean.events, 6, "every audit record is a link");
        store.close().await;

        sqlite3(&db, tamper.sql);

        let store = SqliteStore::open(&db).await.unwrap();
        let report = audit_chain::verify(&store, &[key.public()]).await.unwrap();
        store.close().await;
        assert_caught(&tamper, &report, "sqlite");
    }
}

#[tokio::test]
async fn every_tampering_of_a_postgres_database_is_caught_at_the_right_place() {
    for tamper in tampers() {
        let dir = tempfile::tempdir().unwrap();
        let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
        let url = pg::database();
        let store = PgStore::open(&url).await.unwrap();
        story(&store, &key).await;
        assert!(
            audit_chain::verify(&store, &[key.public()])
                .await
                .unwrap()
                .ok,
            "the untouched story verifies on PostgreSQL"
        );

        psql(&url, tamper.sql);

        let report = audit_chain::verify(&store, &[key.public()]).await.unwrap();
        store.close().await;
        assert_caught(&tamper, &report, "postgres");
    }
}

#[tokio::test]
async fn a_checkpoint_signed_by_another_key_does_not_verify() {
    let dir = tempfile::tempdir().unwrap();
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    let other = AuditKey::load_or_create(&dir.path().join("other-key")).unwrap();
    let store = SqliteStore::open(&dir.path().join("assent.db"))
        .await
        .unwrap();
    story(&store, &key).await;
    let report = audit_chain::verify(&store, &[other.public()])
        .await
        .unwrap();
    store.close().await;
    assert!(
        report
            .breaks
            .iter()
            .all(|b| matches!(b, Break::Signature { .. }))
            && report.breaks.len() == 2,
        "a forger rewriting the chain cannot re-sign its checkpoints without the key: {:?}",
        report.breaks
    );
}

#[tokio::test]
async fn an_execution_without_cover_is_reported_from_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("assent.db"))
        .await
        .unwrap();
    store
        .audit_record(&event(1, "denied", Some("a1"), Some("p1")))
        .await
        .unwrap();
    store
        .audit_record(&event(2, "executed", Some("a1"), Some("p1")))
        .await
        .unwrap();
    let report = audit_chain::verify(&store, &[]).await.unwrap();
    store.close().await;
    assert_eq!(
        report.breaks,
        vec![Break::Uncovered {
            chain_seq: 2,
            event_id: "ev-2".to_owned()
        }],
        "a denied action that ran is uncovered, and the chain itself holds"
    );
}

#[tokio::test]
async fn rows_from_before_the_upgrade_are_counted_not_covered() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("assent.db");
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    let store = SqliteStore::open(&db).await.unwrap();
    store.close().await;
    // An audit row as the service wrote it before the chain existed (no link columns).
    sqlite3(
        &db,
        "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
         VALUES ('old', 0, 'r0', 'policy_changed', '{\"event_id\":\"old\",\"decision\":\"policy_changed\"}')",
    );
    let store = SqliteStore::open(&db).await.unwrap();
    let unsigned = audit_chain::verify(&store, &[key.public()]).await.unwrap();
    let signed = store
        .audit_sign_chain_start(&key, t0())
        .await
        .unwrap()
        .expect("the first start after the upgrade writes the record");
    let again = store.audit_sign_chain_start(&key, t0()).await.unwrap();
    store
        .audit_record(&event(1, "policy_changed", None, None))
        .await
        .unwrap();
    let report = audit_chain::verify(&store, &[key.public()]).await.unwrap();
    store.close().await;
    assert_eq!(
        unsigned.breaks,
        vec![Break::ChainStart {
            why: "no signed record of the 1 events from before the chain (the service writes \
                  it when it first starts after the upgrade)"
                .to_owned()
        }],
        "before the service signs them, nothing tells an old row from one inserted by hand"
    );
    assert_eq!(
        (signed.events, signed.last_seq),
        (1, 1),
        "the record signs the one old row, at table row 1"
    );
    assert_eq!(again, None, "the record is written once, never re-signed");
    assert!(
        report.ok,
        "old rows before the first link, signed at the start, are no break: {report:?}"
    );
    assert_eq!(
        report.before_chain, 1,
        "…but verify says they are not covered"
    );
    assert_eq!(
        report.events, 1,
        "the chain starts at the first row written after the upgrade"
    );
}

#[tokio::test]
async fn a_store_whose_chain_started_empty_takes_no_row_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("assent.db");
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    let store = SqliteStore::open(&db).await.unwrap();
    let signed = store
        .audit_sign_chain_start(&key, t0())
        .await
        .unwrap()
        .unwrap();
    store
        .audit_record(&event(1, "policy_changed", None, None))
        .await
        .unwrap();
    store.close().await;
    sqlite3(
        &db,
        "INSERT INTO audit_events (seq, event_id, occurred_at, run_id, decision, body) \
         VALUES (0, 'forged', 0, 'r1', 'approved', '{\"event_id\":\"forged\",\"decision\":\"approved\"}')",
    );
    let store = SqliteStore::open(&db).await.unwrap();
    let report = audit_chain::verify(&store, &[key.public()]).await.unwrap();
    store.close().await;
    assert_eq!(
        (signed.events, signed.head_hash.as_str()),
        (0, audit_chain::GENESIS),
        "a fresh store's record signs no row"
    );
    assert_eq!(
        report.breaks,
        vec![Break::Unlinked {
            event_id: "forged".to_owned()
        }],
        "so a row without a link at a low seq is one inserted by hand, named"
    );
    assert_eq!(
        report.before_chain, 0,
        "and it is not counted as an old row"
    );
}

#[tokio::test]
async fn two_replicas_appending_at_once_keep_one_unbroken_chain() {
    let url = pg::database();
    let a: Arc<dyn Store> = Arc::new(PgStore::open(&url).await.unwrap());
    let b: Arc<dyn Store> = Arc::new(PgStore::open(&url).await.unwrap());
    // Each replica signs with its own key (its own data dir) every 10 events.
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(assent_server::FakeClock::new(t0()));
    let mut keys = Vec::new();
    for (name, store) in [("a", &a), ("b", &b)] {
        let key = AuditKey::load_or_create(&dir.path().join(name)).unwrap();
        keys.push(key.public());
        store.sign_every(Some(audit_chain::CountSigner {
            key,
            every: 10,
            clock: clock.clone(),
        }));
    }
    let mut tasks = Vec::new();
    for (r, store) in [a.clone(), b.clone()].into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            for n in 0..100 {
                let mut e = event(n, "policy_changed", None, None);
                e.event_id = format!("r{r}-{n}");
                store.audit_record(&e).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let report = audit_chain::verify(a.as_ref(), &keys).await.unwrap();
    let signed = a.audit_checkpoints().await.unwrap();
    a.close().await;
    b.close().await;
    assert!(
        report.ok,
        "the writers' lock serializes the head read, and the checkpoints of both replicas \
         verify with their two keys: {:?}",
        report.breaks
    );
    assert_eq!(
        signed.iter().map(|c| c.chain_seq).collect::<Vec<_>>(),
        (1..=20).map(|n| n * 10).collect::<Vec<_>>(),
        "one checkpoint per 10 events, whichever replica appended the 10th, none doubled"
    );
    assert!(
        signed.iter().any(|c| c.key_id != signed[0].key_id),
        "both replicas signed some of them (one chain of checkpoints across replicas)"
    );
    assert_eq!(report.events, 200, "no append was lost or doubled");
    assert_eq!(
        report.head_seq, 200,
        "positions 1..=200, none repeated or skipped"
    );
}

/// Appends `n` events numbered from `from`, one transaction each (as decisions arrive).
async fn append(store: &dyn Store, from: i64, n: i64) {
    for i in from..from + n {
        store
            .audit_record(&event(i, "policy_changed", None, None))
            .await
            .unwrap();
    }
}

/// Checkpoints every N events, on both stores: signed inside the appending transaction at the
/// first append reaching a multiple of N (a batch crossing one signs its own last event), at
/// the fake clock's time, linked to the one before, and never without new events.
async fn checkpoints_every_n_events(store: &dyn Store, backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    let clock = Arc::new(assent_server::FakeClock::new(t0()));
    store.sign_every(Some(audit_chain::CountSigner {
        key: key.clone(),
        every: 3,
        clock: clock.clone(),
    }));
    append(store, 1, 2).await;
    assert!(
        store.audit_checkpoints().await.unwrap().is_empty(),
        "[{backend}] two events are fewer than three: no checkpoint yet"
    );
    clock.set(t0() + Duration::seconds(30));
    append(store, 3, 4).await;
    let signed = store.audit_checkpoints().await.unwrap();
    assert_eq!(
        signed.iter().map(|c| c.chain_seq).collect::<Vec<_>>(),
        vec![3, 6],
        "[{backend}] the 3rd and the 6th event each close a checkpoint"
    );
    assert_eq!(
        signed[0].signed_at,
        (t0() + Duration::seconds(30)).timestamp_micros(),
        "[{backend}] signed at the service clock's time"
    );
    // One transaction of five events (7..=11) crosses 9: its last event is signed.
    let batch: Vec<_> = (7..12)
        .map(|i| event(i, "policy_changed", None, None))
        .collect();
    let mut tx = store.begin().await.unwrap();
    tx.insert_audits(&batch).await.unwrap();
    tx.commit().await.unwrap();
    let signed = store.audit_checkpoints().await.unwrap();
    assert_eq!(
        signed.last().map(|c| c.chain_seq),
        Some(11),
        "[{backend}] a batch crossing a multiple of three signs the head it leaves: {signed:?}"
    );
    store.sign_every(None);
    append(store, 12, 3).await;
    assert_eq!(
        store.audit_checkpoints().await.unwrap().len(),
        3,
        "[{backend}] without a count signer, appends sign nothing"
    );
    let report = audit_chain::verify(store, &[key.public()]).await.unwrap();
    assert!(
        report.ok && report.checkpoints == 3 && report.last_checkpoint_seq == 11,
        "[{backend}] the count checkpoints form a verified chain of their own: {report:?}"
    );
    assert_eq!(
        report.last_checkpoint_at,
        Some(t0() + Duration::seconds(30)),
        "[{backend}] verify tells when the last checkpoint was signed"
    );
}

#[tokio::test]
async fn a_sqlite_store_signs_a_checkpoint_every_n_events() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("assent.db"))
        .await
        .unwrap();
    checkpoints_every_n_events(&store, "sqlite").await;
    store.close().await;
}

#[tokio::test]
async fn a_postgres_store_signs_a_checkpoint_every_n_events() {
    let store = PgStore::open(&pg::database()).await.unwrap();
    checkpoints_every_n_events(&store, "postgres").await;
    store.close().await;
}

#[tokio::test]
async fn an_audit_key_kept_outside_the_data_dir_is_blocked_like_the_data_dir() {
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("audit-key");
    let given = key.clone();
    let svc = crate::common::Service::start_with(move |c| c.audit_key = Some(given)).await;
    assert!(
        key.exists() && !key.starts_with(svc.data_dir()),
        "the service made its key where --audit-key said, outside its data dir"
    );
    let key = key.display();
    for (name, line) in [
        ("read", format!("cat {key}")),
        ("copied away", format!("cp {key} /tmp/stolen")),
        ("overwritten", format!("echo 00 > {key}")),
        ("deleted", format!("rm -f {key}")),
    ] {
        let answer = svc
            .submit(&crate::common::shell("r-key", &line, "trusted", None))
            .await;
        assert_eq!(
            answer["status"], "blocked",
            "[{name}] an agent never touches the key that signs the audit: {answer}"
        );
        assert!(
            answer["reasons"]
                .to_string()
                .contains("the key that signs Assent's audit"),
            "[{name}] the block says what the file is: {answer}"
        );
    }
    svc.stop().await;
}

#[tokio::test]
async fn the_service_signs_the_rows_from_before_the_chain_when_it_starts() {
    use crate::common::{backend, Service};
    let dir = Arc::new(tempfile::tempdir().unwrap());
    // A store upgraded from before the chain: migrated, with one row written without links.
    backend::open_store(dir.path()).await.close().await;
    backend::tamper(
        dir.path(),
        "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
         VALUES ('old', 0, 'r0', 'policy_changed', '{\"event_id\":\"old\",\"decision\":\"policy_changed\"}')",
    );
    let svc = Service::start_in(dir, Arc::new(assent_server::FakeClock::new(t0())), |_| {}).await;
    let (_, honest) = svc.get("/v1/audit/verify", &svc.approver).await;
    let (dir, clock) = svc.stop().await;
    backend::tamper(
        dir.path(),
        "INSERT INTO audit_events (seq, event_id, occurred_at, run_id, decision, body) {overriding} \
         VALUES (0, 'forged', 0, 'r1', 'approved', '{\"event_id\":\"forged\",\"decision\":\"approved\"}')",
    );
    let svc = Service::start_in(dir, clock, |_| {}).await;
    let (_, forged) = svc.get("/v1/audit/verify", &svc.approver).await;
    svc.stop().await;
    assert_eq!(
        (&honest["report"]["ok"], &honest["report"]["before_chain"]),
        (&json!(true), &json!(1)),
        "the start signed the old row, so the upgraded store verifies: {honest}"
    );
    assert_eq!(
        forged["report"]["breaks"],
        json!([{"kind": "unlinked", "event_id": "forged"}]),
        "a row slipped in below it later is named, and a restart does not sign it: {forged}"
    );
}
