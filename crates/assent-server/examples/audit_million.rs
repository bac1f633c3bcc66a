//! What the audit chain costs to build and to check at scale, on a real SQLite file:
//! `cargo run --release -p assent-server --example audit_million -- [N] [DIR]`. Appends N
//! audit events through the store's own append path (`Tx::insert_audits`, 256 per
//! transaction as the group commit batches them), signs a checkpoint, then times
//! `audit_chain::verify` over them. With DIR the data dir is kept there (for `assent audit
//! verify --data-dir DIR`), else a temp dir.

use std::time::Instant;

use assent_core::ApprovalAuditEvent;
use assent_server::audit_chain::{self, AuditKey};
use assent_server::store::{SqliteStore, Store};
use chrono::{Duration, TimeZone, Utc};

const PER_TX: usize = 256;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .unwrap_or_else(|| "1000000".to_owned())
        .parse()?;
    let temp = tempfile::tempdir()?;
    let dir = args
        .next()
        .map_or_else(|| temp.path().to_owned(), Into::into);
    std::fs::create_dir_all(&dir)?;
    let key = AuditKey::load_or_create(&dir.join(audit_chain::KEY_FILE))?;
    let store = SqliteStore::open(&dir.join("assent.db")).await?;
    let t0 = Utc
        .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .ok_or("time")?;
    let template: ApprovalAuditEvent = serde_json::from_value(serde_json::json!({
        "event_id": "", "timestamp": t0, "action_id": "a", "run_id": "bench-run",
        "task_id": "bench-task", "action_kind": "shell",
        "action_hash": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "requested_scope": null, "decision": "auto",
        "reason": "read-only command in the workspace (rule read_only)",
        "policy_version": "v1", "evidence_artifact_id": "a",
    }))?;
    let started = Instant::now();
    let mut written = 0;
    while written < n {
        let batch: Vec<ApprovalAuditEvent> = (written..n.min(written + PER_TX))
            .map(|i| {
                let mut e = template.clone();
                e.event_id = format!("ev-{i}");
                e.action_id = Some(format!("a-{i}"));
                e.timestamp = t0 + Duration::microseconds(i64::try_from(i).unwrap_or(0));
                e
            })
            .collect();
        let mut tx = store.begin().await?;
        tx.insert_audits(&batch).await?;
        tx.commit().await?;
        written += batch.len();
    }
    let append = started.elapsed();
    store.audit_checkpoint(&key, t0).await?;
    println!(
        "appended {n} linked events in {:.1} s ({:.2} µs/event, {PER_TX} per transaction)",
        append.as_secs_f64(),
        append.as_secs_f64() * 1e6 / n as f64
    );
    let started = Instant::now();
    let report = audit_chain::verify(&store, &[key.public()]).await?;
    println!(
        "verified {} events and {} checkpoint(s) in {:.2} s: ok = {}",
        report.events,
        report.checkpoints,
        started.elapsed().as_secs_f64(),
        report.ok
    );
    store.close().await;
    Ok(())
}
