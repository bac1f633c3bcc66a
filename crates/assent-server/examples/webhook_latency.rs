//! Measures a person's decision → the signed webhook reaching a receiver: the real service
//! (SQLite in a temp dir, the system clock) on loopback, one webhook for `approval.settled`
//! whose URL is a receiver on loopback in this process. COUNT prompts are opened first (each
//! in its own run); then each is approved at RATE per second, timed from sending the decision
//! to the delivery reaching the receiver (matched by `data.approval_id`, its signature checked
//! with the `standardwebhooks` crate after the run).
//!
//! `cargo run --release -p assent-server --example webhook_latency -- RATE_PER_SECOND COUNT`

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assent_core::Policy;
use assent_server::{App, Config};
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::{json, Value};
use tokio::sync::mpsc;

type Arrived = mpsc::UnboundedSender<(Instant, HeaderMap, String)>;

async fn receive(
    State(arrived): State<Arrived>,
    headers: HeaderMap,
    body: String,
) -> axum::http::StatusCode {
    let _ = arrived.send((Instant::now(), headers, body));
    axum::http::StatusCode::NO_CONTENT
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rate, count] = args.as_slice() else {
        return Err("usage: RATE_PER_SECOND COUNT".into());
    };
    let rate: u64 = rate.parse()?;
    let count: usize = count.parse()?;

    let dir = tempfile::tempdir()?;
    let app = App::open(Config::new(dir.path(), Policy::default())).await?;
    let tokens = app.tokens().ok_or("a data dir has tokens")?.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    tokio::spawn(app.serve(listener, std::future::pending()));

    let (arrived, mut deliveries) = mpsc::unbounded_channel();
    let receiver = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let hook_url = format!("http://{}/hook", receiver.local_addr()?);
    let router = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(arrived);
    tokio::spawn(async move { axum::serve(receiver, router).await });

    let http = reqwest::Client::new();
    let created: Value = http
        .post(format!("{url}/v1/webhooks"))
        .bearer_auth(&tokens.approver)
        .json(&json!({"url": hook_url, "events": ["approval.settled"]}))
        .send()
        .await?
        .json()
        .await?;
    let secret = created
        .get("secret")
        .and_then(Value::as_str)
        .ok_or("no secret")?
        .to_owned();

    let mut prompts = Vec::with_capacity(count);
    for i in 0..count {
        let body = json!({"run_id": format!("hook-{i}"), "task_id": "t", "requested_by": "agent",
            "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
            "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"}, "reason": "bench"});
        let answer: Value = http
            .post(format!("{url}/v1/actions"))
            .bearer_auth(&tokens.requester)
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        prompts.push(
            answer
                .get("approval_id")
                .and_then(Value::as_str)
                .ok_or("the ask opened no prompt")?
                .to_owned(),
        );
    }

    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let decider = {
        let (http, url, approver, sent) = (
            http.clone(),
            url.clone(),
            tokens.approver.clone(),
            sent.clone(),
        );
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
            let mut decisions = Vec::new();
            for id in prompts {
                ticks.tick().await;
                let req = http
                    .post(format!("{url}/v1/approvals/{id}/decision"))
                    .bearer_auth(&approver)
                    .json(
                        &json!({"decision": "approve", "scope": "run", "expires_in_seconds": 600}),
                    );
                let sent = sent.clone();
                decisions.push(tokio::spawn(async move {
                    sent.lock().ok()?.insert(id, Instant::now());
                    req.send().await.ok()?;
                    Some(())
                }));
            }
            for decision in decisions {
                let _ = decision.await;
            }
        })
    };

    let mut arrivals = Vec::with_capacity(count);
    while arrivals.len() < count {
        let Some(delivery) =
            tokio::time::timeout(Duration::from_secs(10), deliveries.recv()).await?
        else {
            break;
        };
        arrivals.push(delivery);
    }
    decider.await?;
    let verifier = standardwebhooks::Webhook::new(&secret)?;
    let sent = sent.lock().map_err(|_| "poisoned")?.clone();
    let mut latencies = Vec::with_capacity(count);
    for (at, headers, body) in arrivals {
        let mut signed = http::HeaderMap::new();
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let value = headers.get(name).ok_or("a header is missing")?.to_str()?;
            signed.insert(name, value.parse()?);
        }
        verifier.verify(body.as_bytes(), &signed)?;
        let payload: Value = serde_json::from_str(&body)?;
        if let Some(start) = payload
            .get("data")
            .and_then(|data| data.get("approval_id"))
            .and_then(Value::as_str)
            .and_then(|id| sent.get(id))
        {
            latencies.push(at.duration_since(*start));
        }
    }
    latencies.sort();
    let pick = |q: f64| {
        let i = ((latencies.len().saturating_sub(1)) as f64 * q).round() as usize;
        latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "webhooks={} rate={rate}/s p50={:.2}ms p90={:.2}ms p99={:.2}ms max={:.2}ms",
        latencies.len(),
        pick(0.5),
        pick(0.9),
        pick(0.99),
        pick(1.0)
    );
    Ok(())
}
