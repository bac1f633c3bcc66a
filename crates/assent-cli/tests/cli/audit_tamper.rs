//! Every tampering of the issue, done the way an attacker with write access would do it —
//! `sqlite3` on the data dir's real file, `psql` on the suite's throwaway PostgreSQL — and
//! then checked as an operator checks: `assent audit verify` on the database, and
//! `assent audit export` (JSONL and CSV) followed by `assent audit verify --from FILE`. Each
//! must fail (exit 1) with its first break at the tampered event, the same on the database
//! and on its export. Also on a database upgraded from before the chain: its older rows are
//! fixed by the record signed when the chain started, so adding, changing or removing one is
//! caught too.

use std::path::Path;
use std::process::{Command, Output};

use assent_server::audit_chain::{link_hash, AuditKey, ChainRow};
use assent_server::{PgStore, SqliteStore, Store};
use assent_test_support::audit::{self, event, psql, sqlite3, t0};
use chrono::Duration;
use serde_json::{json, Value};

/// The audit story as the service writes it: the record of the rows from before the chain
/// (none on a fresh store, the upgraded ones otherwise), then [`audit::story`]. Returns the
/// stored rows (what an attacker reads before rewriting them).
async fn story(store: &dyn Store, key: &AuditKey) -> Vec<ChainRow> {
    store.audit_sign_chain_start(key, t0()).await.unwrap();
    audit::story(store, key).await;
    let rows = store.audit_chain_page(0, 100).await.unwrap();
    rows.into_iter().map(|(_, row)| row).collect()
}

/// SQL quoting for a literal.
fn lit(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The cleverer forgery: an approval slipped in at position 5 with every link after it
/// recomputed (the hash needs no secret), rows 5 and 6 moved down one. Only the checkpoint
/// that signed event 6 can tell.
fn forged_with_links(rows: &[ChainRow]) -> String {
    let at = |seq: i64| rows.iter().find(|r| r.chain_seq == Some(seq)).unwrap();
    let h4 = at(4).hash.clone().unwrap();
    let forged = r#"{"event_id":"forged","timestamp":"2026-01-01T09:00:05Z","approval_id":"p2","run_id":"r1","task_id":"t1","action_kind":"shell","action_hash":"h3","decision":"approved","reason":"approved by owner","policy_version":"v1","evidence_artifact_id":"a3"}"#;
    let hf = link_hash(5, &h4, forged);
    let (b5, b6) = (at(5).body.clone(), at(6).body.clone());
    let h5 = link_hash(6, &hf, &b5);
    let h6 = link_hash(7, &h5, &b6);
    format!(
        "UPDATE audit_events SET event_id = 'forged', body = {}, hash = {} WHERE chain_seq = 5; \
         UPDATE audit_events SET event_id = 'ev-5', body = {}, prev_hash = {}, hash = {} WHERE chain_seq = 6; \
         INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) \
         VALUES ('ev-6', 0, 'r1', 'policy_changed', {}, 7, {}, {})",
        lit(forged),
        lit(&hf),
        lit(&b5),
        lit(&hf),
        lit(&h5),
        lit(&b6),
        lit(&h5),
        lit(&h6),
    )
}

/// One tampering: the SQL both `sqlite3` and `psql` run (given the stored rows; `{overriding}`
/// is where PostgreSQL needs `OVERRIDING SYSTEM VALUE` to take an explicit `seq`), and what
/// the first break must say (`{key_id}`: the id of the key that signed).
struct Tamper {
    name: &'static str,
    sql: fn(&[ChainRow]) -> String,
    first: Value,
}

fn tampers() -> Vec<Tamper> {
    vec![
        Tamper {
            name: "an event's reason changed",
            sql: |_| {
                "UPDATE audit_events SET body = replace(body, 'reason-3', 'nothing to see') WHERE chain_seq = 3".to_owned()
            },
            first: json!({"kind": "changed", "chain_seq": 3, "event_id": "ev-3"}),
        },
        Tamper {
            name: "a denial deleted",
            sql: |_| "DELETE FROM audit_events WHERE decision = 'denied'".to_owned(),
            first: json!({"kind": "missing", "after": 2, "found": 4}),
        },
        Tamper {
            name: "two events swapped",
            sql: |_| {
                "UPDATE audit_events SET body = (SELECT b.body FROM audit_events b WHERE b.chain_seq = 5 - audit_events.chain_seq) WHERE chain_seq IN (2, 3)".to_owned()
            },
            first: json!({"kind": "changed", "chain_seq": 2, "event_id": "ev-3"}),
        },
        Tamper {
            name: "a forged event inserted",
            sql: |_| {
                "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
                  VALUES ('forged', 0, 'r1', 'approved', '{\"event_id\":\"forged\",\"decision\":\"approved\"}')".to_owned()
            },
            first: json!({"kind": "unlinked", "event_id": "forged"}),
        },
        Tamper {
            name: "a forged event inserted before the chain (a low seq, on a store whose chain started empty)",
            sql: |_| FORGED_BEFORE.to_owned(),
            first: json!({"kind": "unlinked", "event_id": "forged"}),
        },
        Tamper {
            name: "a forged event inserted, every link after it recomputed",
            sql: forged_with_links,
            first: json!({"kind": "checkpoint", "id": 2, "why": "it signs a different hash at event 6"}),
        },
        Tamper {
            name: "the last events truncated",
            sql: |_| "DELETE FROM audit_events WHERE chain_seq >= 5".to_owned(),
            first: json!({"kind": "checkpoint", "id": 2, "why": "it signs event 6 which the chain no longer has (truncated?)"}),
        },
        Tamper {
            name: "a checkpoint edited",
            sql: |_| "UPDATE audit_checkpoints SET chain_seq = 3 WHERE id = 1".to_owned(),
            first: json!({"kind": "checkpoint", "id": 1, "why": "it signs a different hash at event 3"}),
        },
    ]
}

fn assent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assent"))
        .args(args)
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap()
}

