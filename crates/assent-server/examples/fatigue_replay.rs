//! Replays one agent session against the real service twice — without remembered denials
//! (`deny_memory = "off"`, how Assent behaved before) and with them (the default) — with a
//! scripted person, and prints the prompts per run from `/v1/metrics`:
//! `cargo run -p assent-server --example fatigue_replay`.
//!
//! The session is the one a new user saw with Claude Code: the agent runs its tests, tries to
//! push to main and is told no, and — as agents do — tries the push again (twice), then a
//! network call that is denied and retried, then more tests.
#![allow(
    clippy::indexing_slicing,
    reason = "a measuring script: JSON lookups of fields the service always sends"
)]

use std::time::Duration;

use assent_core::Policy;
use assent_server::{App, Config};
use serde_json::{json, Value};

/// The agent's tool calls, in order.
const SESSION: &[&str] = &[
    "cargo test",
    "cargo test -p core",
    "git push origin main",
    "cargo test",
    "git push origin main",
    "curl https://api.unknown-example.org/v1/status",
    "git push origin main",
    "curl https://api.unknown-example.org/v1/status",
    "cargo clippy",
    "curl https://api.unknown-example.org/v1/status",
    "cargo test",
];

/// What the person answers: pushes and unknown network are denied with a reason, verifiers
/// approved for the run.
fn answer(command: &str) -> Value {
    if command.starts_with("git push") {
        json!({"decision":"deny","reason":"open a PR instead of pushing to main"})
    } else if command.starts_with("curl") {
        json!({"decision":"deny","reason":"no network in this task"})
    } else {
        json!({"decision":"approve","scope":"run","expires_in_seconds":3600})
    }
}

async fn replay(policy: Policy) -> Result<(usize, Value), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let app = App::open(Config::new(dir.path(), policy)).await?;
    let tokens = app.tokens().ok_or("SQLite has tokens")?;
    let (agent, person) = (tokens.requester.clone(), tokens.approver.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let mut prompts = 0;
    for (i, command) in SESSION.iter().enumerate() {
        let body = json!({
            "run_id": "session-1", "task_id": "t", "requested_by": "agent",
            "idempotency_key": format!("toolu_{i}"),
            "action": {"kind": "shell", "command": command, "cwd": "/home/dev/shop"},
            "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"},
            "reason": "the agent's next step"
        });
        let answer_now: Value = http
            .post(format!("{url}/v1/actions"))
            .bearer_auth(&agent)
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        if answer_now["status"] == "pending" {
            prompts += 1;
            let id = answer_now["approval_id"].as_str().unwrap_or_default();
            http.post(format!("{url}/v1/approvals/{id}/decision"))
                .bearer_auth(&person)
                .json(&answer(command))
                .send()
                .await?
                .error_for_status()?;
        }
    }
    let metrics: Value = http
        .get(format!("{url}/v1/metrics"))
        .bearer_auth(&person)
        .send()
        .await?
        .json()
        .await?;
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(10), served).await???;
    Ok((prompts, metrics))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (before, m_before) = replay(Policy::from_toml("deny_memory = \"off\"")?).await?;
    let (after, m_after) = replay(Policy::default()).await?;
    println!("tool calls in the session:        {}", SESSION.len());
    println!(
        "prompts per run, deny_memory off:  {before} (metrics: {})",
        m_before["prompts_per_run"]["mean"]
    );
    println!(
        "prompts per run, deny_memory run:  {after} (metrics: {}; remembered denials {})",
        m_after["prompts_per_run"]["mean"], m_after["remembered_denials"]
    );
    Ok(())
}
