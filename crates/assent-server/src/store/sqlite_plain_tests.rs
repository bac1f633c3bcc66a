//! The plain writer against sqlx's: the same rows, byte for byte; everything beyond the plain
//! record handed back (`NotPlain`) with nothing written; one writer at a time.

use std::sync::Arc;

use assent_core::{ActionKind, ApprovalAuditEvent, Decision};
use assent_protocol::{RunStatus, SubmitResponse, SubmitStatus};
use chrono::{DateTime, Duration, TimeZone, Utc};
use rusqlite::types::Value;
use serde_json::json;

use crate::store::rows::{ActionRow, HoldRow};
use crate::store::{SqliteStore, Store, StoreError, Tx};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, 9, 0, 0).unwrap()
}

/// Action row `n`: every third with an idempotency key, every other without the optional
/// columns, so both NULL and text are bound in each.
fn action(n: usize) -> ActionRow {
    let keyed = n.is_multiple_of(3);
    let full = n.is_multiple_of(2);
    let response: SubmitResponse = serde_json::from_value(json!({
        "action_id": format!("a{n}"), "action_hash": format!("h{n}"), "decision": "auto",
        "risk": "low", "reasons": [format!("reason {n} — ünïcode")], "rule": "shell.read",
        "status": "allowed",
    }))
    .unwrap();
    ActionRow {
        id: format!("a{n:04}"),
        requester: "agent".to_owned(),
        idempotency_key: keyed.then(|| format!("key-{n}")),
        body_hash: format!("body-{n}"),
        run_id: format!("r{}", n % 4),
        task_id: "t".to_owned(),
        action_hash: format!("h{n}"),
        decision: if n.is_multiple_of(5) {
            Decision::Block
        } else {
            Decision::Auto
        },
        status: if n.is_multiple_of(5) {
            SubmitStatus::Blocked
        } else {
            SubmitStatus::Allowed
        },
        approval_id: full.then(|| format!("p{n}")),
        batch_position: full.then_some(i64::try_from(n).unwrap()),
        grant_id: full.then(|| format!("g{n}")),
        command_line: full.then(|| format!("git status -- 'quoted {n}'")),
        response,
        created_at: t0() + Duration::microseconds(i64::try_from(n).unwrap() * 1_001),
        action_kind: ActionKind::Shell,
        policy_version: "v1".to_owned(),
    }
}

fn audit(n: usize) -> ApprovalAuditEvent {
    serde_json::from_value(json!({
        "event_id": format!("ev-{n:04}"),
        "timestamp": t0() + Duration::milliseconds(i64::try_from(n).unwrap()),
        "approval_id": null,
        "action_id": format!("a{n:04}"),
        "run_id": format!("r{}", n % 4),
        "task_id": "t",
        "action_kind": "shell",
        "action_hash": format!("h{n}"),
        "requested_scope": null,
        "decision": if n.is_multiple_of(5) { "blocked" } else { "auto" },
        "reason": format!("reason {n}"),
        "policy_version": "v1",
        "evidence_artifact_id": format!("ev-artifact-{n}"),
    }))
    .unwrap()
}

async fn open(dir: &tempfile::TempDir, name: &str) -> SqliteStore {
    SqliteStore::open(&dir.path().join(name)).await.unwrap()
}

