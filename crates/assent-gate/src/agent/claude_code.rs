//! `assent gate claude-code`: one Claude Code hook call. Reads the payload on stdin and
//! always ends with exit 0 and a JSON answer in the event's format, or exit 2 (which Claude
//! Code treats as a block) when the payload itself is unreadable. Never a silent allow.

use std::process::ExitCode;

use assent_core::hook::action_from_claude_hook;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(payload: Value, gate: Hook<'_>) -> ExitCode {
    match hook::event_name(&payload) {
        event @ ("PreToolUse" | "PermissionRequest") => {
            let verdict = hook::permission(&payload, gate, action_from_claude_hook);
            println!("{}", answer(event, &verdict));
            ExitCode::SUCCESS
        }
        "PostToolUse" => {
            hook::executed(&payload, gate, None);
            ExitCode::SUCCESS
        }
        "SessionEnd" => {
            hook::session_end(&payload, gate);
            ExitCode::SUCCESS
        }
        "" => hook::blocked("the payload has no hook_event_name"),
        other => {
            eprintln!("Assent gate: nothing to do for hook event {other}");
            ExitCode::SUCCESS
        }
    }
}

/// The JSON answer for `event` in Claude Code's hook output format.
pub fn answer(event: &str, verdict: &Verdict) -> Value {
    if event == "PermissionRequest" {
        let decision = match verdict {
            Verdict::Allow(_) => json!({ "behavior": "allow" }),
            Verdict::Deny(reason) => json!({ "behavior": "deny", "message": reason }),
            // No decision: Claude Code shows its own permission dialog.
            Verdict::Ask(_) => return json!({}),
        };
        return json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } });
    }
    let (decision, reason) = match verdict {
        Verdict::Allow(r) => ("allow", r),
        Verdict::Deny(r) => ("deny", r),
        Verdict::Ask(r) => ("ask", r),
    };
    json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }})
}