/// `assent audit verify ARGS --key KEY --json`: its exit code and report.
fn verify(args: &[&str], key: &str) -> (Option<i32>, Value) {
    let mut all = vec!["audit", "verify"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--key", key, "--json"]);
    let out = assent(&all);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify {args:?} answers a JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}

/// Exports `store_args` in `format` into `dir`, returns the file's path.
fn export(store_args: &[&str], format: &str, extra: &[&str], dir: &Path) -> String {
    let mut all = vec!["audit", "export"];
    all.extend_from_slice(store_args);
    all.extend_from_slice(&["--format", format]);
    all.extend_from_slice(extra);
    let out = assent(&all);
    assert!(
        out.status.success(),
        "export {format}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.join(format!("export-{}.{format}", extra.len()));
    std::fs::write(&file, &out.stdout).unwrap();
    file.to_str().unwrap().to_owned()
}

/// A forged approval "from last month" slipped in at table row 0, before every other row,
/// with no link (what an attacker without the key can write).
const FORGED_BEFORE: &str = "INSERT INTO audit_events (seq, event_id, occurred_at, run_id, decision, body) \
    {overriding} VALUES (0, 'forged', 0, 'r1', 'approved', \
    '{\"event_id\":\"forged\",\"decision\":\"approved\",\"reason\":\"alice approved it last month\"}')";

/// Three audit rows as the service wrote them before the chain existed (no link columns):
/// what a database upgraded from then holds, below the rows written since.
fn before_chain_rows() -> String {
    (1..=3)
        .map(|n| {
            let mut e = event(n - 10, "policy_changed", Some(&format!("old{n}")), None);
            e.event_id = format!("old-{n}");
            format!(
                "INSERT INTO audit_events (event_id, occurred_at, run_id, decision, body) \
                 VALUES ({}, 0, 'r0', 'policy_changed', {});",
                lit(&e.event_id),
                lit(&serde_json::to_string(&e).unwrap())
            )
        })
        .collect()
}

/// The tamperings of the rows from before the chain (the story on an upgraded store: three
/// such rows, then events 1..6).
fn tampers_before_the_chain() -> Vec<Tamper> {
    vec![
        Tamper {
            name: "a forged approval inserted before the chain, at a low seq",
            sql: |_| FORGED_BEFORE.to_owned(),
            first: json!({"kind": "unlinked", "event_id": "forged"}),
        },
        Tamper {
            name: "a row from before the chain changed",
            sql: |_| {
                "UPDATE audit_events SET body = replace(body, 'reason--8', 'nothing to see') WHERE event_id = 'old-2'".to_owned()
            },
            first: json!({"kind": "before_chain", "event_id": "old-2",
                "why": "it was changed: its hash is not the hash of what it holds"}),
        },
        Tamper {
            name: "a row from before the chain deleted",
            sql: |_| "DELETE FROM audit_events WHERE event_id = 'old-2'".to_owned(),
            first: json!({"kind": "before_chain", "event_id": "old-3",
                "why": "it does not follow the row before it (that row was removed, or this one moved)"}),
        },
        Tamper {
            name: "the last row from before the chain deleted",
            sql: |_| "DELETE FROM audit_events WHERE event_id = 'old-3'".to_owned(),
            first: json!({"kind": "chain_start",
                "why": "it signs 3 events from before the chain, there are 2"}),
        },
        Tamper {
            name: "the last row from before the chain deleted and the start record edited to match",
            sql: |_| {
                "UPDATE audit_chain_start SET events = 2, \
                   last_seq = (SELECT seq FROM audit_events WHERE event_id = 'old-2'), \
                   head_hash = (SELECT hash FROM audit_events WHERE event_id = 'old-2'); \
                 DELETE FROM audit_events WHERE event_id = 'old-3'"
                    .to_owned()
            },
            first: json!({"kind": "chain_start",
                "why": "its signature does not verify with key {key_id}"}),
        },
        Tamper {
            name: "the start record deleted",
            sql: |_| "DELETE FROM audit_chain_start".to_owned(),
            first: json!({"kind": "chain_start",
                "why": "no signed record of the 3 events from before the chain (the service writes it when it first starts after the upgrade)"}),
        },
    ]
}

/// `tamper` for `backend` signed with `key`: its SQL in that dialect, its break with the key id.
fn for_backend(
    tamper: &Tamper,
    backend: &str,
    key: &AuditKey,
    rows: &[ChainRow],
) -> (String, Tamper) {
    let overriding = if backend == "postgres" {
        "OVERRIDING SYSTEM VALUE"
    } else {
        ""
    };
    let sql = (tamper.sql)(rows).replace("{overriding}", overriding);
    let first = tamper.first.to_string().replace("{key_id}", &key.key_id());
    let tamper = Tamper {
        name: tamper.name,
        sql: tamper.sql,
        first: serde_json::from_str(&first).unwrap(),
    };
    (sql, tamper)
}

/// The checks after one tampering of the store `store_args` names.
fn assert_caught(tamper: &Tamper, backend: &str, store_args: &[&str], key: &str, dir: &Path) {
    let (code, db) = verify(store_args, key);
    assert_eq!(
        code,
        Some(1),
        "[{backend}] {}: verify on the database exits 1: {db}",
        tamper.name
    );
    assert_eq!(
        db["breaks"][0], tamper.first,
        "[{backend}] {}: the first break is at the tampered place: {db}",
        tamper.name
    );
    for format in ["jsonl", "csv"] {
        let file = export(store_args, format, &[], dir);
        let (code, from) = verify(&["--from", &file], key);
        assert_eq!(
            (code, &from),
            (Some(1), &db),
            "[{backend}] {}: verify on its {format} export says exactly what it says on the database",
            tamper.name
        );
    }
}

/// Before any tampering: the story (on a store with `before` rows from before the chain)
/// verifies on the database and on both exports.
fn assert_clean(backend: &str, store_args: &[&str], key: &str, dir: &Path, before: u64) {
    let (code, db) = verify(store_args, key);
    assert_eq!(
        (code, &db["events"], &db["checkpoints"], &db["before_chain"]),
        (Some(0), &json!(6), &json!(2), &json!(before)),
        "[{backend}] the untouched story verifies, its rows from before the chain counted: {db}"
    );
    for format in ["jsonl", "csv"] {
        let file = export(store_args, format, &[], dir);
        assert_eq!(
            verify(&["--from", &file], key),
            (Some(0), db.clone()),
            "[{backend}] its {format} export verifies away from the service, with the same report"
        );
    }
}

/// A fresh store of one backend, and the tool an attacker with write access edits it with:
/// the data dir's file with `sqlite3`, a database of the suite's cluster with `psql`.
enum Backend {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// How `assent audit` names the store (`data_dir` is the SQLite file's directory).
    fn args<'a>(&'a self, data_dir: &'a str) -> [&'a str; 2] {
        match self {
            Backend::Sqlite(_) => ["--data-dir", data_dir],
            Backend::Postgres(url) => ["--database", url],
        }
    }

    /// An edit made outside the service.
    fn edit(&self, sql: &str) {
        match self {
            Backend::Sqlite(db) => sqlite3(db, sql),
            Backend::Postgres(url) => psql(url, sql),
        }
    }

    async fn open(&self) -> Box<dyn Store> {
        match self {
            Backend::Sqlite(db) => Box::new(SqliteStore::open(db).await.unwrap()),
            Backend::Postgres(url) => Box::new(PgStore::open(url).await.unwrap()),
        }
    }
}

/// Each of `tampers`, done to a fresh store that holds the story (after three rows from
/// before the chain when `upgraded`), is caught on the store and on its exports.
fn every_tampering_is_caught(
    fresh: impl Fn(&Path) -> Backend,
    tampers: Vec<Tamper>,
    upgraded: bool,
) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    for tamper in tampers {
        let dir = tempfile::tempdir().unwrap();
        let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
        let backend = fresh(dir.path());
        if upgraded {
            // The schema first (the migrations), then rows as a version before the chain wrote them.
            rt.block_on(async { backend.open().await.close().await });
            backend.edit(&before_chain_rows());
        }
        let rows = rt.block_on(async {
            let store = backend.open().await;
            let rows = story(store.as_ref(), &key).await;
            store.close().await;
            rows
        });
        let d = dir.path().to_str().unwrap();
        let args = backend.args(d);
        let before = if upgraded { 3 } else { 0 };
        assert_clean(backend.name(), &args, &key.public_hex(), dir.path(), before);

        let (sql, tamper) = for_backend(&tamper, backend.name(), &key, &rows);
        backend.edit(&sql);

        assert_caught(
            &tamper,
            backend.name(),
            &args,
            &key.public_hex(),
            dir.path(),
        );
    }
}

