//! `assent gate codex`: one Codex CLI hook call (Codex 0.169 hooks, Claude-style JSON).
//!
//! - `PreToolUse` (every tool call, whatever Codex's approval policy, under `codex exec`, its
//!   `--approve-for-me` and the interactive CLI alike): the full decision, holding a call the
//!   policy asks about for a person as the Claude Code gate does. A deny (the policy, a
//!   remembered denial, a person — with their reason) is Codex's deny, which the model sees;
//!   an allow prints nothing (Codex reports an allow without `updatedInput` as a failed hook),
//!   so the call goes on, and leaves a pass for that call ([`crate::codex_pass`]).
//! - `PermissionRequest` (Codex asks before an escalation or a "prompt" rule, after
//!   PreToolUse): covered by the pass PreToolUse left for the same call — allow, no second
//!   prompt; without one, the full decision again.
//! - `PostToolUse`: the executed record for the coverage check. `SessionEnd`: the run ends.
//!
//! An unreadable payload (not JSON, too big, no event) exits 2 with the reason on stderr,
//! which Codex treats as a deny. Nothing printed and exit 0 is "no decision": Codex goes on
//! with its own approval flow (`--on-unavailable ask` only, when no decision can be had).

use std::process::ExitCode;
use std::time::SystemTime;

use assent_core::action_from_codex_hook;
use serde_json::{json, Value};

use crate::codex_pass::{self, Call, Passes};
use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(payload: Value, gate: Hook<'_>) -> ExitCode {
    let passes = codex_pass::default_root().map(Passes::new);
    let call = Call::of(&payload);
    let answer = match hook::event_name(&payload) {
        "PermissionRequest" => {
            let covered = match (&passes, &call) {
                (Some(passes), Some(call)) => passes.take(call, SystemTime::now()),
                _ => false,
            };
            if covered {
                permission_answer(&Verdict::Allow(String::new()))
            } else {
                permission_answer(&hook::permission(&payload, gate, action_from_codex_hook))
            }
        }
        "PreToolUse" => {
            let verdict = hook::permission(&payload, gate, action_from_codex_hook);
            if verdict_allows(&verdict) {
                leave_pass(passes.as_ref(), call.as_ref(), &payload);
            }
            pre_tool_use_answer(&verdict)
        }
        "PostToolUse" => {
            hook::executed(&payload, gate, Some(action_from_codex_hook));
            if let (Some(passes), Some(call), Some(id)) = (&passes, &call, call_id(&payload)) {
                passes.drop_pass(call, id);
            }
            None
        }
        "SessionEnd" => {
            hook::session_end(&payload, gate);
            if let (Some(passes), Some(call)) = (&passes, &call) {
                passes.end_session(call);
            }
            None
        }
        "" => return hook::blocked("the payload has no hook_event_name"),
        other => {
            eprintln!("Assent gate: nothing to do for hook event {other}");
            None
        }
    };
    if let Some(answer) = answer {
        println!("{answer}");
    }
    ExitCode::SUCCESS
}

fn verdict_allows(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Allow(_))
}

fn call_id(payload: &Value) -> Option<&str> {
    payload
        .get("tool_use_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// Leaves the pass the PermissionRequest of this call takes. Without one, that
/// PermissionRequest is decided in full again (a "once" approval would be asked twice), so a
/// failure is said on stderr.
fn leave_pass(passes: Option<&Passes>, call: Option<&Call>, payload: &Value) {
    let (Some(passes), Some(call), Some(id)) = (passes, call, call_id(payload)) else {
        return;
    };
    if let Err(err) = passes.leave(call, id) {
        eprintln!("Assent gate: cannot note that {id} was allowed ({err}); if Codex asks about it, Assent decides again");
    }
}

/// PermissionRequest's answer; `None` (no decision) hands it to Codex's own approval flow.
pub fn permission_answer(verdict: &Verdict) -> Option<Value> {
    let decision = match verdict {
        Verdict::Allow(_) => json!({ "behavior": "allow" }),
        Verdict::Deny(reason) => json!({ "behavior": "deny", "message": reason }),
        Verdict::Ask(_) => return None,
    };
    Some(json!({ "hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": decision,
    }}))
}

/// PreToolUse's answer: only a deny is said (Codex reports an allow without `updatedInput`
/// as a failed hook); an allow, or no decision, prints nothing and the call goes on.
pub fn pre_tool_use_answer(verdict: &Verdict) -> Option<Value> {
    let Verdict::Deny(reason) = verdict else {
        return None;
    };
    Some(json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }}))
}
