//! `assent gate gemini`: one Gemini CLI hook call (Gemini CLI 0.61 hooks in `settings.json`).
//!
//! - `BeforeTool` (every tool call, under any approval mode, yolo included; it runs before
//!   Gemini's own policy): the full decision, holding a call the policy asks about for a person
//!   as the Claude Code gate does. The answer is `{"decision":"allow"}` or
//!   `{"decision":"deny","reason":…}` — the model gets `Tool execution blocked: <reason>` and
//!   the turn goes on. Never `ask`: headless, Gemini waits forever for a confirmation nobody
//!   can give.
//! - `AfterTool`: the executed record for the coverage check (the payload carries no call id,
//!   so the action goes with it and the service finds it by its hash). `SessionEnd`: the run
//!   ends.
//!
//! The payload is read as Claude Code's ([`assent_core::hook::gemini`]), so the evidence is
//! the same: the command, the edit's diff, the network targets, the MCP tool's arguments. An
//! unreadable payload exits 2 with the reason on stderr, which Gemini treats as a deny. With
//! `--on-unavailable ask` and no decision to be had, nothing is printed: Gemini's own approval
//! mode decides (under `--approval-mode=yolo`, that runs the tool).

use std::process::ExitCode;

use assent_core::action_from_gemini_hook;
use assent_core::hook::gemini::claude_shaped;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(raw: Value, gate: Hook<'_>) -> ExitCode {
    let payload = claude_shaped(&raw);
    match hook::event_name(&payload) {
        "BeforeTool" => {
            let verdict = hook::permission(&payload, gate, action_from_gemini_hook);
            if let Some(answer) = answer(&verdict) {
                println!("{answer}");
            }
        }
        "AfterTool" => hook::executed(&payload, gate, Some(action_from_gemini_hook)),
        "SessionEnd" => hook::session_end(&payload, gate),
        "" => return hook::blocked("the payload has no hook_event_name"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// BeforeTool's answer; `None` (no decision) leaves it to Gemini's own approval mode.
pub fn answer(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Allow(_) => Some(json!({ "decision": "allow" })),
        Verdict::Deny(reason) => Some(json!({ "decision": "deny", "reason": reason })),
        Verdict::Ask(_) => None,
    }
}
