//! Every way of not getting a decision ends in a deny (or `ask` when chosen), exit 0 with
//! JSON — or exit 2 for an unreadable payload. Claude Code runs the tool on a timeout or an
//! odd exit code, so none of these may be a silent allow.

use std::path::Path;

use crate::gate_support::*;
use serde_json::json;

fn bash(event: &str) -> serde_json::Value {
    payload(
        event,
        "sess-fc",
        "toolu_fc1",
        "Bash",
        json!({"command": "cargo publish", "description": "publish"}),
        Path::new("/tmp"),
    )
}

#[test]
fn service_down_denies_with_the_reason() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let ran = gate(&url, "t", &[], &bash("PreToolUse"));
    assert_eq!(
        ran.code, 0,
        "a JSON answer goes with exit 0: {}",
        ran.stderr
    );
    assert_eq!(ran.decision(), "deny", "no service must never mean allow");
    assert!(
        ran.reason().contains("unavailable"),
        "the reason says what happened: {}",
        ran.reason()
    );
}

#[test]
fn service_down_hands_back_to_claude_when_chosen() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let ran = gate(&url, "t", &["--on-unavailable", "ask"], &bash("PreToolUse"));
    assert_eq!(
        ran.decision(),
        "ask",
        "--on-unavailable ask returns the decision to Claude Code's prompt"
    );
    let ran = gate(
        &url,
        "t",
        &["--on-unavailable", "ask"],
        &bash("PermissionRequest"),
    );
    assert_eq!(
        ran.json(),
        json!({}),
        "PermissionRequest without a decision shows Claude Code's own dialog"
    );
}

#[test]
fn hung_service_denies_at_the_submit_deadline() {
    let hung = hung_service();
    let ran = gate(
        &hung.url,
        "t",
        &["--submit-timeout", "0.3", "--wait", "5"],
        &bash("PreToolUse"),
    );
    assert_eq!(ran.code, 0, "the gate answers before Claude Code's timeout");
    assert_eq!(
        ran.decision(),
        "deny",
        "a service that never answers must not let the tool run"
    );
    assert!(
        ran.reason().contains("did not answer"),
        "the reason names the hang: {}",
        ran.reason()
    );
}

#[test]
fn hung_wait_denies_at_the_gate_deadline() {
    let pending = json!({"action_id":"a1","action_hash":"h","decision":"ask","risk":"medium","reasons":["r"],"rule":"x","status":"pending","approval_id":"ap1"}).to_string();
    // The submit answers; the long-poll for the approval never does.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answer = http_response("200 OK", &pending);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for (i, stream) in listener.incoming().enumerate() {
            let mut stream = stream.unwrap();
            if i == 0 {
                std::io::Write::write_all(&mut stream, &answer).unwrap();
            }
            held.push(stream);
        }
    });
    let ran = gate(&url, "t", &["--wait", "1.5"], &bash("PreToolUse"));
    assert_eq!(
        ran.decision(),
        "deny",
        "the gate's own deadline ends the wait with a deny"
    );
    assert!(
        ran.reason().contains("did not answer") || ran.reason().contains("nobody decided"),
        "{}",
        ran.reason()
    );
}