/// Every row of `table`, every column, as SQLite stores it (type and value).
fn dump(dir: &tempfile::TempDir, name: &str, table: &str) -> Vec<Vec<Value>> {
    let conn = rusqlite::Connection::open(dir.path().join(name)).unwrap();
    let mut statement = conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY 1"))
        .unwrap();
    let columns = statement.column_count();
    let rows = statement
        .query_map([], |row| {
            (0..columns)
                .map(|i| row.get::<_, Value>(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// A pending prompt (`mvn -B test` of run r1, for 10 minutes) and a paused run r2, written
/// the full way: the batch's first read then has a deadline and a hold to answer.
async fn prompt_and_hold(store: &SqliteStore) {
    let request: assent_core::ActionRequest = serde_json::from_value(json!({
        "run_id": "r1", "task_id": "t", "requested_by": "agent",
        "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/work/shop"},
        "context": {"repo": "/work/shop"}
    }))
    .unwrap();
    let eval = assent_core::evaluate(
        &assent_core::Policy::default(),
        &request,
        &assent_core::Environment::new("/home/dev"),
    )
    .unwrap();
    let s = crate::store::Submission {
        action_id: "a-ask".to_owned(),
        requester: "agent".to_owned(),
        body_hash: String::new(),
        request: request.clone(),
        eval: eval.clone(),
        now: t0(),
        approval_expires_at: t0() + Duration::minutes(10),
        fallback_on_timeout: assent_core::FallbackOnTimeout::Pause,
        required_approvals: 1,
        denials_since: None,
        screen: false,
        routed: false,
    };
    let row = crate::store::rows::ApprovalRow {
        id: "p1".to_owned(),
        run_id: "r1".to_owned(),
        task_id: "t".to_owned(),
        requester: "agent".to_owned(),
        batch_key: eval.batch_key.clone(),
        action_kind: request.action.kind,
        risk: eval.decision.risk,
        requested_scope: eval.decision.offered_scopes.clone(),
        required_role: eval.decision.required_role,
        action_hash: eval.action_hash.clone(),
        first_request: request,
        detail: crate::store::rows::PromptDetail::of(&crate::store::rows::Recording::of(&s)),
        expires_at: s.approval_expires_at,
        created_at: t0(),
        asked: None,
    };
    let mut tx: Box<dyn Tx> = store.begin().await.unwrap();
    tx.insert_approval(&row).await.unwrap();
    tx.hold_run(HoldRow {
        run_id: "r2",
        status: RunStatus::Paused,
        reason: "paused by a fallback",
        approval_id: "p1",
        now: t0(),
        campaign: None,
    })
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// One batch of 130 plain decisions (past the 128 rows of one INSERT) recorded by the plain
/// writer in one database and by sqlx's in another: the batch's first read answers alike, the
/// idempotency lookup too, and every column of every row written is the same value of the same
/// type — the plain writer runs the statements sqlx runs, bound with sqlx's encoding.
#[tokio::test]
async fn the_plain_record_is_sqlxs_row_for_row() {
    let dir = tempfile::tempdir().unwrap();
    let plain = open(&dir, "plain.db").await;
    let full = open(&dir, "full.db").await;
    let rows: Vec<_> = (0..130).map(action).collect();
    let audits: Vec<_> = (0..130).map(audit).collect();
    let mut answers = Vec::new();
    for (store, relaxed) in [(&plain, true), (&full, false)] {
        prompt_and_hold(store).await;
        let mut tx: Box<dyn Tx> = if relaxed {
            store.begin_relaxed().await.unwrap()
        } else {
            store.begin().await.unwrap()
        };
        let first = tx.deadline_and_holds(&["r1", "r2", "r3"]).await.unwrap();
        tx.insert_actions(&rows).await.unwrap();
        tx.insert_audits(&audits).await.unwrap();
        let keyed_3 = tx.keyed_action("agent", "key-3").await.unwrap();
        let unkeyed = tx.keyed_action("agent", "key-4").await.unwrap();
        tx.commit().await.unwrap();
        let keyed = |k: Option<crate::store::rows::KeyedAnswer>| {
            k.map(|k| (k.body_hash, serde_json::to_value(k.response).unwrap()))
        };
        answers.push((first, keyed(keyed_3), keyed(unkeyed)));
    }
    assert_eq!(
        answers[0], answers[1],
        "the plain writer reads what sqlx's reads (deadline, holds, keyed answers)"
    );
    assert_eq!(
        answers[0].0 .0,
        Some(t0() + Duration::minutes(10)),
        "the deadline read is the pending prompt's expiry, not nothing"
    );
    assert!(
        answers[0].0 .1.contains_key("r2"),
        "the paused run is read as held"
    );
    assert!(
        answers[0].1.is_some(),
        "key-3 was written in this transaction and is found"
    );
    for table in ["actions", "audit_events"] {
        let (a, b) = (dump(&dir, "plain.db", table), dump(&dir, "full.db", table));
        assert_eq!(a.len(), 130, "all 130 rows of {table} were written");
        assert_eq!(
            a, b,
            "{table}: the plain writer's rows are sqlx's, column by column"
        );
    }
    let report = crate::audit_chain::verify(&plain, &[]).await.unwrap();
    assert!(
        report.ok && report.events == 130,
        "the plain writer's chain verifies: {:?}",
        report.breaks
    );
    plain.close().await;
    full.close().await;
}

/// What the plain writer does not write, it hands back (`NotPlain`) and writes nothing; the
/// transaction rolls back as it drops, and the writers' lock is free for the full way.
#[tokio::test]
async fn beyond_the_plain_record_nothing_is_written_and_the_full_way_follows() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, "assent.db").await;
    let mut tx = store.begin_relaxed().await.unwrap();
    tx.deadline_and_holds(&["r1"]).await.unwrap();
    tx.insert_actions(&[action(1)]).await.unwrap();
    let event = assent_protocol::Event::RunEnded {
        run_id: "r1".to_owned(),
        requester: None,
    };
    assert!(
        matches!(
            tx.insert_event(t0(), &event).await,
            Err(StoreError::NotPlain)
        ),
        "an event is more than the plain record"
    );
    assert!(
        matches!(tx.run_holds(&["r1"]).await, Err(StoreError::NotPlain)),
        "so is the re-read of holds after an expiry"
    );
    drop(tx);
    assert!(
        dump(&dir, "assent.db", "actions").is_empty(),
        "the dropped plain transaction wrote nothing"
    );
    let again = store.begin_relaxed().await;
    assert!(
        again.is_ok(),
        "and it was rolled back: the plain connection begins again"
    );
    drop(again);
    let mut full = store.begin().await.unwrap();
    full.deadline_and_holds(&["r1"]).await.unwrap();
    full.insert_actions(&[action(1)]).await.unwrap();
    full.commit().await.unwrap();
    assert_eq!(
        dump(&dir, "assent.db", "actions").len(),
        1,
        "the full way wrote it after"
    );
    store.close().await;
}

/// The plain writer's appends cross a checkpoint of a count signer: that is the full way's
/// (it signs inside its transaction), so the plain one hands the batch back.
#[tokio::test]
async fn a_checkpoint_due_sends_the_batch_the_full_way() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, "assent.db").await;
    let key = crate::audit_chain::AuditKey::load_or_create(&dir.path().join("key")).unwrap();
    store.sign_every(Some(crate::audit_chain::CountSigner {
        key,
        every: 3,
        clock: Arc::new(crate::FakeClock::new(t0())),
    }));
    let mut tx = store.begin_relaxed().await.unwrap();
    tx.deadline_and_holds(&[]).await.unwrap();
    tx.insert_audits(&[audit(1), audit(2)]).await.unwrap();
    tx.commit().await.unwrap();
    let mut tx = store.begin_relaxed().await.unwrap();
    tx.deadline_and_holds(&[]).await.unwrap();
    assert!(
        matches!(
            tx.insert_audits(&[audit(3)]).await,
            Err(StoreError::NotPlain)
        ),
        "the third event closes a checkpoint: not the plain writer's"
    );
    drop(tx);
    assert_eq!(
        dump(&dir, "assent.db", "audit_events").len(),
        2,
        "two plain appends committed, the third handed back"
    );
    let mut full = store.begin().await.unwrap();
    full.deadline_and_holds(&[]).await.unwrap();
    full.insert_audits(&[audit(3)]).await.unwrap();
    full.commit().await.unwrap();
    assert_eq!(
        store.audit_checkpoints().await.unwrap().len(),
        1,
        "the full way (its transaction could begin: the plain one rolled back) signed it"
    );
    store.close().await;
}

/// A reused idempotency key is the client's `Conflict` on the plain writer as on sqlx's.
#[tokio::test]
async fn a_reused_key_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, "assent.db").await;
    let mut tx = store.begin_relaxed().await.unwrap();
    tx.insert_actions(&[action(3)]).await.unwrap();
    let mut again = action(3);
    again.id = "another".to_owned();
    assert!(
        matches!(
            tx.insert_actions(&[again]).await,
            Err(StoreError::Conflict(_))
        ),
        "key-3 of the same requester twice is a conflict, not a fall back"
    );
    drop(tx);
    store.close().await;
}

