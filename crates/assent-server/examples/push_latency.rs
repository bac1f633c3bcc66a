//! Measures submit → Web Push leaving the service: the real service (SQLite in a temp dir,
//! the system clock) on loopback, one browser subscription of the approver whose endpoint is
//! a receiver on loopback in this process. Asks are submitted at a fixed rate, each in its own
//! run (so each opens a prompt); the time is from sending the submission to the push request
//! reaching the receiver (decrypted afterwards with `ece` to learn which prompt it names).
//!
//! `cargo run --release -p assent-server --example push_latency -- RATE_PER_SECOND COUNT`

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assent_core::Policy;
use assent_server::{App, Config};
use axum::body::Bytes;
use axum::extract::State;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;
use tokio::sync::mpsc;

type Arrived = mpsc::UnboundedSender<(Instant, Bytes)>;

async fn receive(State(arrived): State<Arrived>, body: Bytes) -> axum::http::StatusCode {
    let _ = arrived.send((Instant::now(), body));
    axum::http::StatusCode::CREATED
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

    let (arrived, mut pushes) = mpsc::unbounded_channel();
    let receiver = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let endpoint = format!("http://{}/push/bench", receiver.local_addr()?);
    let router = axum::Router::new()
        .route("/push/bench", axum::routing::post(receive))
        .with_state(arrived);
    tokio::spawn(async move { axum::serve(receiver, router).await });

    let http = reqwest::Client::new();
    let (keys, auth) = ece::generate_keypair_and_auth_secret()?;
    let subscribed = http
        .post(format!("{url}/v1/push/subscriptions"))
        .bearer_auth(&tokens.approver)
        .json(
            &json!({"endpoint": endpoint, "expirationTime": null, "keys": {
            "p256dh": URL_SAFE_NO_PAD.encode(keys.pub_as_raw()?),
            "auth": URL_SAFE_NO_PAD.encode(auth)}}),
        )
        .send()
        .await?;
    if !subscribed.status().is_success() {
        return Err(format!("subscribe: {}", subscribed.text().await?).into());
    }

    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let submitter = {
        let (http, url, requester, sent) = (
            http.clone(),
            url.clone(),
            tokens.requester.clone(),
            sent.clone(),
        );
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
            let mut asks = Vec::new();
            for i in 0..count {
                ticks.tick().await;
                let body = json!({"run_id": format!("push-{i}"), "task_id": "t", "requested_by": "agent",
                    "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
                    "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"}, "reason": "bench"});
                let req = http
                    .post(format!("{url}/v1/actions"))
                    .bearer_auth(&requester)
                    .json(&body);
                let sent = sent.clone();
                asks.push(tokio::spawn(async move {
                    let start = Instant::now();
                    let answer: serde_json::Value = req.send().await.ok()?.json().await.ok()?;
                    let id = answer.get("approval_id")?.as_str()?.to_owned();
                    sent.lock().ok()?.insert(id, start);
                    Some(())
                }));
            }
            for ask in asks {
                let _ = ask.await;
            }
        })
    };

    let mut arrivals = Vec::with_capacity(count);
    while arrivals.len() < count {
        let Some(push) = tokio::time::timeout(Duration::from_secs(10), pushes.recv()).await? else {
            break;
        };
        arrivals.push(push);
    }
    submitter.await?;
    let components = keys.raw_components()?;
    let sent = sent.lock().map_err(|_| "poisoned")?.clone();
    let mut latencies = Vec::with_capacity(count);
    for (at, body) in arrivals {
        let plain = ece::decrypt(&components, &auth, &body)?;
        let payload: serde_json::Value = serde_json::from_slice(&plain)?;
        if let Some(start) = payload
            .get("approval_id")
            .and_then(|v| v.as_str())
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
        "pushes={} rate={rate}/s p50={:.2}ms p90={:.2}ms p99={:.2}ms max={:.2}ms",
        latencies.len(),
        pick(0.5),
        pick(0.9),
        pick(0.99),
        pick(1.0)
    );
    Ok(())
}