#[test]
fn server_errors_and_malformed_answers_deny() {
    let cases = [
        (
            "500 with an error body",
            http_response(
                "500 Internal Server Error",
                r#"{"error":{"code":"internal","message":"boom"}}"#,
            ),
        ),
        (
            "503 from a proxy",
            http_response("503 Service Unavailable", "<html>down</html>"),
        ),
        ("200 with garbage", http_response("200 OK", "{not json")),
        (
            "200 with the wrong shape",
            http_response("200 OK", r#"{"status":"allowed"}"#),
        ),
        ("not HTTP at all", b"SSH-2.0-OpenSSH_9.6\r\n".to_vec()),
        (
            "truncated body",
            b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"status\"".to_vec(),
        ),
        (
            "an unknown status value",
            http_response(
                "200 OK",
                r#"{"action_id":"a","action_hash":"h","decision":"auto","risk":"low","reasons":[],"rule":"r","status":"maybe"}"#,
            ),
        ),
    ];
    for (name, response) in cases {
        let url = canned_service(vec![response]);
        let ran = gate(&url, "t", &[], &bash("PreToolUse"));
        assert_eq!(ran.code, 0, "{name}: answered with exit 0");
        assert_eq!(
            ran.decision(),
            "deny",
            "{name}: a broken answer must never allow"
        );
        let ran = gate(&url, "t", &[], &bash("PermissionRequest"));
        assert_eq!(
            ran.json()["hookSpecificOutput"]["decision"]["behavior"],
            "deny",
            "{name}: PermissionRequest denies too"
        );
    }
}

#[test]
fn a_401_denies_and_says_so() {
    let url = canned_service(vec![http_response(
        "401 Unauthorized",
        r#"{"error":{"code":"unauthorized","message":"bad token"}}"#,
    )]);
    let ran = gate(&url, "wrong", &[], &bash("PreToolUse"));
    assert_eq!(ran.decision(), "deny", "a refused token is not an allow");
    assert!(
        ran.reason().contains("bad token"),
        "the service's message reaches the agent: {}",
        ran.reason()
    );
}

#[test]
fn no_token_anywhere_denies() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let child = spawn_with_stdin(
        &["gate", "claude-code"],
        &[("ASSENT_URL", url.as_str())],
        bash("PreToolUse").to_string().as_bytes(),
    );
    let ran = finish(child);
    assert_eq!(
        ran.decision(),
        "deny",
        "without a token the gate cannot ask, so it denies"
    );
    assert!(
        ran.reason().contains("ASSENT_TOKEN"),
        "the reason says how to fix it: {}",
        ran.reason()
    );
}

#[test]
fn unreadable_payloads_block_with_exit_2() {
    let huge = vec![b' '; 17 * 1024 * 1024];
    let cases: [(&str, &[u8]); 5] = [
        ("empty", b""),
        ("not JSON", b"rm -rf /"),
        ("a JSON array", b"[1,2]"),
        (
            "no event name",
            br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        ),
        ("larger than the limit", &huge),
    ];
    for (name, stdin) in cases {
        let child = spawn_with_stdin(
            &["gate", "claude-code"],
            &[("ASSENT_URL", "http://127.0.0.1:1"), ("ASSENT_TOKEN", "t")],
            stdin,
        );
        let ran = finish(child);
        assert_eq!(
            ran.code, 2,
            "{name}: exit 2 makes Claude Code block the tool call"
        );
        assert!(!ran.stderr.is_empty(), "{name}: stderr tells Claude why");
    }
}

#[test]
fn a_tool_call_the_gate_cannot_translate_is_denied() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let bad = [json!({"command": 42}), json!({})];
    for input in bad {
        let p = payload(
            "PreToolUse",
            "s",
            "toolu_bad",
            "Bash",
            input.clone(),
            Path::new("/tmp"),
        );
        let ran = gate(&url, "t", &["--on-unavailable", "ask"], &p);
        assert_eq!(
            ran.decision(),
            "deny",
            "{input}: a Bash call without a readable command is denied, even with ask"
        );
    }
    let mut p = bash("PreToolUse");
    p["tool_input"] = json!("a string");
    assert_eq!(
        gate(&url, "t", &[], &p).decision(),
        "deny",
        "tool_input must be an object"
    );
}

#[test]
fn other_events_need_no_service_and_print_no_decision() {
    let url = format!("http://127.0.0.1:{}", free_port());
    for event in [
        "PostToolUse",
        "SessionEnd",
        "Notification",
        "UserPromptSubmit",
    ] {
        let ran = gate(&url, "t", &[], &bash(event));
        assert_eq!(ran.code, 0, "{event}: never blocks the session");
        assert_eq!(ran.stdout, "", "{event}: no permission decision is printed");
    }
}

#[test]
fn payload_from_a_file_answers_like_stdin() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("payload.json");
    std::fs::write(&file, bash("PreToolUse").to_string()).unwrap();
    let ran = finish(spawn_with_stdin(
        &["gate", "claude-code", "--payload", file.to_str().unwrap()],
        &[("ASSENT_URL", url.as_str()), ("ASSENT_TOKEN", "t")],
        b"",
    ));
    assert_eq!(
        ran.decision(),
        "deny",
        "the file's payload goes the same fail-closed path"
    );
    let missing = dir.path().join("missing.json");
    let ran = finish(spawn_with_stdin(
        &[
            "gate",
            "claude-code",
            "--payload",
            missing.to_str().unwrap(),
        ],
        &[("ASSENT_URL", url.as_str()), ("ASSENT_TOKEN", "t")],
        b"",
    ));
    assert_eq!(
        ran.code, 2,
        "an unreadable payload file blocks like unreadable stdin"
    );
}
