//! Replays the judgment drills (`crates/assent-core/tests/core/drills.txt`: 155 shell lines
//! an agent sends, everyday work to machine damage) as one agent session against the real
//! service three times — no reviewer, a reviewer in `advise` mode, and one in `decide` mode
//! (`up_to = "medium"`) that answers "approve, low risk" to everything it is sent — and prints
//! how many prompts reach a person, how many the reviewer approved, and how many of those were
//! high or critical (which must be 0: the policy, not the model, decides what it may take).
//!
//! `cargo run --release -p assent-server --example reviewer_replay`

#![allow(
    clippy::indexing_slicing,
    reason = "a measuring script: JSON lookups of fields the service always sends"
)]

use std::time::Duration;

use assent_core::Policy;
use assent_server::{App, Config};
use serde_json::{json, Value};

const DRILLS: &str = include_str!("../../assent-core/tests/core/drills.txt");

fn lines() -> Vec<&'static str> {
    DRILLS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(' ').map(|(_, line)| line))
        .collect()
}

async fn approve_everything() -> axum::Json<Value> {
    let verdict = json!({"outcome": "approve", "risk": "low", "user_authorized": "yes",
                         "rationale": "Looks fine."})
    .to_string();
    axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": verdict}}]}))
}

#[derive(Debug, Default)]
struct Count {
    prompts: usize,
    to_a_person: usize,
    by_reviewer: usize,
    high_by_reviewer: usize,
}

async fn replay(policy: Policy, lines: &[&str]) -> Result<Count, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let app = App::open(Config::new(dir.path(), policy.clone())).await?;
    let tokens = app.tokens().ok_or("a data dir has tokens")?.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    tokio::spawn(app.serve(listener, std::future::pending()));
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for line in lines {
        let body = json!({
            "run_id": "replay", "task_id": "t", "requested_by": "agent",
            "action": {"kind": "shell", "command": line, "cwd": "/home/dev/shop"},
            "context": {"repo": "/home/dev/shop"}, "reason": "the drills",
        });
        let answer: Value = http
            .post(format!("{url}/v1/actions"))
            .bearer_auth(&tokens.requester)
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        if let Some(id) = answer["approval_id"].as_str() {
            if answer["status"] == "pending" && !ids.iter().any(|i| i == id) {
                ids.push(id.to_owned());
            }
        }
        // Let a prompt the reviewer is taking settle before the next line, as a waiting
        // agent would (its run grant may then cover what follows).
        if let Some(id) = answer["approval_id"].as_str() {
            for _ in 0..200 {
                let a: Value = http
                    .get(format!("{url}/v1/approvals/{id}"))
                    .bearer_auth(&tokens.approver)
                    .send()
                    .await?
                    .json()
                    .await?;
                if a["review"]["state"] != "reviewing" {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
    let mut count = Count::default();
    for id in &ids {
        let a: Value = http
            .get(format!("{url}/v1/approvals/{id}"))
            .bearer_auth(&tokens.approver)
            .send()
            .await?
            .json()
            .await?;
        count.prompts += 1;
        if a["decided_by"] == "reviewer:scripted" {
            count.by_reviewer += 1;
            if a["risk"] == "high" || a["risk"] == "critical" {
                count.high_by_reviewer += 1;
            }
        } else {
            count.to_a_person += 1;
        }
    }
    Ok(count)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reviewer = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let reviewer_url = format!("http://{}/v1", reviewer.local_addr()?);
    let router = axum::Router::new().fallback(axum::routing::post(approve_everything));
    tokio::spawn(async move { axum::serve(reviewer, router).await });
    let section = |mode: &str| {
        format!(
            "[reviewer]\napi = \"openai\"\nurl = \"{reviewer_url}\"\nmodel = \"scripted\"\nmode = \"{mode}\"\nup_to = \"medium\"\ntimeout = \"20s\"\n"
        )
    };
    let lines = lines();
    println!("{} lines of the drills, one run", lines.len());
    for (name, policy) in [
        ("reviewer off", Policy::default()),
        ("advise", Policy::from_toml(&section("advise"))?),
        (
            "decide, approves everything sent",
            Policy::from_toml(&section("decide"))?,
        ),
    ] {
        let c = replay(policy, &lines).await?;
        println!(
            "{name:34} prompts {:3}  reach a person {:3}  approved by the reviewer {:3}  of them high/critical {}",
            c.prompts, c.to_a_person, c.by_reviewer, c.high_by_reviewer
        );
    }
    Ok(())
}
