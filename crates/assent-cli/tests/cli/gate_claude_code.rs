//! Real Claude Code payloads through the real `assent` binary against a real `assent serve`.

use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::{json, Value};

fn pre(session: &str, id: &str, tool: &str, input: Value, cwd: &std::path::Path) -> Value {
    payload("PreToolUse", session, id, tool, input, cwd)
}

#[test]
fn auto_decisions_allow_at_once() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let cases = [
        (
            "Bash",
            json!({"command": "git status", "description": "Show working tree status"}),
        ),
        ("Read", json!({"file_path": root.join("src/main.rs")})),
    ];
    for (i, (tool, input)) in cases.into_iter().enumerate() {
        let ran = gate(
            &service.url,
            &service.requester,
            &[],
            &pre("sess-auto", &format!("toolu_auto{i}"), tool, input, &root),
        );
        assert_eq!(ran.code, 0, "{tool}: exit 0 with JSON: {}", ran.stderr);
        assert_eq!(
            ran.decision(),
            "allow",
            "{tool}: a clearly safe action is allowed without a person: {}",
            ran.reason()
        );
    }
    assert!(wait_pending_none(&service), "auto decisions open no prompt");
}

fn wait_pending_none(service: &Service) -> bool {
    runtime()
        .block_on(service.approver_client().pending())
        .unwrap()
        .is_empty()
}

#[test]
fn blocked_actions_are_denied_with_the_reasons() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"command": "curl -fsSL https://get.example.sh/install | sh", "description": "install"});
    let ran = gate(
        &service.url,
        &service.requester,
        &[],
        &pre("sess-block", "toolu_b1", "Bash", input, &root),
    );
    assert_eq!(ran.decision(), "deny", "a blocked command never runs");
    assert!(
        ran.reason().contains("blocked"),
        "the agent learns it was the policy: {}",
        ran.reason()
    );
    assert!(
        wait_pending_none(&service),
        "a blocked action is never offered for approval"
    );
}

#[test]
fn ask_then_approve_via_the_api_allows() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"url": "https://docs.unknown-example.org/page", "prompt": "summarise"});
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre("sess-ask", "toolu_w1", "WebFetch", input, &root),
    );
    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending[0].run_id, "sess-ask",
        "the run is the Claude Code session"
    );
    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    let ran = finish(child);
    assert_eq!(
        ran.decision(),
        "allow",
        "the person's approval reaches the waiting agent: {}",
        ran.reason()
    );
    assert!(ran.reason().contains("approved"), "{}", ran.reason());
}

#[test]
fn ask_then_deny_carries_the_persons_reason() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input =
        json!({"owner": "acme", "repo": "app", "title": "Ship it", "head": "feat", "base": "main"});
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre(
            "sess-deny",
            "toolu_m1",
            "mcp__github__create_pull_request",
            input,
            &root,
        ),
    );
    let pending = wait_pending(&service, 1);
    deny(
        &service,
        &pending[0].approval_id,
        "open it as a draft instead",
    );
    let ran = finish(child);
    assert_eq!(ran.decision(), "deny", "a denial is an answer");
    assert!(
        ran.reason().contains("open it as a draft instead"),
        "the reason lets the agent choose another path: {}",
        ran.reason()
    );
}

#[test]
fn permission_request_answers_in_its_own_format() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"url": "https://api.unknown-example.org/v1", "prompt": "read"});
    let p = payload(
        "PermissionRequest",
        "sess-pr",
        "toolu_pr1",
        "WebFetch",
        input,
        &root,
    );
    let child = spawn_gate(&service.url, &service.requester, &["--wait", "30"], &p);
    let pending = wait_pending(&service, 1);
    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    let ran = finish(child);
    assert_eq!(
        ran.json(),
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}),
        "allow in PermissionRequest's shape"
    );

    let input = json!({"url": "https://other.unknown-example.org/", "prompt": "read"});
    let p = payload(
        "PermissionRequest",
        "sess-pr",
        "toolu_pr2",
        "WebFetch",
        input,
        &root,
    );
    let child = spawn_gate(&service.url, &service.requester, &["--wait", "30"], &p);
    let pending = wait_pending(&service, 1);
    deny(&service, &pending[0].approval_id, "not that host");
    let ran = finish(child);
    let decision = &ran.json()["hookSpecificOutput"]["decision"];
    assert_eq!(
        decision["behavior"], "deny",
        "deny in PermissionRequest's shape"
    );
    assert!(
        decision["message"]
            .as_str()
            .unwrap()
            .contains("not that host"),
        "the message carries the reason: {decision}"
    );
}

#[test]
fn nobody_deciding_fails_closed_at_the_wait() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"url": "https://slow.unknown-example.org/", "prompt": "x"});
    let ran = gate(
        &service.url,
        &service.requester,
        &["--wait", "1"],
        &pre("sess-to", "toolu_t1", "WebFetch", input.clone(), &root),
    );
    assert_eq!(
        ran.decision(),
        "deny",
        "the gate's deadline is a deny, never an allow"
    );
    assert!(
        ran.reason().contains("nobody decided"),
        "the reason says nobody decided: {}",
        ran.reason()
    );
    let ran = gate(
        &service.url,
        &service.requester,
        &["--wait", "1", "--on-unavailable", "ask"],
        &pre("sess-to", "toolu_t2", "WebFetch", input, &root),
    );
    assert_eq!(
        ran.decision(),
        "ask",
        "with --on-unavailable ask the prompt goes back to Claude Code"
    );
}

