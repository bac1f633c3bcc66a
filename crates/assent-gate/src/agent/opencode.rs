//! `assent gate opencode`: one tool call of opencode, sent by the plugin `assent install
//! opencode` writes (opencode 1.18 has no command hooks; a plugin's `tool.execute.before` runs
//! before its own permission check, for every tool, and denies by throwing).
//!
//! - `PreToolUse`: the full decision, waiting for a person as the Claude Code gate does. The
//!   answer on stdout is `{"decision":"allow"}`, `{"decision":"deny","reason":…}` (the plugin
//!   throws the reason, which the model gets as the tool's result and the loop goes on), or,
//!   with `--on-unavailable ask` and no decision to be had, `{"decision":"ask"}`: the plugin
//!   lets opencode's own `permission` config decide (allow, by default).
//! - `PostToolUse`: the executed record for the coverage check.
//!
//! An unreadable payload exits 2 with the reason on stderr; the plugin blocks on anything
//! but a readable allow or ask.

use std::process::ExitCode;

use assent_core::action_from_opencode_hook;
use assent_core::hook::opencode::claude_shaped;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one tool call.
pub fn handle(raw: Value, gate: Hook<'_>) -> ExitCode {
    let payload = claude_shaped(&raw);
    match hook::event_name(&payload) {
        "PreToolUse" => {
            let verdict = hook::permission(&payload, gate, action_from_opencode_hook);
            println!("{}", answer(&verdict));
        }
        "PostToolUse" => hook::executed(&payload, gate, None),
        "SessionEnd" => hook::session_end(&payload, gate),
        "" => return hook::blocked("the payload has no hook_event_name"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// The answer the plugin reads.
pub fn answer(verdict: &Verdict) -> Value {
    match verdict {
        Verdict::Allow(_) => json!({ "decision": "allow" }),
        Verdict::Deny(reason) => json!({ "decision": "deny", "reason": reason }),
        Verdict::Ask(reason) => json!({ "decision": "ask", "reason": reason }),
    }
}
