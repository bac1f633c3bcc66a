//! Codex CLI hook payloads as Codex 0.169 sends them (../shared/CODEX.md), and running
//! `assent gate codex` with them.

use std::path::Path;
use std::process::Child;

use serde_json::{json, Value};

use super::{finish, runtime, spawn_with_stdin, Ran, Service};

/// A Codex hook payload: the fields Codex 0.169 sends. PermissionRequest has no
/// `tool_use_id`; the others do.
pub fn codex(
    event: &str,
    session: &str,
    call: &str,
    tool: &str,
    input: Value,
    cwd: &Path,
) -> Value {
    let mut p = json!({
        "session_id": session,
        "turn_id": format!("{session}-turn"),
        "transcript_path": format!("/home/dev/.codex/sessions/2026/11/30/rollout-{session}.jsonl"),
        "cwd": cwd,
        "hook_event_name": event,
        "model": "gpt-5.1-codex",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": input,
    });
    if event != "PermissionRequest" {
        p["tool_use_id"] = json!(call);
    }
    p
}

pub fn bash(command: &str) -> Value {
    json!({ "command": command })
}

pub fn spawn_codex(service_url: &str, token: &str, extra: &[&str], stdin: &[u8]) -> Child {
    let mut args = vec!["gate", "codex"];
    args.extend_from_slice(extra);
    spawn_with_stdin(
        &args,
        &[("ASSENT_URL", service_url), ("ASSENT_TOKEN", token)],
        stdin,
    )
}

pub fn run_codex(service: &Service, extra: &[&str], payload: &Value) -> Ran {
    finish(spawn_codex(
        &service.url,
        &service.requester,
        extra,
        payload.to_string().as_bytes(),
    ))
}

pub fn pending_count(service: &Service) -> usize {
    runtime()
        .block_on(service.approver_client().pending())
        .unwrap()
        .len()
}

pub fn permission_allow() -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
}
