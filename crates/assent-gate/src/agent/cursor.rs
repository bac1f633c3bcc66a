//! `assent gate cursor`: one Cursor hook call (`.cursor/hooks.json`), written against Cursor's
//! hooks documentation (cursor.com/docs/hooks, read December 2026); Cursor does not run here.
//!
//! - `beforeShellExecution` and `beforeMCPExecution` decide shell commands and MCP calls;
//!   `preToolUse` decides every other tool (file reads, writes, edits, deletes, fetches,
//!   subagents) and lets `Shell` and `MCP:` calls through to those two, so no call is asked
//!   about twice. Each waits for a person as the Claude Code gate does and answers
//!   `{"permission":"allow"}` or `{"permission":"deny","user_message":…,"agent_message":…}`
//!   (the agent gets the reason). Never `ask` unless `--on-unavailable ask` and no decision to
//!   be had: Cursor's own prompt then decides (it ignores `ask` in auto-review mode and on
//!   `preToolUse`, so the call runs there).
//! - `postToolUse`: the executed record for the coverage check (with the action: a shell call
//!   was submitted without the call id). `sessionEnd`: the run ends.
//!
//! An unreadable payload exits 2 with the reason on stderr, which Cursor treats as a deny.

use std::process::ExitCode;

use assent_core::action_from_cursor_hook;
use assent_core::hook::cursor::claude_shaped;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(raw: Value, gate: Hook<'_>) -> ExitCode {
    let payload = claude_shaped(&raw);
    let event = raw
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match event {
        "preToolUse" if decided_elsewhere(&raw) => {
            println!("{}", json!({ "permission": "allow" }));
        }
        "preToolUse" | "beforeShellExecution" | "beforeMCPExecution" => {
            let verdict = hook::permission(&payload, gate, action_from_cursor_hook);
            println!("{}", answer(&verdict));
        }
        "postToolUse" => hook::executed(&payload, gate, Some(action_from_cursor_hook)),
        "sessionEnd" => hook::session_end(&payload, gate),
        "" => return hook::blocked("the payload has no hook_event_name"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// A `preToolUse` for a shell command or an MCP tool: `beforeShellExecution` /
/// `beforeMCPExecution` decide it, with the command or the server in hand.
fn decided_elsewhere(raw: &Value) -> bool {
    raw.get("tool_name")
        .and_then(Value::as_str)
        .is_some_and(|tool| tool == "Shell" || tool.starts_with("MCP:"))
}

/// The permission answer of `preToolUse`, `beforeShellExecution` and `beforeMCPExecution`.
pub fn answer(verdict: &Verdict) -> Value {
    match verdict {
        Verdict::Allow(_) => json!({ "permission": "allow" }),
        Verdict::Deny(reason) => {
            json!({ "permission": "deny", "user_message": reason, "agent_message": reason })
        }
        Verdict::Ask(reason) => {
            json!({ "permission": "ask", "user_message": reason, "agent_message": reason })
        }
    }
}
