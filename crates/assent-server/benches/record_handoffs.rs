//! What the record of one auto decision costs, two ways, on the real schema (a SQLite file in
//! WAL mode, migrated as the service migrates it). The record is the statements the group
//! commit runs for a lone auto submission — `BEGIN` (at `synchronous=NORMAL`), the next
//! deadline with the audit chain's head and the run's hold (one statement), the action row,
//! the audit row, `COMMIT` —
//! each timed from the caller's `block_on` until it is answered:
//!
//! - **sqlx**: every statement is a round trip to the connection's worker thread — five
//!   hand-offs, and each wakes a thread on the way there and on the way back;
//! - **one hand-off**: a writer thread of its own owns a plain (rusqlite) connection and runs
//!   the whole record where the data is; the caller sends it once and awaits one answer;
//! - and, for the floor, the same statements on the caller's thread (no hand-off at all);
//! - **the store**: the record through `Store::begin_relaxed` and the `Tx` calls the group
//!   commit makes: sqlx, with the statements sent together (`store/sqlite/batch.rs`: the
//!   `BEGIN` with the first read, the writes with the `COMMIT`, two hand-offs), plus the
//!   store's own decoding and chain hashing.
//!
//! The SQL text is the store's (`store/sql/{expiry,runs,actions,chain}.rs`), with the
//! values a `git status` auto decision writes. It is what a synchronous SQLite writer would
//! save per decision (docs/benchmarks.md, "Service"), not a second store.
//!
//! `cargo bench -p assent-server --bench record_handoffs -- --warm-up-time 2 --measurement-time 6`
#![allow(
    clippy::expect_used,
    reason = "bench: a failed set-up or record ends the run"
)]

use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use assent_core::ApprovalAuditEvent;
use assent_server::store::rows::ActionRow;
use assent_server::{SqliteStore, Store};
use criterion::{criterion_group, criterion_main, Criterion};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

/// As the store begins a transaction for the policy's own decisions (`sqlite.rs`).
const BEGIN: &str = "PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE";
/// The next deadline, the audit chain's head and the run's hold, one statement
/// (`store/sql/runs.rs`).
const FIRST_READ: &str = "SELECT d.approval_at, d.grant_at, d.head_seq, d.head_hash, \
     r.run_id, r.status, r.reason, r.approval_id, r.updated_at, r.campaign FROM (SELECT \
     (SELECT expires_at FROM approval_requests WHERE status = $1 \
     ORDER BY expires_at LIMIT 1) AS approval_at, (SELECT expires_at FROM approval_grants \
     WHERE expiry_announced = 0 AND revoked_at IS NULL ORDER BY expires_at LIMIT 1) AS grant_at, \
     (SELECT chain_seq FROM audit_events WHERE chain_seq IS NOT NULL \
     ORDER BY chain_seq DESC LIMIT 1) AS head_seq, \
     (SELECT hash FROM audit_events WHERE chain_seq IS NOT NULL \
     ORDER BY chain_seq DESC LIMIT 1) AS head_hash) \
     AS d LEFT JOIN runs AS r ON r.status <> $2 AND r.run_id IN ($3)";
const INSERT_ACTION: &str = "INSERT INTO actions (id, requester, idempotency_key, body_hash, \
     run_id, task_id, action_hash, decision, status, approval_id, batch_position, grant_id, \
     command_line, response, created_at, action_kind, policy_version) \
     VALUES ($1, 'agent', NULL, '', $2, $2, $3, 'auto', 'allowed', NULL, NULL, NULL, \
     'git status', $4, $5, 'shell', 'default-1')";
const INSERT_AUDIT: &str = "INSERT INTO audit_events \
     (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) \
     VALUES ($1, $2, $3, 'auto', $4, $5, $6, $7)";
const RUN: &str = "bench-run";

/// An answer and an audit body of the sizes a `git status` decision stores (≈ 0.5 and 1.2 KB).
fn response() -> String {
    format!(
        r#"{{"decision":"auto","status":"allowed","reasons":["{}"]}}"#,
        "r".repeat(450)
    )
}

