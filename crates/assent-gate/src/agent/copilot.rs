//! `assent gate copilot`: one GitHub Copilot CLI hook call (Copilot CLI 1.0.102 hooks in
//! `.github/hooks/*.json` or `$COPILOT_HOME/hooks/*.json`).
//!
//! - `preToolUse` (every tool call): the full decision, holding a call the policy asks about
//!   for a person as the Claude Code gate does. The answer is `{"permissionDecision":"allow"}`
//!   (which also skips Copilot's own prompt: observed, a `-p` run without `--allow-all-tools`
//!   ran the tool) or `{"permissionDecision":"deny","permissionDecisionReason":…}` — the model
//!   gets `Denied by preToolUse hook: <reason>` and the turn goes on. Never `ask` unless
//!   `--on-unavailable ask` and no decision to be had: in a `-p` run Copilot treats it as a
//!   deny ("unable to ask user for confirmation").
//! - `postToolUse`: the executed record for the coverage check (the payload carries no call
//!   id, so the action goes with it and the service finds it by its hash). `sessionEnd`: the
//!   run ends.
//!
//! The payload is read as Claude Code's ([`assent_core::hook::copilot`]), either of Copilot's
//! two formats. An unreadable payload exits 2 with the reason on stderr, which Copilot treats
//! as a deny.

use std::process::ExitCode;

use assent_core::action_from_copilot_hook;
use assent_core::hook::copilot::claude_shaped;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(raw: Value, gate: Hook<'_>) -> ExitCode {
    let mut payload = claude_shaped(&raw);
    match hook::event_name(&payload) {
        "PreToolUse" => {
            // Copilot gives every call of a turn one timestamp: each submission its own key.
            let key = payload
                .get("tool_use_id")
                .and_then(Value::as_str)
                .map(hook::own_call_key);
            if let (Some(key), Some(object)) = (key, payload.as_object_mut()) {
                object.insert("tool_use_id".into(), Value::String(key));
            }
            let verdict = hook::permission(&payload, gate, action_from_copilot_hook);
            println!("{}", answer(&verdict));
        }
        "PostToolUse" => hook::executed(&payload, gate, Some(action_from_copilot_hook)),
        "SessionEnd" => hook::session_end(&payload, gate),
        "" => return hook::blocked("the payload is no preToolUse, postToolUse or sessionEnd"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// preToolUse's answer.
pub fn answer(verdict: &Verdict) -> Value {
    match verdict {
        Verdict::Allow(_) => json!({ "permissionDecision": "allow" }),
        Verdict::Deny(reason) => {
            json!({ "permissionDecision": "deny", "permissionDecisionReason": reason })
        }
        Verdict::Ask(reason) => {
            json!({ "permissionDecision": "ask", "permissionDecisionReason": reason })
        }
    }
}