fn sqlite(dir: &Path) -> Backend {
    Backend::Sqlite(dir.join("assent.db"))
}

fn postgres(_dir: &Path) -> Backend {
    Backend::Postgres(crate::pg::database())
}

#[test]
fn every_tampering_of_the_sqlite_file_is_caught_on_the_database_and_on_its_exports() {
    every_tampering_is_caught(sqlite, tampers(), false);
}

#[test]
fn every_tampering_before_the_chain_of_an_upgraded_sqlite_file_is_caught() {
    every_tampering_is_caught(sqlite, tampers_before_the_chain(), true);
}

#[test]
fn an_honest_upgraded_database_verifies_and_says_how_many_rows_came_before_the_chain() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("assent.db");
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    rt.block_on(async { SqliteStore::open(&db).await.unwrap().close().await });
    sqlite3(&db, &before_chain_rows());
    let d = dir.path().to_str().unwrap();

    let unsigned = assent(&["audit", "verify", "--data-dir", d]);
    assert_eq!(
        unsigned.status.code(),
        Some(1),
        "until the service has started once, nothing fixes the old rows (a forged one would \
         look the same): {}",
        String::from_utf8_lossy(&unsigned.stdout)
    );

    rt.block_on(async {
        let store = SqliteStore::open(&db).await.unwrap();
        story(&store, &key).await;
        store.close().await;
    });
    let out = assent(&["audit", "verify", "--data-dir", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "after the service's start signed them, the upgraded database verifies: {text}"
    );
    assert!(
        text.contains("3 events from before the chain started"),
        "the operator sees how many rows the chain's links do not cover: {text}"
    );
}

