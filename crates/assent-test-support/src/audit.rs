//! The audit chain's test story, on a fake clock: the events, the story the service's own
//! append path writes, and the tools an attacker with write access edits the database with
//! (`sqlite3` on the real file, `psql` on a database of the throwaway cluster).

use std::path::Path;
use std::process::Command;

use assent_core::ApprovalAuditEvent;
use assent_server::audit_chain::AuditKey;
use assent_server::Store;
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::json;

/// The story's start: every event `n` is decided at `t0 + n s`.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 9, 0, 0).unwrap()
}

/// Audit event `n` (`ev-n`, reason `reason-n`, hash `hn`) of run `r1`, decided `decision`.
pub fn event(
    n: i64,
    decision: &str,
    action: Option<&str>,
    approval: Option<&str>,
) -> ApprovalAuditEvent {
    serde_json::from_value(json!({
        "event_id": format!("ev-{n}"),
        "timestamp": t0() + Duration::seconds(n),
        "approval_id": approval,
        "action_id": action,
        "run_id": "r1",
        "task_id": "t1",
        "action_kind": "shell",
        "action_hash": format!("h{n}"),
        "requested_scope": null,
        "decision": decision,
        "reason": format!("reason-{n}"),
        "policy_version": "v1",
        "evidence_artifact_id": format!("a{n}"),
    }))
    .unwrap()
}

/// The story, through the store's own append path: an auto read that ran, a denial, an
/// approval whose action ran, a policy change; checkpoints after event 4 and after event 6.
pub async fn story(store: &dyn Store, key: &AuditKey) {
    let first = [
        event(1, "auto", Some("a1"), None),
        event(2, "executed", Some("a1"), None),
        event(3, "denied", Some("a2"), Some("p2")),
        event(4, "approved", Some("a3"), Some("p3")),
    ];
    for e in &first {
        store.audit_record(e).await.unwrap();
    }
    store
        .audit_checkpoint(key, t0() + Duration::seconds(4))
        .await
        .unwrap();
    for e in [
        event(5, "executed", Some("a3"), Some("p3")),
        event(6, "policy_changed", Some("a6"), None),
    ] {
        store.audit_record(&e).await.unwrap();
    }
    store
        .audit_checkpoint(key, t0() + Duration::seconds(6))
        .await
        .unwrap();
}

/// Runs `cmd`, failing the test with its stderr unless it succeeds.
pub fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sqlite3 DB SQL`, as an attacker with the file runs it. The store's WAL checkpointer may
/// still hold the file a moment after close: wait on it the way sqlite3 would (its busy
/// timeout), not with a sleep.
pub fn sqlite3(db: &Path, sql: &str) {
    run(Command::new("sqlite3")
        .args(["-cmd", ".timeout 5000"])
        .arg(db)
        .arg(sql));
}

/// `psql URL -c SQL`, stopping at the first error.
pub fn psql(url: &str, sql: &str) {
    run(Command::new("psql").args([url, "-v", "ON_ERROR_STOP=1", "-qc", sql]));
}
