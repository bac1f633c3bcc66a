//! Team mode with the real binary: `assent serve` replicas on one throwaway PostgreSQL, and
//! identities made by `assent people|agents add --database URL`.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::gate_support::team::{admin, name_database, team};
use crate::gate_support::{self, finish, free_port, runtime, BIN};
use crate::pg;

/// One `assent serve` replica on a database; killed on drop.
struct Replica {
    child: Child,
    url: String,
    data_dir: tempfile::TempDir,
}

impl Replica {
    /// Starts a replica; `via_env` names the database with ASSENT_DATABASE_URL instead of the
    /// flag.
    fn start(database: &str, via_env: bool) -> Replica {
        Replica::start_in(database, via_env, tempfile::tempdir().unwrap())
    }

    /// Starts a replica keeping its state (its audit key) in `data_dir`.
    fn start_in(database: &str, via_env: bool, data_dir: tempfile::TempDir) -> Replica {
        let port = free_port();
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data_dir.path())
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        name_database(&mut cmd, database, via_env);
        let mut replica = Replica {
            child: cmd.spawn().unwrap(),
            url: format!("http://127.0.0.1:{port}"),
            data_dir,
        };
        replica.wait_ready();
        replica
    }

    /// Polls `/healthz` until the replica answers (the ready signal of a separate process).
    fn wait_ready(&mut self) {
        let client = assent_client::blocking::Client::new(&self.url, "none").unwrap();
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if client
                .health(Instant::now() + Duration::from_secs(1))
                .is_ok()
            {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("assent serve exited early with {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("assent serve did not become healthy");
    }

    fn client(&self, token: &str) -> assent_client::Client {
        assent_client::Client::new(&self.url, token).unwrap()
    }
}

impl Replica {
    /// The data dir, the process killed (so a restart can take it over).
    fn take_data_dir(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::mem::replace(&mut self.data_dir, tempfile::tempdir().unwrap())
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn token_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".token"))
        .collect()
}

#[test]
fn identities_made_with_database_work_on_every_replica_and_no_token_file_is_written() {
    let database = pg::database();
    let a = Replica::start(&database, false);
    let b = Replica::start(&database, true);
    let alice = admin(
        &["people", "add", "alice", "--role", "repo_maintainer"],
        &database,
        false,
    );
    assert_eq!(
        alice.code, 0,
        "people add --database works: {}",
        alice.stderr
    );
    let agent = admin(&["agents", "add", "ci-bot"], &database, true);
    assert_eq!(
        agent.code, 0,
        "agents add with ASSENT_DATABASE_URL works: {}",
        agent.stderr
    );
    let (alice, agent) = (alice.stdout.trim(), agent.stdout.trim());
    assert!(
        alice.starts_with("assent_p_"),
        "a person's token is printed: {alice}"
    );
    assert!(
        agent.starts_with("assent_a_"),
        "an agent's token is printed: {agent}"
    );

    let rt = runtime();
    for replica in [&a, &b] {
        let me = rt.block_on(replica.client(alice).me()).unwrap();
        assert_eq!(me.name, "alice", "alice's token works on every replica");
        let me = rt.block_on(replica.client(agent).me()).unwrap();
        assert_eq!(
            me.name, "ci-bot",
            "the agent's token works on every replica"
        );
        assert!(
            token_files(replica.data_dir.path()).is_empty(),
            "with a database URL no token file is written"
        );
    }

    let listed = admin(&["people", "list", "--json"], &database, false);
    assert_eq!(
        listed.code, 0,
        "people list --database works: {}",
        listed.stderr
    );
    assert_eq!(
        listed.json()["identities"][0]["name"],
        "alice",
        "the list reads the shared database"
    );
    let roles = admin(
        &["people", "roles", "alice", "--add", "security_reviewer"],
        &database,
        false,
    );
    assert_eq!(
        roles.code, 0,
        "people roles --database works: {}",
        roles.stderr
    );
    let removed = admin(&["agents", "remove", "ci-bot"], &database, false);
    assert_eq!(
        removed.code, 0,
        "agents remove --database works: {}",
        removed.stderr
    );
    assert!(
        rt.block_on(b.client(agent).me()).is_err(),
        "a removed agent's token stops working on every replica"
    );
}

