//! Benchmark: submit → `Notify` on the session bus, through the real app binary and its
//! embedded service. Prints p50 / p99 over N prompts (each its own run, so each is a new
//! prompt). Run under Xvfb + dbus-run-session (see docs/benchmarks.md):
//!   ASSENT_DESKTOP_BIN=target/release/assent-desktop cargo bench -p assent-desktop \
//!     --features e2e,custom-protocol --bench notify_latency
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "bench"
)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::notification_server::{Call, NotificationServer};
use common::{app_binary, percentile, shell_request, submit_pending, Desk, ASKED_COMMAND};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let samples: usize = std::env::var("SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let mut command = Command::new(app_binary());
    command
        .arg("--tray")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    desk.configure(&mut command);
    let mut app = command.spawn().expect("start assent-desktop");
    let (requester, _approver) = desk.wait_ready(Duration::from_secs(30)).await;

    let mut latencies = Vec::with_capacity(samples);
    for n in 0..samples + 5 {
        let request = shell_request(&format!("bench-{n}"), ASKED_COMMAND, "/work/shop");
        let start = Instant::now();
        submit_pending(&requester, &request).await;
        let at = loop {
            match server.next(Duration::from_secs(10)).await {
                Some(Call::Notify {
                    at, replaces_id: 0, ..
                }) => break at,
                Some(_) => continue,
                None => panic!("no Notify within 10 s for prompt {n}"),
            }
        };
        if n >= 5 {
            latencies.push(at.duration_since(start));
        }
    }
    let _ = Command::new("kill").arg(app.id().to_string()).status();
    let _ = app.wait();

    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "submit -> Notify over {} prompts: p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms",
        latencies.len(),
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies[0]),
        ms(latencies[latencies.len() - 1]),
    );
}