/// Another process holding SQLite's write lock: the plain writer does not wait inside SQLite
/// (its busy handler would sleep on the caller's thread), it hands the batch to the full way.
#[tokio::test]
async fn a_lock_held_elsewhere_is_not_waited_for_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, "assent.db").await;
    let other = rusqlite::Connection::open(dir.path().join("assent.db")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    assert!(
        matches!(store.begin_relaxed().await, Err(StoreError::NotPlain)),
        "the write lock is taken: the batch goes the full way"
    );
    other.execute_batch("ROLLBACK").unwrap();
    let tx = store.begin_relaxed().await;
    assert!(tx.is_ok(), "once it is free, the plain writer begins");
    drop(tx);
    store.close().await;
}

/// sqlx's writer and the plain one take turns under one lock: a plain transaction begun while
/// an sqlx one is open waits for it (instead of finding SQLite's lock taken and falling back),
/// and then sees what it wrote.
#[tokio::test]
async fn the_two_writers_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(open(&dir, "assent.db").await);
    let mut full = store.begin().await.unwrap();
    full.insert_actions(&[action(3)]).await.unwrap();
    let waiting = tokio::spawn({
        let store = store.clone();
        async move {
            let mut tx = store.begin_relaxed().await?;
            tx.keyed_action("agent", "key-3").await
        }
    });
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    assert!(
        !waiting.is_finished(),
        "the plain writer waits while sqlx's transaction is open"
    );
    full.commit().await.unwrap();
    let seen = waiting.await.unwrap();
    assert!(
        matches!(&seen, Ok(Some(k)) if k.body_hash == "body-3"),
        "after the commit it begins, and reads the row committed: {seen:?}"
    );
    store.close().await;
}

/// A plain connection out of service (its rollback failed, and it was closed rather than left
/// holding SQLite's lock) is opened again by the next plain transaction.
#[tokio::test]
async fn a_plain_connection_out_of_service_is_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir, "assent.db").await;
    store.plain_out_of_service(None).await;
    let mut tx = store.begin_relaxed().await.unwrap();
    tx.deadline_and_holds(&[]).await.unwrap();
    tx.insert_actions(&[action(1)]).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        dump(&dir, "assent.db", "actions").len(),
        1,
        "the connection opened again wrote the record"
    );
    store.close().await;
}