#[test]
fn every_tampering_of_the_postgres_database_is_caught_on_the_database_and_on_its_exports() {
    every_tampering_is_caught(postgres, tampers(), false);
}

#[test]
fn every_tampering_before_the_chain_of_an_upgraded_postgres_database_is_caught() {
    every_tampering_is_caught(postgres, tampers_before_the_chain(), true);
}

#[test]
fn an_export_since_a_time_verifies_from_there_and_catches_a_change_after_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("assent.db");
    let key = AuditKey::load_or_create(&dir.path().join("audit-key")).unwrap();
    rt.block_on(async {
        let store = SqliteStore::open(&db).await.unwrap();
        story(&store, &key).await;
        store.close().await;
    });
    let d = dir.path().to_str().unwrap();
    let since = (t0() + Duration::seconds(4)).to_rfc3339();
    let public = key.public_hex();
    for format in ["jsonl", "csv"] {
        let file = export(&["--data-dir", d], format, &["--since", &since], dir.path());
        let (code, report) = verify(&["--from", &file], &public);
        assert_eq!(
            (code, &report["events"], &report["head_seq"]),
            (Some(0), &json!(3), &json!(6)),
            "[{format}] an export --since holds events 4..6, checked from event 4 on, with both checkpoints: {report}"
        );
        let edited = std::fs::read_to_string(&file)
            .unwrap()
            .replace("reason-5", "reason-five");
        std::fs::write(&file, edited).unwrap();
        let (code, report) = verify(&["--from", &file], &public);
        assert_eq!(
            (code, &report["breaks"][0]),
            (
                Some(1),
                &json!({"kind": "changed", "chain_seq": 5, "event_id": "ev-5"})
            ),
            "[{format}] an event changed in the export is named: {report}"
        );
    }
}
