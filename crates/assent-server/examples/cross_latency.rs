//! Measures decision → waiting gate across replicas: an agent's request asks on replica A and
//! its gate long-polls it there (`GET /v1/approvals/{id}?wait=30`); once A reports the waiter,
//! a person decides on replica B. Timed from sending the decision to A answering the poll.
//!
//! `cargo run --release -p assent-server --example cross_latency -- URL_A URL_B REQUESTER
//! APPROVER COUNT`

use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url_a, url_b, requester, approver, count] = args.as_slice() else {
        return Err("usage: URL_A URL_B REQUESTER APPROVER COUNT".into());
    };
    let count: usize = count.parse()?;
    let http = reqwest::Client::new();
    let mut samples = Vec::with_capacity(count);
    for n in 0..count {
        let ask = json!({
            "run_id": format!("cross-{}-{n}", std::process::id()), "task_id": "t",
            "requested_by": "agent",
            "action": {"kind": "shell", "command": "mvn -B test", "cwd": "/home/dev/shop"},
            "context": {"repo": "/home/dev/shop", "repo_trust": "unknown"}, "reason": "bench"
        });
        let asked: Value = http
            .post(format!("{url_a}/v1/actions"))
            .bearer_auth(requester)
            .json(&ask)
            .send()
            .await?
            .json()
            .await?;
        let id = asked
            .get("approval_id")
            .and_then(Value::as_str)
            .ok_or("the request must ask")?
            .to_owned();
        let poll = tokio::spawn({
            let (http, url, token, id) =
                (http.clone(), url_a.clone(), requester.clone(), id.clone());
            async move {
                let answer = http
                    .get(format!("{url}/v1/approvals/{id}?wait=30"))
                    .bearer_auth(token)
                    .send()
                    .await;
                (Instant::now(), answer.map(|r| r.status()))
            }
        });
        waiting_on_a(&http, url_a, approver, &id).await?;
        let sent = Instant::now();
        let decided = http
            .post(format!("{url_b}/v1/approvals/{id}/decision"))
            .bearer_auth(approver)
            .json(&json!({"decision": "deny", "reason": "bench"}))
            .send()
            .await?;
        if !decided.status().is_success() {
            return Err(format!("decision on B failed: {}", decided.status()).into());
        }
        let (answered, status) = poll.await?;
        if !status?.is_success() {
            return Err("the long-poll on A failed".into());
        }
        samples.push(answered.saturating_duration_since(sent));
    }
    samples.sort();
    let pick = |q: f64| {
        let at = ((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1;
        samples.get(at).copied().unwrap_or_default()
    };
    println!(
        "samples={} p50={:.2}ms p99={:.2}ms max={:.2}ms",
        samples.len(),
        pick(0.50).as_secs_f64() * 1e3,
        pick(0.99).as_secs_f64() * 1e3,
        pick(1.0).as_secs_f64() * 1e3
    );
    Ok(())
}

/// Waits until replica A reports the gate waiting on `id` (its long-poll has started).
async fn waiting_on_a(
    http: &reqwest::Client,
    url_a: &str,
    approver: &str,
    id: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        let approval: Value = http
            .get(format!("{url_a}/v1/approvals/{id}"))
            .bearer_auth(approver)
            .send()
            .await?
            .json()
            .await?;
        if approval
            .get("agents_waiting")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            > 0
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    Err("the long-poll never reached replica A".into())
}
