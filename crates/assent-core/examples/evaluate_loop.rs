#![allow(clippy::unwrap_used, clippy::expect_used, reason = "profiling aid")]
//! Evaluates the load benchmark's request (`ls -la src` in a trusted repo, as
//! `crates/assent-server/bench/auto-decisions.lua` sends it) N times, for an instruction
//! profile of the policy alone:
//! `valgrind --tool=callgrind target/release/examples/evaluate_loop 2000`.
use assent_core::{evaluate, ActionRequest, Environment, Policy};
fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(10_000, |s| s.parse().unwrap());
    let body = r#"{"run_id":"bench","task_id":"t","requested_by":"agent","action":{"kind":"shell","command":"ls -la src","cwd":"/home/dev/shop"},"context":{"repo":"/home/dev/shop","repo_trust":"trusted"},"reason":"bench"}"#;
    let request: ActionRequest = serde_json::from_str(body).unwrap();
    let policy = Policy::default();
    let env = Environment::new("/root").with_data_dir("/tmp/d");
    let mut total = 0usize;
    for _ in 0..n {
        let e = evaluate(&policy, &request, &env).unwrap();
        total += e.action_hash.len();
    }
    println!("{total}");
}
