//! Measures what Assent adds to a model reviewer's own latency: the real service (SQLite in a
//! temp dir, the system clock) on loopback with `[reviewer] mode = "decide"`, and a scripted
//! reviewer in this process that answers "approve" after MODEL_MS. Each ask is an eligible
//! `mvn -B test` in its own run; the time is from sending it to the waiting agent's long poll
//! answering "approved", minus the time the reviewer spent on its call (request received →
//! answer sent, measured by the reviewer itself).
//!
//! `cargo run --release -p assent-server --example reviewer_latency -- COUNT [MODEL_MS [PACE_MS]]`
//! (PACE_MS: a pause before each ask, as an agent's between tool calls; idle CPUs then wake
//! slowly for each hand-off, which back-to-back asks hide)

#![allow(
    clippy::indexing_slicing,
    reason = "a measuring script: JSON lookups of fields the service always sends"
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assent_core::Policy;
use assent_server::{App, Config};
use axum::extract::State;
use serde_json::{json, Value};

type Spent = Arc<Mutex<Vec<Duration>>>;

async fn review(State((spent, model_ms)): State<(Spent, u64)>) -> axum::Json<Value> {
    let started = Instant::now();
    if model_ms > 0 {
        tokio::time::sleep(Duration::from_millis(model_ms)).await;
    }
    let verdict = json!({"outcome": "approve", "risk": "low", "user_authorized": "unclear",
                         "rationale": "Runs the project's tests."})
    .to_string();
    let answer = json!({"choices": [{"message": {"role": "assistant", "content": verdict}}]});
    if let Ok(mut spent) = spent.lock() {
        spent.push(started.elapsed());
    }
    axum::Json(answer)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let at = ((last as f64) * p).round() as usize;
    sorted
        .get(at)
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.first().map_or(Ok(300), |a| a.parse())?;
    let model_ms: u64 = args.get(1).map_or(Ok(0), |a| a.parse())?;
    // An agent's pace: the pause before each ask (0: back to back).
    let pace_ms: u64 = args.get(2).map_or(Ok(0), |a| a.parse())?;

    let spent: Spent = Arc::default();
    let reviewer = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let reviewer_url = format!("http://{}/v1", reviewer.local_addr()?);
    let router = axum::Router::new()
        .fallback(axum::routing::post(review))
        .with_state((spent.clone(), model_ms));
    tokio::spawn(async move { axum::serve(reviewer, router).await });

    let policy = Policy::from_toml(&format!(
        "[reviewer]\napi = \"openai\"\nurl = \"{reviewer_url}\"\nmodel = \"scripted\"\nmode = \"decide\"\nup_to = \"medium\"\ntimeout = \"20s\"\n"
    ))?;
    let dir = tempfile::tempdir()?;
    let app = App::open(Config::new(dir.path(), policy)).await?;
    let tokens = app.tokens().ok_or("a data dir has tokens")?.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    tokio::spawn(app.serve(listener, std::future::pending()));

    let http = reqwest::Client::new();
    let mut totals = Vec::with_capacity(count);
    for i in 0..count {
        if pace_ms > 0 {
            tokio::time::sleep(Duration::from_millis(pace_ms)).await;
        }
        let body = json!({
            "run_id": format!("bench-{i}"), "task_id": "t", "requested_by": "agent",
            "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/tmp/bench-repo"},
            "context": {"repo": "/tmp/bench-repo"}, "reason": "run the tests",
        });
        let started = Instant::now();
        let answer: Value = http
            .post(format!("{url}/v1/actions"))
            .bearer_auth(&tokens.requester)
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        let id = answer["approval_id"]
            .as_str()
            .ok_or_else(|| format!("not a prompt: {answer}"))?;
        let settled: Value = http
            .get(format!("{url}/v1/approvals/{id}?wait=30"))
            .bearer_auth(&tokens.requester)
            .send()
            .await?
            .json()
            .await?;
        if settled["decided_by"] != "reviewer:scripted" {
            return Err(format!("not approved by the reviewer: {settled}").into());
        }
        totals.push(started.elapsed());
    }
    let mut model = spent.lock().map_err(|_| "poisoned")?.clone();
    let mut added: Vec<Duration> = totals
        .iter()
        .zip(&model)
        .map(|(total, model)| total.saturating_sub(*model))
        .collect();
    totals.sort();
    model.sort();
    added.sort();
    println!(
        "asks={count} model_ms={model_ms}\n\
         submit → approved by the reviewer: p50 {:.2} ms, p99 {:.2} ms\n\
         the reviewer's own call:          p50 {:.2} ms, p99 {:.2} ms\n\
         Assent's share (the difference):  p50 {:.2} ms, p99 {:.2} ms",
        percentile(&totals, 0.5),
        percentile(&totals, 0.99),
        percentile(&model, 0.5),
        percentile(&model, 0.99),
        percentile(&added, 0.5),
        percentile(&added, 0.99),
    );
    Ok(())
}