#[test]
fn a_database_that_is_not_sqlite_or_postgres_is_refused_without_echoing_secrets() {
    let ran = admin(
        &["people", "list"],
        "mysql://root:hunter2@db.example/assent",
        false,
    );
    assert_ne!(ran.code, 0, "an unknown database kind is refused");
    assert!(
        ran.stderr.contains("postgres://"),
        "the error says what is accepted: {}",
        ran.stderr
    );
    assert!(
        !ran.stderr.contains("hunter2"),
        "the password is never echoed: {}",
        ran.stderr
    );
}

/// Collects (id, event name) from `client`'s stream, replayed from the start, up to and
/// including the first `approval.settled`. `approval.waiting` is live only, from the replica
/// the gate long-polls, so it is not among what both replicas' streams must share.
async fn until_settled(client: assent_client::Client) -> Vec<(i64, String)> {
    use futures::StreamExt;
    let mut stream = Box::pin(client.events(Some(0)));
    let mut seen = Vec::new();
    while let Some(item) = stream.next().await {
        if let assent_client::StreamItem::Event(envelope) = item {
            let name = envelope.event.name().to_owned();
            if name == "approval.waiting" {
                continue;
            }
            seen.push((envelope.id, name.clone()));
            if name == "approval.settled" {
                break;
            }
        }
    }
    seen
}

/// Polls replica `on` until `n` prompts are pending (the gate's request reached the database).
fn pending_on(on: &Replica, token: &str, n: usize) -> Vec<assent_protocol::Approval> {
    let rt = runtime();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let pending = rt.block_on(on.client(token).pending()).unwrap();
        if pending.len() >= n {
            return pending;
        }
        assert!(Instant::now() < until, "{n} prompt(s) become pending");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_gate_waiting_on_one_replica_is_answered_by_a_person_on_the_other() {
    let database = pg::database();
    let (a, b) = (
        Replica::start(&database, false),
        Replica::start(&database, true),
    );
    let (person, agent) = team(&database);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stream_a = rt.spawn(until_settled(a.client(&person)));
    let stream_b = rt.spawn(until_settled(b.client(&person)));

    let (_tmp, root) = gate_support::repo();
    let input =
        serde_json::json!({"url": "https://docs.unknown-example.org/page", "prompt": "summarise"});
    let payload = gate_support::payload(
        "PreToolUse",
        "sess-team",
        "toolu_1",
        "WebFetch",
        input,
        &root,
    );
    let gate = gate_support::spawn_gate(&a.url, &agent, &["--wait", "30"], &payload);
    let pending = pending_on(&b, &person, 1);
    let decision = assent_protocol::DecisionRequest::Approve {
        scope: assent_core::ScopeKind::Once,
        expires_in_seconds: 600,
        max_uses: None,
        reason: Some("fine".into()),
        path_patterns: None,
    };
    rt.block_on(b.client(&person).decide(&pending[0].approval_id, &decision))
        .unwrap();
    let ran = finish(gate);
    assert_eq!(
        ran.decision(),
        "allow",
        "the gate waiting on replica A gets the decision made on replica B: {}",
        ran.stderr
    );
    let seen_a = rt.block_on(stream_a).unwrap();
    let seen_b = rt.block_on(stream_b).unwrap();
    assert_eq!(
        seen_a.last().map(|(_, name)| name.as_str()),
        Some("approval.settled"),
        "replica A's stream carries the settlement made on B: {seen_a:?}"
    );
    assert_eq!(
        seen_a, seen_b,
        "both replicas' streams carry the same events with the same ids"
    );
}

/// An `mvn -B test` request in an unknown repo: it asks a person.
fn ask(run: &str) -> assent_core::ActionRequest {
    serde_json::from_value(serde_json::json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"},
        "reason": "run the tests"
    }))
    .unwrap()
}

