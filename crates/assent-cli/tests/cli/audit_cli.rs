//! `assent audit key|verify|export` as an operator runs them: on the data dir's SQLite file,
//! and on an export kept elsewhere; tampering is done with the `sqlite3` CLI on the real file
//! and with a text edit of the export, and `verify` must name the place and exit 1.

use std::path::Path;
use std::process::{Command, Output};

use assent_core::ApprovalAuditEvent;
use assent_server::audit_chain::AuditKey;
use assent_server::{SqliteStore, Store};
use chrono::Utc;
use serde_json::json;

/// Audit event `n` of the shared story's shape, action `a{n}`, no approval.
fn event(n: i64, decision: &str) -> ApprovalAuditEvent {
    assent_test_support::audit::event(n, decision, Some(&format!("a{n}")), None)
}

/// A data dir holding the chain's start record, five audit events (the third a denial) and a
/// checkpoint of them, as the service leaves it; returns the public key.
fn data_dir(dir: &Path) -> String {
    let events = [
        (1, "auto"),
        (2, "auto"),
        (3, "denied"),
        (4, "auto"),
        (5, "auto"),
    ];
    data_dir_of(dir, events.map(|(n, d)| event(n, d)).to_vec())
}

/// A data dir holding the chain's start record, `events` and a checkpoint of them, as the
/// service leaves it; returns the public key.
fn data_dir_of(dir: &Path, events: Vec<ApprovalAuditEvent>) -> String {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let key = AuditKey::load_or_create(&dir.join("audit-key")).unwrap();
        let store = SqliteStore::open(&dir.join("assent.db")).await.unwrap();
        // As the service's start does: the record of the rows before the chain (none here).
        store
            .audit_sign_chain_start(&key, Utc::now())
            .await
            .unwrap();
        for event in &events {
            store.audit_record(event).await.unwrap();
        }
        store.audit_checkpoint(&key, Utc::now()).await.unwrap();
        store.close().await;
        key.public_hex()
    })
}

fn assent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assent"))
        .args(args)
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn key_prints_the_public_key_that_verifies_the_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let public = data_dir(dir.path());
    let d = dir.path().to_str().unwrap();
    let out = assent(&["audit", "key", "--key-dir", d]);
    assert!(out.status.success(), "the key exists once the service ran");
    assert_eq!(
        text(&out).trim(),
        public,
        "it prints the public half, never the secret"
    );
    let out = assent(&["audit", "verify", "--data-dir", d, "--key", &public]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "an untouched chain verifies: {}",
        text(&out)
    );
}

#[test]
fn a_deleted_denial_is_named_on_the_database_and_on_an_export_taken_before() {
    let dir = tempfile::tempdir().unwrap();
    data_dir(dir.path());
    let d = dir.path().to_str().unwrap();
    let export = assent(&["audit", "export", "--data-dir", d]);
    assert!(export.status.success(), "export succeeds");
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    let f = file.to_str().unwrap();
    let out = assent(&["audit", "verify", "--from", f, "--key-dir", d]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the export verifies away from the service: {}",
        text(&out)
    );

    let sqlite = Command::new("sqlite3")
        .args(["-cmd", ".timeout 5000"])
        .arg(dir.path().join("assent.db"))
        .arg("DELETE FROM audit_events WHERE decision = 'denied'")
        .status()
        .unwrap();
    assert!(sqlite.success());
    let out = assent(&["audit", "verify", "--data-dir", d]);
    assert_eq!(out.status.code(), Some(1), "a broken chain exits 1");
    assert!(
        text(&out).contains("events missing after 2: the next one is 4"),
        "verify names where the chain breaks: {}",
        text(&out)
    );
}

#[test]
fn an_edited_export_is_caught_at_the_edited_event() {
    let dir = tempfile::tempdir().unwrap();
    data_dir(dir.path());
    let d = dir.path().to_str().unwrap();
    let export = assent(&["audit", "export", "--data-dir", d]);
    let edited = String::from_utf8(export.stdout)
        .unwrap()
        .replace("reason-4", "all fine");
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, edited).unwrap();
    let out = assent(&[
        "audit",
        "verify",
        "--from",
        file.to_str().unwrap(),
        "--key-dir",
        d,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an edited export does not verify"
    );
    assert!(
        text(&out).contains("event 4 (ev-4) was changed"),
        "it names the edited event: {}",
        text(&out)
    );
}

