//! A prompt nobody answers: the real gate, waiting on a real `assent serve` whose policy times
//! prompts out after one second, says which `fallback_on_timeout` applied — and what that
//! means for the next request of the same session (run).

use crate::gate_support::*;
use serde_json::{json, Value};

fn fetch(session: &str, id: &str, cwd: &std::path::Path) -> Value {
    let input = json!({"url": "https://slow.unknown-example.org/", "prompt": "x"});
    payload("PreToolUse", session, id, "WebFetch", input, cwd)
}

/// Lets one prompt time out under `fallback`; answers the gate's reason for it and for the
/// next request of the same session.
fn time_out_with(fallback: &str) -> (String, String) {
    let policy = format!("approval_timeout_seconds = 1\nfallback_on_timeout = \"{fallback}\"\n");
    let service = Service::start_with_policy(Some(&policy));
    let (_tmp, root) = repo();
    let session = format!("sess-{fallback}");
    let first = gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &fetch(&session, "toolu_1", &root),
    );
    assert_eq!(first.code, 0, "exit 0 with JSON: {}", first.stderr);
    assert_eq!(
        first.decision(),
        "deny",
        "an unanswered prompt is never an allow ({fallback})"
    );
    let next = gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &fetch(&session, "toolu_2", &root),
    );
    assert_eq!(next.code, 0, "exit 0 with JSON: {}", next.stderr);
    (first.reason(), next.reason())
}

#[test]
fn deny_fallback_is_named_and_the_run_asks_again() {
    let (first, next) = time_out_with("deny");
    assert!(
        first.contains("nobody answered") && first.contains("fallback_on_timeout = deny"),
        "the gate names the deny fallback: {first}"
    );
    assert!(
        next.contains("fallback_on_timeout = deny"),
        "the next request opened a new prompt, which timed out the same way: {next}"
    );
}

#[test]
fn pause_fallback_is_named_and_blocks_the_run() {
    let (first, next) = time_out_with("pause");
    assert!(
        first.contains("is paused until a person resumes it")
            && first.contains("fallback_on_timeout = pause"),
        "the gate names the pause fallback: {first}"
    );
    assert!(
        next.contains("blocked") && next.contains("paused awaiting a person"),
        "the run's next ask is blocked without a prompt: {next}"
    );
}

#[test]
fn cancel_run_fallback_is_named_and_ends_the_run() {
    let (first, next) = time_out_with("cancel_run");
    assert!(
        first.contains("is cancelled") && first.contains("fallback_on_timeout = cancel_run"),
        "the gate names the cancel_run fallback: {first}"
    );
    assert!(
        next.contains("run cancelled"),
        "the run's next request is blocked: {next}"
    );
}