#[test]
fn a_replica_killed_mid_decision_loses_nothing_acknowledged() {
    let database = pg::database();
    let (mut a, b) = (
        Replica::start(&database, false),
        Replica::start(&database, false),
    );
    let (person, agent) = team(&database);
    let submitter = assent_client::blocking::Client::new(&a.url, &agent).unwrap();
    let mut asked = Vec::new();
    for n in 0..40 {
        let answer = submitter
            .submit(
                &ask(&format!("run-{n}")),
                Instant::now() + Duration::from_secs(10),
            )
            .unwrap();
        asked.push(answer.approval_id.expect("the request asks a person"));
    }

    // Decide on A as fast as possible; kill A (SIGKILL) once some decisions are acknowledged.
    let (acked_tx, acked_rx) = std::sync::mpsc::channel::<String>();
    let decider = {
        let (url, token, ids) = (a.url.clone(), person.clone(), asked.clone());
        std::thread::spawn(move || {
            let rt = runtime();
            let client = assent_client::Client::new(&url, &token).unwrap();
            let deny = assent_protocol::DecisionRequest::Deny {
                reason: "not on Fridays".into(),
            };
            for id in ids {
                match rt.block_on(client.decide(&id, &deny)) {
                    Ok(_) => {
                        if acked_tx.send(id).is_err() {
                            return;
                        }
                    }
                    Err(_) => return, // A is gone: not acknowledged.
                }
            }
        })
    };
    let mut acknowledged = Vec::new();
    while acknowledged.len() < 10 {
        acknowledged.push(acked_rx.recv().unwrap());
    }
    a.child.kill().unwrap(); // SIGKILL, mid-stream of decisions
    a.child.wait().unwrap();
    decider.join().unwrap();
    acknowledged.extend(acked_rx.try_iter());

    let rt = runtime();
    let on_b = b.client(&person);
    for id in &asked {
        let approval = rt.block_on(on_b.approval(id, None)).unwrap();
        if acknowledged.contains(id) {
            assert_eq!(
                approval.status,
                assent_core::ApprovalStatus::Denied,
                "a decision A acknowledged before it was killed is on B"
            );
        }
    }
    let still_pending = rt.block_on(on_b.pending()).unwrap();
    assert!(
        still_pending.len() + acknowledged.len() <= asked.len(),
        "nothing is both pending and acknowledged"
    );
    for approval in still_pending {
        let decided = rt.block_on(on_b.decide(
            &approval.approval_id,
            &assent_protocol::DecisionRequest::Deny {
                reason: "decided on B".into(),
            },
        ));
        assert!(
            decided.is_ok(),
            "what A never got to is decided on B: {decided:?}"
        );
    }

    // A restarts on its data dir (its checkpoint key) after the kill; then the chain both
    // replicas appended to verifies, with both keys, and holds one denial per prompt.
    let a = Replica::start_in(&database, false, a.take_data_dir());
    let key = |dir: &Path| {
        let out = Command::new(BIN)
            .args(["audit", "key", "--key-dir"])
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "each replica has its checkpoint key");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let (key_a, key_b) = (key(a.data_dir.path()), key(b.data_dir.path()));
    let verify = Command::new(BIN)
        .args(["audit", "verify", "--json", "--database", &database])
        .args(["--key", &key_a, "--key", &key_b])
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&verify.stdout).unwrap();
    assert_eq!(
        verify.status.code(),
        Some(0),
        "after a replica was killed mid-decision and restarted, the chain holds: {report}"
    );
    assert!(
        report["checkpoints"].as_u64().unwrap() >= 2,
        "both replicas signed checkpoints, and both keys verify them: {report}"
    );
    let export = Command::new(BIN)
        .args(["audit", "export", "--database", &database])
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap();
    assert!(export.status.success(), "the chain exports");
    let mut denied = std::collections::HashMap::<String, usize>::new();
    for line in String::from_utf8(export.stdout).unwrap().lines() {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        if line["kind"] != "event" {
            continue;
        }
        let body: serde_json::Value = serde_json::from_str(line["body"].as_str().unwrap()).unwrap();
        if body["decision"] == "denied" {
            *denied
                .entry(body["approval_id"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    for id in &asked {
        assert_eq!(
            denied.get(id),
            Some(&1),
            "every prompt's denial is one link of the verified chain, none lost or doubled by the kill: {id}"
        );
    }
    drop(a);
}