#[test]
fn csv_export_has_one_line_per_event_checkpoint_and_the_chain_start() {
    let dir = tempfile::tempdir().unwrap();
    data_dir(dir.path());
    let out = assent(&[
        "audit",
        "export",
        "--data-dir",
        dir.path().to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    let csv = text(&out);
    let kinds: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "header",
            "chain_start",
            "checkpoint",
            "event",
            "event",
            "event",
            "event",
            "event"
        ],
        "after the column names: the export's header, the chain's start record (so \
         `verify --from` checks the rows before the chain too), the checkpoint, the five events"
    );
}

#[test]
fn an_execution_nothing_covered_is_reported_next_to_the_links_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = SqliteStore::open(&dir.path().join("assent.db"))
            .await
            .unwrap();
        // a1 was denied, then reported as run; a2 was auto-allowed and ran: covered.
        let mut denied = event(1, "denied");
        denied.action_id = Some("a1".to_owned());
        let mut ran = event(2, "executed");
        ran.action_id = Some("a1".to_owned());
        let mut auto = event(3, "auto");
        auto.action_id = Some("a2".to_owned());
        let mut covered = event(4, "executed");
        covered.action_id = Some("a2".to_owned());
        for e in [denied, ran, auto, covered] {
            store.audit_record(&e).await.unwrap();
        }
        store.close().await;
    });
    let d = dir.path().to_str().unwrap();
    let out = assent(&["audit", "verify", "--data-dir", d]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an uncovered execution fails verify like a broken link (exit 1): {}",
        text(&out)
    );
    let said = text(&out);
    assert!(
        said.contains(
            "BROKEN event 2 (ev-2): an execution no auto decision, grant or approval covered"
        ),
        "verify names the execution nothing allowed: {said}"
    );
    assert!(
        !said.contains("event 4 (ev-4)"),
        "the auto-allowed execution is covered by the chain's own earlier event: {said}"
    );
    let json = assent(&["audit", "verify", "--data-dir", d, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["breaks"],
        json!([{"kind": "uncovered", "chain_seq": 2, "event_id": "ev-2"}]),
        "the JSON report lists it among the breaks: {report}"
    );
}

/// `assent audit verify --data-dir DIR --json`: the report.
fn report_of(data_dir: &Path) -> serde_json::Value {
    let out = assent(&[
        "audit",
        "verify",
        "--data-dir",
        &data_dir.to_string_lossy(),
        "--json",
    ]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("verify --json prints JSON ({e}): {}", text(&out)))
}

/// Runs the real `assent gate claude-code` `n` times for `git status` in run `run` against
/// `service`; each must be answered allow (an auto read).
fn gate_git_status(service: &crate::gate_support::Service, run: &str, n: usize) {
    use crate::gate_support::{finish, payload, spawn_with_stdin};
    let repo = tempfile::tempdir().unwrap();
    let env = [
        ("ASSENT_URL", service.url.as_str()),
        ("ASSENT_TOKEN", service.requester.as_str()),
    ];
    for n in 0..n {
        let hook = payload(
            "PreToolUse",
            run,
            &format!("tool-{n}"),
            "Bash",
            json!({ "command": "git status" }),
            repo.path(),
        );
        let ran = finish(spawn_with_stdin(
            &["gate", "claude-code"],
            &env,
            hook.to_string().as_bytes(),
        ));
        assert_eq!(ran.code, 0, "an auto read is answered: {}", ran.stderr);
        assert_eq!(ran.decision(), "allow", "git status is auto-allowed");
    }
}

/// The real service signs the chain's head when it stops: decisions made since the last
/// checkpoint (fewer than `--audit-checkpoint-events`, before the minute's timer) are under a
/// signature once it has shut down, so a tail truncated afterwards is caught.
#[test]
fn the_service_signs_the_chains_head_when_it_stops() {
    use crate::gate_support::Service;
    let mut service = Service::start();
    gate_git_status(&service, "run-stop", 3);
    let running = report_of(&service.data_dir);
    let events = running["events"].as_i64().unwrap();
    assert!(
        events >= 3,
        "the three decisions are in the chain: {running}"
    );
    assert!(
        running["last_checkpoint_seq"].as_i64().unwrap_or(0) < events,
        "precondition: while it runs, the newest decisions are not yet signed: {running}"
    );

    let status = service.terminate();
    assert!(status.success(), "SIGTERM is a clean stop: {status}");
    let stopped = report_of(&service.data_dir);
    assert_eq!(
        stopped["ok"], true,
        "the chain verifies after the stop: {stopped}"
    );
    assert_eq!(
        stopped["last_checkpoint_seq"].as_i64(),
        Some(events),
        "the stop signed the head: every decision is under a signature: {stopped}"
    );
}

