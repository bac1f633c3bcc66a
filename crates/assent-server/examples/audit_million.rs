//! What the audit chain costs to build and to check at scale, on a real SQLite file:
//! `cargo run --release -p assent-server --example audit_million -- [N] [DIR]`. Appends N
//! audit events through the store's own append path (`Tx::insert_audits`, 256 per
//! transaction as the group commit batches them), signs a checkpoint, then times
//! `audit_chain::verify` over them, then exports them (JSONL, then CSV) into a file in the
//! data dir as `assent audit export` does and times `verify --from` on each. With DIR the data dir is kept there (for `assent audit
//! verify --data-dir DIR`), else a temp dir. With `postgres://…` after DIR the events go to
//! that (empty) PostgreSQL database instead, and DIR keeps only the key (for `assent audit
//! verify --database URL --key-dir DIR`).

use std::time::Instant;

use assent_core::ApprovalAuditEvent;
use assent_server::audit_chain::{self, AuditKey};
use assent_server::store::{PgStore, SqliteStore, Store};
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
    let store: Box<dyn Store> = match args.next() {
        Some(url) => Box::new(PgStore::open(&url).await?),
        None => Box::new(SqliteStore::open(&dir.join("assent.db")).await?),
    };
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
    let report = audit_chain::verify(store.as_ref(), &[key.public()]).await?;
    println!(
        "verified {} events and {} checkpoint(s) in {:.2} s: ok = {}",
        report.events,
        report.checkpoints,
        started.elapsed().as_secs_f64(),
        report.ok
    );
    // What `assent audit export` and `assent audit verify --from` run, into a file in DIR.
    for (format, name) in [
        (audit_chain::Format::Jsonl, "export.jsonl"),
        (audit_chain::Format::Csv, "export.csv"),
    ] {
        let path = dir.join(name);
        let started = Instant::now();
        let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        audit_chain::export(store.as_ref(), None, format, file).await?;
        let exported = started.elapsed();
        let size = std::fs::metadata(&path)?.len();
        let started = Instant::now();
        let report = audit_chain::verify_export(&path, &[key.public()])?;
        println!(
            "exported {name} ({:.0} MB) in {:.2} s; verified it in {:.2} s: ok = {}",
            size as f64 / 1e6,
            exported.as_secs_f64(),
            started.elapsed().as_secs_f64(),
            report.ok && report.events == n as u64
        );
        std::fs::remove_file(&path)?;
    }
    store.close().await;
    Ok(())
}
