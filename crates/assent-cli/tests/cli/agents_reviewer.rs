//! The real Claude Code CLI under the model reviewer (issue 44): `assent serve` with
//! `[reviewer] mode = "decide"`, `up_to = "medium"`, `share_task = true`, and a scripted
//! Chat Completions reviewer on loopback. One session: an eligible ask is approved by the
//! reviewer and no person is asked; `git push origin main` reaches the person with the
//! reviewer's part; a reviewer slower than `timeout`, then the reviewer killed, leave the next
//! asks to the person, who denies them and nothing runs; the audit chain verifies with the
//! `reviewed` events in it. The same story runs on both stores: the data dir's SQLite, and a
//! database of the suite's throwaway PostgreSQL cluster, where the service writes no token
//! files and the person's and the agent's tokens come from `assent people add` and `assent
//! agents add` with `--database`, as a team makes them; `assent audit verify --database` then
//! reads the chain from PostgreSQL.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assent_core::AuditDecision;
use assent_protocol::{Approval, ReviewState};
use serde_json::{json, Value};

use crate::agents_claude_code::{Claude, VERSION};
use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;

/// How the scripted reviewer answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Approve,
    /// Never answers (the service's timeout ends the call).
    Hang,
}

/// A scripted reviewer on its own runtime: [`Reviewer::kill`] shuts the runtime down, so the
/// port refuses and every open connection is cut, as when the model server dies.
struct Reviewer {
    url: String,
    mode: Arc<Mutex<Mode>>,
    bodies: Arc<Mutex<Vec<Value>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Reviewer {
    fn start() -> Reviewer {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let mode = Arc::new(Mutex::new(Mode::Approve));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let (m, seen) = (mode.clone(), bodies.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = axum::Router::new().fallback(axum::routing::post(
            move |axum::Json(body): axum::Json<Value>| {
                let (mode, seen) = (m.clone(), seen.clone());
                async move {
                    seen.lock().unwrap().push(body);
                    let mode = *mode.lock().unwrap();
                    if mode == Mode::Hang {
                        std::future::pending::<()>().await;
                    }
                    let verdict = json!({"outcome": "approve", "risk": "medium",
                        "user_authorized": "unclear", "rationale": "Runs the project's own script."});
                    axum::Json(json!({"choices": [{"message": {"role": "assistant",
                        "content": verdict.to_string()}}]}))
                }
            },
        ));
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Reviewer {
            url: format!("http://127.0.0.1:{port}/v1"),
            mode,
            bodies,
            runtime: Some(runtime),
        }
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn calls(&self) -> usize {
        self.bodies.lock().unwrap().len()
    }

    fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The pending prompt whose evidence names `marker`, once its review is in a state `done`
/// accepts (the call under way shows `reviewing`).
fn prompt_for(service: &Service, marker: &str, done: &[ReviewState]) -> Approval {
    let client = service.approver_client();
    let until = Instant::now() + Duration::from_secs(90);
    loop {
        let pending = runtime().block_on(client.pending()).unwrap();
        let found = pending.into_iter().find(|a| {
            serde_json::to_string(&a.evidence).is_ok_and(|e| e.contains(marker))
                && a.review.as_ref().is_some_and(|r| done.contains(&r.state))
        });
        if let Some(found) = found {
            return found;
        }
        assert!(
            Instant::now() < until,
            "no prompt for {marker} with its review in {done:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn story(database: Option<String>) {
    let mut reviewer = Reviewer::start();
    let policy = format!(
        "[reviewer]\napi = \"openai\"\nurl = \"{}\"\nmodel = \"scripted-7b\"\nmode = \"decide\"\n\
         up_to = \"medium\"\ntimeout = \"2s\"\nshare_task = true\n",
        reviewer.url
    );
    let service = match &database {
        Some(url) => Service::start_on_database(Some(&policy), url),
        None => Service::start_with_policy(Some(&policy)),
    };
    let home = Home::new();
    home.put_on_path(&agent_bin("claude", VERSION), "claude");
    home.install("claude-code", "60");
    let scripts = home.project.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    for n in 1..=3 {
        std::fs::write(
            scripts.join(format!("gen{n}.py")),
            format!("print('generated-marker-{n}')\n"),
        )
        .unwrap();
    }
    let shell =
        |command: &str| Block::Tool("Bash", json!({"command": command, "description": "run it"}));
    let script = vec![
        vec![shell("python3 scripts/gen1.py")],
        vec![shell(PUSH)],
        vec![shell("python3 scripts/gen2.py")],
        vec![shell("python3 scripts/gen3.py")],
        vec![Block::Text("finished".into())],
    ];
    let s = Setup {
        service,
        home,
        model: ModelServer::start(script),
    };
    let claude = Claude.start(&s);

    // The push reaches the person: never sent to the model, the desk says why.
    let push = prompt_for(&s.service, "git push", &[ReviewState::NotEligible]);
    let part = push.review.clone().unwrap();
    assert!(
        part.rationale.contains("publishing"),
        "the person reads why the reviewer may not decide it: {part:?}"
    );
    assert_eq!(
        reviewer.calls(),
        1,
        "only the eligible ask before it was sent to the model"
    );
    let first = reviewer.bodies.lock().unwrap()[0].to_string();
    assert!(
        first.contains("gen1.py") && !first.contains("git push"),
        "the model read the eligible ask, never the push: {first}"
    );
    // The model now hangs: the next ask waits for its timeout, then for the person.
    reviewer.set(Mode::Hang);
    deny(&s.service, &push.approval_id, "not now");

    let slow = prompt_for(&s.service, "gen2.py", &[ReviewState::Failed]);
    assert_eq!(
        slow.review.as_ref().unwrap().rationale,
        "the reviewer timed out after 2s",
        "the person reads why they are asked"
    );
    // share_task, on the call for gen2.py (the model recorded it, then hung). Not on the
    // first call: Claude Code writes its transcript asynchronously, and its first tool call
    // of a session can reach the gate before the person's turn is on disk; the gate then finds
    // no turn and sends none (4 runs in 27 here, with the scripted model's instant answer).
    let bodies = reviewer.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 2, "the call for gen2.py was sent: {bodies:?}");
    let document: Value =
        serde_json::from_str(bodies[1]["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert!(
        document.to_string().contains("gen2.py"),
        "the second call is gen2.py's: {document}"
    );
    assert_eq!(
        document["untrusted_evidence"]["task_turns"],
        json!(["go"]),
        "share_task: the gate read the person's own turn from Claude Code's real transcript"
    );
    // The model server dies: the next ask goes to the person too.
    reviewer.kill();
    deny(&s.service, &slow.approval_id, "not without a look");
    let dead = prompt_for(&s.service, "gen3.py", &[ReviewState::Failed]);
    assert!(
        dead.review
            .as_ref()
            .unwrap()
            .rationale
            .starts_with("the reviewer could not be reached"),
        "{dead:?}"
    );
    deny(&s.service, &dead.approval_id, "not without a look");

    let run = claude.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results().join("\n");
    assert!(
        results.contains("generated-marker-1"),
        "the reviewer's approval let the eligible call run: {results}"
    );
    for n in [2, 3] {
        assert!(
            !results.contains(&format!("generated-marker-{n}")),
            "without the reviewer, nothing ran without the person: {results}"
        );
    }
    let audit = s.audit();
    let by_people: Vec<_> = audit
        .iter()
        .filter(|e| e.decision == AuditDecision::Approved)
        .map(|e| e.approver.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        by_people,
        ["reviewer:scripted-7b"],
        "one approval, by the reviewer; no person was asked for it"
    );
    let reviewed: Vec<String> = audit
        .iter()
        .filter(|e| e.decision == AuditDecision::Reviewed)
        .filter_map(|e| e.review.as_ref().map(|r| r.state.clone()))
        .collect();
    assert_eq!(
        reviewed,
        ["approved", "failed", "failed"],
        "every call is audited (the push was never one): {audit:?}"
    );

    let key = assent_server::audit_chain::AuditKey::load(
        &s.service
            .data_dir
            .join(assent_server::audit_chain::KEY_FILE),
    )
    .unwrap()
    .public_hex();
    let data_dir = s.service.data_dir.display().to_string();
    let store: [&str; 2] = match &s.service.database {
        Some(url) => ["--database", url],
        None => ["--data-dir", &data_dir],
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_assent"))
        .args(["audit", "verify"])
        .args(store)
        .args(["--key", &key, "--json"])
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert!(
        out.status.success() && report["ok"] == true,
        "the audit chain with the reviewer's calls verifies: {report} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The chain that verified, read from the store itself, holds the reviewer's calls.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_assent"))
        .args(["audit", "export"])
        .args(store)
        .env_remove("ASSENT_DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the chain exports from the store: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let chained: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["kind"] == "event")
        .filter_map(|line| serde_json::from_str::<Value>(line["body"].as_str()?).ok())
        .filter(|body| body["decision"] == "reviewed")
        .map(|body| {
            body["review"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(
        chained, reviewed,
        "the store's chain carries every `reviewed` event the service reported"
    );
}

#[test]
fn claude_code_under_a_deciding_reviewer_on_sqlite() {
    story(None);
}

#[test]
fn claude_code_under_a_deciding_reviewer_on_postgres() {
    story(Some(crate::pg::database()));
}
