//! Never ask twice, through the Claude Code gate: after a person denies `git push origin main`
//! with a reason, the agent's retry in the same session is denied at once with that reason —
//! no second prompt.

use std::time::Instant;

use crate::gate_support::*;
use serde_json::json;

fn push(session: &str, tool_use_id: &str, root: &std::path::Path) -> serde_json::Value {
    payload(
        "PreToolUse",
        session,
        tool_use_id,
        "Bash",
        json!({"command": "git push origin main", "description": "publish"}),
        root,
    )
}

#[test]
fn a_denied_action_is_not_asked_again_in_the_same_run() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let first = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &push("sess-1", "toolu_1", &root),
    );
    let pending = wait_pending(&service, 1);
    deny(
        &service,
        &pending[0].approval_id,
        "open a PR instead of pushing to main",
    );
    let ran = finish(first);
    assert_eq!(ran.decision(), "deny", "the person's denial is the answer");

    let started = Instant::now();
    let again = gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &push("sess-1", "toolu_2", &root),
    );
    assert_eq!(
        again.decision(),
        "deny",
        "the retry is denied: {}",
        again.stdout
    );
    assert!(
        again
            .reason()
            .contains("open a PR instead of pushing to main")
            && again.reason().contains("not asked again"),
        "the retry carries the person's reason and says it was not asked again: {}",
        again.reason()
    );
    assert!(
        started.elapsed().as_secs() < 25,
        "answered without waiting for a person (the gate's wait is 30 s)"
    );
    let rt = runtime();
    let open = rt.block_on(service.approver_client().pending()).unwrap();
    assert!(open.is_empty(), "no second prompt was opened: {open:?}");

    let other = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &push("sess-2", "toolu_3", &root),
    );
    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending.len(),
        1,
        "another run (session) is asked: the denial was for that run"
    );
    deny(&service, &pending[0].approval_id, "not today");
    finish(other);
}
