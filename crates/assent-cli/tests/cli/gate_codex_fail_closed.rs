//! `assent gate codex` fails closed: unreadable payloads exit 2 (Codex's deny), unreadable
//! tool calls and an unreachable service are denied.

use crate::gate_support::codex::*;
use crate::gate_support::*;
use serde_json::json;

#[test]
fn hostile_input_is_refused_and_fails_closed() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let huge = vec![b'['; 17 * 1024 * 1024];
    let no_event = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (
            b"{\"hook_event_name\": \"PreToolUse\", ".to_vec(),
            "not JSON",
            "truncated JSON",
        ),
        (huge, "larger than", "a payload over 16 MiB"),
        (b"[1, 2, 3]".to_vec(), "not a JSON object", "a JSON array"),
        (
            no_event.to_string().into_bytes(),
            "no hook_event_name",
            "no event name",
        ),
    ];
    for (bytes, want, what) in cases {
        let ran = finish(spawn_codex(&service.url, &service.requester, &[], &bytes));
        assert_eq!(
            ran.code, 2,
            "{what}: exit 2 is Codex's deny, never a silent allow"
        );
        assert!(
            ran.stderr.contains(want),
            "{what}: the reason is said: {}",
            ran.stderr
        );
    }
    for event in ["PreToolUse", "PermissionRequest"] {
        let mut bad = codex(event, "cx-bad", "call_b", "Bash", json!({}), &root);
        bad["tool_input"] = json!("rm -rf /");
        let ran = run_codex(&service, &[], &bad);
        let out = ran.json();
        let denied = out["hookSpecificOutput"]["permissionDecision"] == "deny"
            || out["hookSpecificOutput"]["decision"]["behavior"] == "deny";
        assert!(
            denied,
            "{event}: a tool call that cannot be read is denied: {out}"
        );
    }
}

#[test]
fn an_unreachable_service_denies_unless_told_to_hand_back() {
    let (_tmp, root) = repo();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let ask = codex(
        "PermissionRequest",
        "cx-down",
        "",
        "Bash",
        bash("git push"),
        &root,
    )
    .to_string();
    let ran = finish(spawn_codex(
        &url,
        "t",
        &["--submit-timeout", "2"],
        ask.as_bytes(),
    ));
    assert_eq!(
        ran.json()["hookSpecificOutput"]["decision"]["behavior"],
        "deny",
        "no service, no allow: the gate fails closed"
    );
    let pre = codex(
        "PreToolUse",
        "cx-down",
        "call_d",
        "Bash",
        bash("git push"),
        &root,
    )
    .to_string();
    let ran = finish(spawn_codex(
        &url,
        "t",
        &["--submit-timeout", "2"],
        pre.as_bytes(),
    ));
    assert_eq!(
        ran.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "PreToolUse fails closed too, as Codex runs every call it does not deny"
    );
    let ran = finish(spawn_codex(
        &url,
        "t",
        &["--submit-timeout", "2", "--on-unavailable", "ask"],
        ask.as_bytes(),
    ));
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, ""),
        "--on-unavailable ask makes no decision, so Codex's own reviewer decides"
    );
}
