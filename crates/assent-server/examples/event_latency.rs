//! Measures submit → event delivered on `/v1/events`: submits asks at a fixed rate, each in
//! its own run (so each opens a prompt), and times until its `approval.requested` arrives.
//!
//! `cargo run --release -p assent-server --example event_latency -- URL REQUESTER APPROVER
//! RATE_PER_SECOND COUNT`

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

type Sent = Arc<Mutex<HashMap<String, Instant>>>;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, requester, approver, rate, count] = args.as_slice() else {
        return Err("usage: URL REQUESTER APPROVER RATE COUNT".into());
    };
    let rate: u64 = rate.parse()?;
    let count: usize = count.parse()?;
    let http = reqwest::Client::new();
    let sent: Sent = Arc::default();
    let mut stream = http
        .get(format!("{url}/v1/events"))
        .bearer_auth(approver)
        .send()
        .await?;
    let prefix = format!("lat-{}-", std::process::id());

    let submitter = {
        let (http, url, requester, sent, prefix) = (
            http.clone(),
            url.clone(),
            requester.clone(),
            sent.clone(),
            prefix.clone(),
        );
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(Duration::from_micros(1_000_000 / rate));
            for i in 0..count {
                ticks.tick().await;
                let run = format!("{prefix}{i}");
                let body = json!({"run_id": run, "task_id": "t", "requested_by": "agent",
                    "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
                    "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"}, "reason": "bench"});
                if let Ok(mut map) = sent.lock() {
                    map.insert(run, Instant::now());
                }
                let req = http
                    .post(format!("{url}/v1/actions"))
                    .bearer_auth(&requester)
                    .json(&body);
                tokio::spawn(async move { req.send().await.map(|r| r.status()) });
            }
        })
    };

    let mut latencies = Vec::with_capacity(count);
    let mut buffer = String::new();
    while latencies.len() < count {
        let Some(chunk) = tokio::time::timeout(Duration::from_secs(10), stream.chunk()).await??
        else {
            break;
        };
        let arrived = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue;
            };
            let event: serde_json::Value = serde_json::from_str(data)?;
            let Some(run) = event.pointer("/approval/run_id").and_then(|v| v.as_str()) else {
                continue;
            };
            if event.get("type").and_then(|v| v.as_str()) != Some("approval.requested")
                || !run.starts_with(&prefix)
            {
                continue;
            }
            if let Some(start) = sent.lock().ok().and_then(|mut m| m.remove(run)) {
                latencies.push(arrived.duration_since(start));
            }
        }
    }
    submitter.await?;
    latencies.sort();
    let pick = |q: f64| {
        let i = ((latencies.len().saturating_sub(1)) as f64 * q).round() as usize;
        latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "events={} rate={rate}/s p50={:.2}ms p90={:.2}ms p99={:.2}ms max={:.2}ms",
        latencies.len(),
        pick(0.5),
        pick(0.9),
        pick(0.99),
        pick(1.0)
    );
    Ok(())
}