fn audit_body() -> String {
    format!(
        r#"{{"decision":"auto","evidence":"{}"}}"#,
        "e".repeat(1_150)
    )
}

/// The chain's next hash: any 64 hex digits will do here (both ways compute the same).
fn hash_of(seq: i64) -> String {
    format!("{seq:064x}")
}

fn options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
}

/// A database file migrated as the service's, and one writer connection to it (the store's
/// writer pool has one).
async fn migrated(path: &Path) -> SqlitePool {
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .connect_with(options(path))
        .await
        .expect("open the bench database");
    sqlx::migrate!("./migrations/sqlite")
        .run(&pool)
        .await
        .expect("migrate the bench database");
    pool
}

/// The record through sqlx: five round trips to the connection's thread.
async fn record_sqlx(pool: &SqlitePool, n: i64, response: &str, body: &str) -> sqlx::Result<()> {
    let mut tx = pool.begin_with(BEGIN).await?;
    let first = sqlx::query(FIRST_READ)
        .bind("requested")
        .bind("running")
        .bind(RUN)
        .fetch_all(&mut *tx)
        .await?;
    let head = first.first().map(|row| {
        (
            row.get::<Option<i64>, _>("head_seq"),
            row.get::<Option<String>, _>("head_hash"),
        )
    });
    let (seq, prev) = match head {
        Some((Some(seq), Some(hash))) => (seq, hash),
        _ => (0, String::new()),
    };
    sqlx::query(INSERT_ACTION)
        .bind(format!("action-{n}"))
        .bind(RUN)
        .bind(hash_of(n))
        .bind(response)
        .bind(n)
        .execute(&mut *tx)
        .await?;
    sqlx::query(INSERT_AUDIT)
        .bind(format!("event-{n}"))
        .bind(n)
        .bind(RUN)
        .bind(body)
        .bind(seq + 1)
        .bind(prev)
        .bind(hash_of(seq + 1))
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// The same statements in place, on the writer thread's own connection.
fn record_in_place(
    conn: &rusqlite::Connection,
    n: i64,
    response: &str,
    body: &str,
) -> rusqlite::Result<()> {
    conn.execute_batch(BEGIN)?;
    let written = (|| {
        let mut first = conn.prepare_cached(FIRST_READ)?;
        let mut rows = first.query(["requested", "running", RUN])?;
        let mut head = (0, String::new());
        while let Some(row) = rows.next()? {
            if let (Some(seq), Some(hash)) = (row.get(2)?, row.get(3)?) {
                head = (seq, hash);
            }
        }
        let (seq, prev) = head;
        conn.prepare_cached(INSERT_ACTION)?
            .execute(rusqlite::params![
                format!("action-{n}"),
                RUN,
                hash_of(n),
                response,
                n
            ])?;
        conn.prepare_cached(INSERT_AUDIT)?
            .execute(rusqlite::params![
                format!("event-{n}"),
                n,
                RUN,
                body,
                seq + 1,
                prev,
                hash_of(seq + 1)
            ])?;
        Ok(())
    })();
    match written {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(err) => {
            conn.execute_batch("ROLLBACK")?;
            Err(err)
        }
    }
}

/// A record for the writer thread, and where its answer goes.
struct Job {
    n: i64,
    answer: oneshot::Sender<rusqlite::Result<()>>,
}

/// Starts the writer thread over the database at `path`; it ends when the sender is dropped.
fn writer(path: &Path, response: String, body: String) -> mpsc::Sender<Job> {
    let conn = rusqlite::Connection::open(path).expect("open the writer's connection");
    conn.busy_timeout(Duration::from_secs(5))
        .expect("set the busy timeout");
    let (jobs, queue) = mpsc::channel::<Job>();
    thread::spawn(move || {
        for job in queue {
            let _ = job
                .answer
                .send(record_in_place(&conn, job.n, &response, &body));
        }
    });
    jobs
}

fn record_handoffs(c: &mut Criterion) {
    let runtime = Runtime::new().expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    let (response, body) = (response(), audit_body());

    let pool = runtime.block_on(migrated(&dir.path().join("sqlx.db")));
    let mut n = 0_i64;
    c.bench_function("auto record: sqlx, a round trip per statement", |b| {
        b.iter(|| {
            n += 1;
            runtime
                .block_on(record_sqlx(&pool, n, &response, &body))
                .expect("the record commits");
        });
    });
    runtime.block_on(pool.close());

    // The floor: the same statements on the caller's own thread, no hand-off at all.
    let path = dir.path().join("in-place.db");
    runtime.block_on(async { migrated(&path).await.close().await });
    let conn = rusqlite::Connection::open(&path).expect("open the connection");
    let mut n = 0_i64;
    c.bench_function("auto record: in place, no hand-off", |b| {
        b.iter(|| {
            n += 1;
            record_in_place(&conn, n, &response, &body).expect("the record commits");
        });
    });
    drop(conn);

    let path = dir.path().join("writer.db");
    runtime.block_on(async { migrated(&path).await.close().await });
    let jobs = writer(&path, response.clone(), body.clone());
    let mut n = 0_i64;
    c.bench_function("auto record: a writer thread, one hand-off", |b| {
        b.iter(|| {
            n += 1;
            let (answer, answered) = oneshot::channel();
            jobs.send(Job { n, answer }).expect("the writer runs");
            runtime
                .block_on(answered)
                .expect("the writer answers")
                .expect("the record commits");
        });
    });
}

/// An auto decision's action row and audit record as the group commit writes them.
fn decision(n: i64, response: &str, body: &str) -> (ActionRow, ApprovalAuditEvent) {
    let answer: assent_protocol::SubmitResponse = serde_json::from_value(serde_json::json!({
        "action_id": format!("action-{n}"), "action_hash": hash_of(n), "decision": "auto",
        "risk": "low", "reasons": [response], "rule": "shell.read", "status": "allowed",
    }))
    .expect("an answer");
    let row = ActionRow {
        id: format!("action-{n}"),
        requester: "agent".to_owned(),
        idempotency_key: None,
        body_hash: String::new(),
        run_id: RUN.to_owned(),
        task_id: RUN.to_owned(),
        action_hash: hash_of(n),
        decision: assent_core::Decision::Auto,
        status: assent_protocol::SubmitStatus::Allowed,
        approval_id: None,
        batch_position: None,
        grant_id: None,
        command_line: Some("git status".to_owned()),
        response: answer,
        created_at: chrono::Utc::now(),
        action_kind: assent_core::ActionKind::Shell,
        policy_version: "default-1".to_owned(),
    };
    let audit = serde_json::from_value(serde_json::json!({
        "event_id": format!("event-{n}"), "timestamp": chrono::Utc::now(),
        "approval_id": null, "action_id": format!("action-{n}"), "run_id": RUN, "task_id": RUN,
        "action_kind": "shell", "action_hash": hash_of(n), "requested_scope": null,
        "decision": "auto", "reason": body, "policy_version": "default-1",
        "evidence_artifact_id": format!("evidence-{n}"),
    }))
    .expect("an audit record");
    (row, audit)
}

/// The record through the store, as the group commit calls it.
async fn record_store(store: &SqliteStore, n: i64, response: &str, body: &str) {
    let (row, audit) = decision(n, response, body);
    let mut tx = store.begin_relaxed().await.expect("begin");
    tx.deadline_and_holds(&[RUN]).await.expect("the first read");
    tx.insert_actions(&[row]).await.expect("the action row");
    tx.insert_audits(&[audit]).await.expect("the audit row");
    tx.commit().await.expect("the record commits");
}

fn store_record(c: &mut Criterion) {
    let runtime = Runtime::new().expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    let (response, body) = (response(), audit_body());
    let store = runtime
        .block_on(SqliteStore::open(&dir.path().join("store.db")))
        .expect("open the store");
    let mut n = 0_i64;
    c.bench_function("auto record: the store", |b| {
        b.iter(|| {
            n += 1;
            runtime.block_on(record_store(&store, n, &response, &body));
        });
    });
    runtime.block_on(store.close());
}

criterion_group!(benches, record_handoffs, store_record);
criterion_main!(benches);
