//! `assent gate claude-code`: one Claude Code hook call. Reads the payload on stdin and
//! always ends with exit 0 and a JSON answer in the event's format, or exit 2 (which Claude
//! Code treats as a block) when the payload itself is unreadable. Never a silent allow.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::ExitCode;

use assent_core::hook::{action_from_claude_hook, HookDefaults, HookError};
use assent_core::request::ActionRequest;
use serde_json::{json, Value};

use crate::hook::{self, Hook, Verdict};

/// Answers one hook payload.
pub fn handle(payload: Value, gate: Hook<'_>) -> ExitCode {
    match hook::event_name(&payload) {
        event @ ("PreToolUse" | "PermissionRequest") => {
            let verdict = hook::permission(&payload, gate, translate);
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

/// How much of the transcript's end is read for the person's last turns.
const TRANSCRIPT_TAIL: u64 = 256 * 1024;

/// The request of a hook payload, with the person's last turns from the session's transcript
/// when the gate can read it (`context.task_turns`: the model reviewer sees them only when
/// the policy says `share_task = true`; the service drops them otherwise).
fn translate(payload: &Value, defaults: &HookDefaults) -> Result<ActionRequest, HookError> {
    let mut request = action_from_claude_hook(payload, defaults)?;
    if let Some(path) = payload.get("transcript_path").and_then(Value::as_str) {
        request.context.task_turns = task_turns(Path::new(path));
    }
    Ok(request)
}

/// The person's last turns in the transcript at `path` (its last [`TRANSCRIPT_TAIL`] bytes);
/// none when it is not a regular file or cannot be read.
pub fn task_turns(path: &Path) -> Vec<String> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Vec::new();
    };
    if !meta.is_file() {
        return Vec::new();
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    if file
        .seek(SeekFrom::Start(meta.len().saturating_sub(TRANSCRIPT_TAIL)))
        .is_err()
    {
        return Vec::new();
    }
    let mut tail = Vec::new();
    if file.take(TRANSCRIPT_TAIL).read_to_end(&mut tail).is_err() {
        return Vec::new();
    }
    assent_core::reviewer::task::claude_code_turns(&String::from_utf8_lossy(&tail))
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