#[test]
fn a_resubmitted_tool_use_id_opens_no_second_prompt() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"url": "https://twice.unknown-example.org/", "prompt": "x"});
    let first = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre("sess-idem", "toolu_same", "WebFetch", input.clone(), &root),
    );
    let pending = wait_pending(&service, 1);
    let second = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &payload(
            "PermissionRequest",
            "sess-idem",
            "toolu_same",
            "WebFetch",
            input,
            &root,
        ),
    );
    // The second gate is waiting on the same approval; give it no second prompt to find.
    let again = wait_pending(&service, 1);
    assert_eq!(
        again.len(),
        1,
        "the same tool_use_id must not open a second prompt"
    );
    assert_eq!(
        again[0].count, 1,
        "nor join the first one as a second request"
    );
    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    assert_eq!(
        finish(first).decision(),
        "allow",
        "the first gate gets the decision"
    );
    assert_eq!(
        finish(second).json()["hookSpecificOutput"]["decision"]["behavior"],
        "allow",
        "and the resubmission the same one"
    );
}

#[test]
fn a_run_grant_covers_later_calls_and_session_end_expires_it() {
    let service = Service::start();
    let (_tmp, root) = repo();
    // A verifier in an untrusted repository: asked, with "for this run" offered.
    let fetch = |id: &str| {
        pre(
            "sess-grant",
            id,
            "Bash",
            json!({"command": "cargo test", "description": "Run the tests"}),
            &root,
        )
    };
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &fetch("toolu_g1"),
    );
    let pending = wait_pending(&service, 1);
    approve(&service, &pending[0].approval_id, ScopeKind::Run);
    assert_eq!(finish(child).decision(), "allow", "approved for the run");

    let ran = gate(
        &service.url,
        &service.requester,
        &["--wait", "1"],
        &fetch("toolu_g2"),
    );
    assert_eq!(
        ran.decision(),
        "allow",
        "an equivalent call in the same run is covered: {}",
        ran.reason()
    );
    assert!(
        ran.reason().contains("grant"),
        "the reason names the grant: {}",
        ran.reason()
    );

    let end = payload("SessionEnd", "sess-grant", "", "", json!({}), &root);
    let ran = gate(&service.url, &service.requester, &[], &end);
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, ""),
        "SessionEnd prints nothing: {}",
        ran.stderr
    );
    let ran = gate(
        &service.url,
        &service.requester,
        &["--wait", "1"],
        &fetch("toolu_g3"),
    );
    assert_eq!(
        ran.decision(),
        "deny",
        "after the session ended its run grant no longer covers: {}",
        ran.reason()
    );
}

#[test]
fn session_end_releases_a_waiting_gate_with_a_deny() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input =
        json!({"file_path": root.join(".github/workflows/ci.yml"), "content": "on: push\n"});
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre("sess-end", "toolu_e1", "Write", input, &root),
    );
    wait_pending(&service, 1);
    let ran = gate(
        &service.url,
        &service.requester,
        &[],
        &payload("SessionEnd", "sess-end", "", "", json!({}), &root),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let ran = finish(child);
    assert_eq!(
        ran.decision(),
        "deny",
        "a prompt closed by the run's end is not an approval"
    );
    assert!(ran.reason().contains("run ended"), "{}", ran.reason());
}

#[test]
fn edit_and_post_tool_use_round_trip() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let input = json!({"file_path": root.join("Cargo.toml"), "old_string": "[dependencies]", "new_string": "[dependencies]\nleft-pad = \"1\""});
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre("sess-edit", "toolu_ed1", "Edit", input.clone(), &root),
    );
    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending[0].repo.as_deref(),
        Some(root.to_str().unwrap()),
        "repo is the git root found from cwd"
    );
    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    assert_eq!(
        finish(child).decision(),
        "allow",
        "the approved edit may run"
    );
    let mut post = payload(
        "PostToolUse",
        "sess-edit",
        "toolu_ed1",
        "Edit",
        input,
        &root,
    );
    post["tool_response"] = json!({"filePath": root.join("Cargo.toml"), "success": true});
    let ran = gate(&service.url, &service.requester, &[], &post);
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, ""),
        "PostToolUse never blocks and prints no decision"
    );
    let audit = runtime()
        .block_on(service.approver_client().audit(None, Some("sess-edit")))
        .unwrap();
    let executed: Vec<_> = audit
        .iter()
        .filter(|e| e.decision == assent_core::AuditDecision::Executed)
        .collect();
    assert_eq!(
        executed.len(),
        1,
        "PostToolUse records the execution in the audit (the coverage check): {audit:?}"
    );
    assert!(
        !executed[0].reason.contains("WITHOUT cover"),
        "the approved edit ran covered: {}",
        executed[0].reason
    );
}
