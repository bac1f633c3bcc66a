//! Benchmark: how long the window takes to show the desk with JavaScriptCore's JIT off (the
//! window's default, `assent_ipc::WINDOW_PROCESS_DEFAULTS`: less memory in the
//! web process) and on (`JSC_useJIT=1`, which a person's environment may set). With N prompts
//! pending: open (from asking WebDriver for a session, which starts the app, its window
//! process and WebKit) → all N shown, reload → all N shown, and one more prompt submitted →
//! shown. ROUNDS rounds, the two modes alternated; medians (the upper one of an even count). Under Xvfb + dbus-run-session (docs/benchmarks.md):
//!   ASSENT_DESKTOP_BIN=target/release/assent-desktop N=200 ROUNDS=5 \
//!     cargo bench -p assent-desktop --features e2e --bench window_render
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "bench"
)]

mod common;

use std::time::{Duration, Instant};

use common::driver::{session, start_driver_with};
use common::{percentile, shell_request, submit_pending, Desk, TestService, ASKED_COMMAND};
use fantoccini::Client;

const PROMPTS: &str = "return document.querySelectorAll('[data-testid=prompt]').length";

/// Polls the page until it shows `n` prompts; how long that took from `since`.
async fn shown(client: &Client, n: u64, since: Instant) -> Duration {
    let deadline = since + Duration::from_secs(60);
    loop {
        // WebDriver's refresh returns once the new page has loaded; until the desk's data has
        // arrived and rendered, the count is 0 (or the script errs): ask again.
        let count = client
            .execute(PROMPTS, vec![])
            .await
            .ok()
            .and_then(|value| value.as_u64());
        if count == Some(n) {
            return since.elapsed();
        }
        assert!(
            Instant::now() < deadline,
            "the window must show {n} prompts within 60 s (shows {count:?})"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    percentile(&samples, 0.5)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(Default)]
struct Times {
    open: Vec<Duration>,
    reload: Vec<Duration>,
    arrival: Vec<Duration>,
}

async fn round(n: u64, env: &[(&str, &str)], times: &mut Times) {
    let service = TestService::start().await;
    let requester = service.requester();
    for i in 0..n {
        submit_pending(
            &requester,
            &shell_request(&format!("render-{i}"), ASKED_COMMAND, "/work/shop"),
        )
        .await;
    }
    let desk = Desk::signed_in(&service.url(), &service.tokens.approver);
    let _driver = start_driver_with(&desk, env).await;
    let start = Instant::now();
    let client = session().await;
    times.open.push(shown(&client, n, start).await);
    for _ in 0..3 {
        let start = Instant::now();
        client.refresh().await.expect("reload");
        times.reload.push(shown(&client, n, start).await);
    }
    let start = Instant::now();
    submit_pending(
        &requester,
        &shell_request("render-one-more", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    times.arrival.push(shown(&client, n + 1, start).await);
    let _ = client.close().await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let env_or = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let n = env_or("N", 200);
    let rounds = env_or("ROUNDS", 5);
    assert!(
        std::env::var_os("JSC_useJIT").is_none(),
        "unset JSC_useJIT: the bench sets it per mode"
    );
    let modes: [(&str, &[(&str, &str)]); 2] = [
        ("JIT off (the window's default)", &[]),
        ("JIT on (JSC_useJIT=1)", &[("JSC_useJIT", "1")]),
    ];
    let mut times: Vec<Times> = modes.iter().map(|_| Times::default()).collect();
    for _ in 0..rounds {
        for ((_, env), times) in modes.iter().zip(times.iter_mut()) {
            round(n, env, times).await;
        }
    }
    println!("{n} prompts pending, {rounds} rounds (medians):");
    for ((name, _), times) in modes.iter().zip(times) {
        println!(
            "  {name}: open -> shown {:.0} ms, reload -> shown {:.0} ms, one more prompt -> shown {:.0} ms",
            ms(median(times.open)),
            ms(median(times.reload)),
            ms(median(times.arrival)),
        );
    }
}