/// The policy's own decisions are answered once committed, before the disk has them (the WAL
/// is fsynced a moment later): a crash of the service right after the answer must still lose
/// none of them. Killed with SIGKILL at once after the last answer, no shutdown code running,
/// every decision the gate was answered is in the chain, which verifies.
#[test]
fn auto_decisions_answered_survive_the_service_being_killed() {
    use crate::gate_support::Service;
    let mut service = Service::start();
    gate_git_status(&service, "run-crash", 5);
    let status = service.kill_hard();
    assert!(
        !status.success(),
        "precondition: the service was killed, not stopped: {status}"
    );

    let report = report_of(&service.data_dir);
    assert_eq!(
        report["ok"], true,
        "the chain verifies after the crash: {report}"
    );
    let out = assent(&[
        "audit",
        "export",
        "--data-dir",
        &service.data_dir.to_string_lossy(),
    ]);
    let exported = text(&out);
    let decided = exported
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|line| line["kind"] == "event")
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line["body"].as_str().unwrap()).unwrap()
        })
        .filter(|body| body["run_id"] == "run-crash" && body["decision"] == "auto")
        .count();
    assert_eq!(
        decided, 5,
        "each of the five answered auto decisions is in the audit after the crash:\n{exported}"
    );
}

/// A data dir whose chain holds an auto decision asked by agent `bot` and a policy change
/// nobody asked for, with a checkpoint of both.
fn data_dir_with_a_requester(dir: &Path) {
    let mut asked = event(1, "auto");
    asked.requester = Some("bot".to_owned());
    data_dir_of(dir, vec![asked, event(2, "policy_changed")]);
}

fn verify_from(file: &Path, key_dir: &str) -> Output {
    assent(&[
        "audit",
        "verify",
        "--from",
        file.to_str().unwrap(),
        "--key-dir",
        key_dir,
    ])
}

#[test]
fn csv_export_names_the_requester_in_a_last_column_that_verify_holds_to_the_body() {
    let dir = tempfile::tempdir().unwrap();
    data_dir_with_a_requester(dir.path());
    let d = dir.path().to_str().unwrap();
    let jsonl = assent(&["audit", "export", "--data-dir", d]);
    assert!(
        text(&jsonl).contains(r#"\"requester\":\"bot\""#),
        "a JSONL export carries the requester inside the event's body, as stored and hashed: {}",
        text(&jsonl)
    );
    let out = assent(&["audit", "export", "--data-dir", d, "--format", "csv"]);
    assert!(out.status.success(), "the CSV export succeeds");
    let csv = text(&out);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("kind,chain_seq,prev_hash,hash,body,requester"),
        "the columns people and scripts already read keep their places; requester is added last"
    );
    let events: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("event,"))
        .collect();
    assert!(
        events.len() == 2 && events[0].ends_with(r#","bot""#) && events[1].ends_with("}\","),
        "the event bot asked names it in the last column; the one nobody asked for leaves it \
         empty: {events:?}"
    );
    assert!(
        lines
            .iter()
            .skip(1)
            .filter(|l| !l.starts_with("event,"))
            .all(|l| l.ends_with("\",")),
        "the header, start record and checkpoint lines have the column too, empty: {lines:?}"
    );
    let file = dir.path().join("export.csv");
    std::fs::write(&file, &csv).unwrap();
    let out = verify_from(&file, d);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the CSV export with the new column verifies away from the service: {}",
        text(&out)
    );

    // Only the column edited: the body (and so the chain) still says bot.
    std::fs::write(&file, csv.replace(r#","bot""#, r#","bot2""#)).unwrap();
    let out = verify_from(&file, d);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a requester column that disagrees with its hashed body is refused, so the column a \
         spreadsheet shows can never say another agent asked than the chain does"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("requester column (bot2)"),
        "the refusal names the column: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A CSV export written before the column existed: five columns.
    let before: Vec<String> = lines
        .iter()
        .map(|l| match l.rsplit_once(',') {
            Some((columns, _)) => columns.to_owned(),
            None => (*l).to_owned(),
        })
        .collect();
    assert_eq!(
        before.first().map(String::as_str),
        Some("kind,chain_seq,prev_hash,hash,body"),
        "the old header"
    );
    std::fs::write(&file, before.join("\n")).unwrap();
    let out = verify_from(&file, d);
    assert_eq!(
        out.status.code(),
        Some(0),
        "CSV exports kept from before the requester column still verify: {}",
        text(&out)
    );
}
