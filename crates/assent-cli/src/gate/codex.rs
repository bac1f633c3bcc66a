//! `assent gate codex`: one Codex CLI hook call (Codex 0.169 hooks, Claude-style JSON).
//!
//! - `PermissionRequest` (Codex asks before an escalation or a "prompt" rule): the full
//!   decision, waiting for a person like the Claude Code gate; answers allow, or deny with
//!   the reason.
//! - `PreToolUse` (every tool call, whatever Codex's approval policy): Codex's PreToolUse can
//!   only deny, so the gate denies what the service refuses outright (the policy blocks it,
//!   or a person denied the same action earlier in the run) and prints nothing otherwise; it
//!   never waits for a person here.
//! - `PostToolUse`: the executed record for the coverage check. `SessionEnd`: the run ends.
//!
//! An unreadable payload (not JSON, too big, no event) exits 2 with the reason on stderr,
//! which Codex treats as a deny. Nothing printed and exit 0 is "no decision": for
//! PermissionRequest Codex's own reviewer then decides (`--on-unavailable ask` only).

use std::process::ExitCode;
use std::time::Duration;

use assent_core::action_from_codex_hook;
use clap::Args;
use serde_json::{json, Value};

use super::hook::{self, HookSettings, Verdict, BLOCKING_EXIT};
use super::outcome::parse_seconds;
use super::{OnUnavailable, ServiceArgs};

#[derive(Debug, Clone, Args)]
pub struct CodexArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person, in seconds. Keep it under the hook's timeout
    /// (`assent install codex` does); the default fits Codex's 600 s default.
    #[arg(long, default_value = "590", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// What to answer when no decision can be had: deny, or no decision (Codex's own
    /// approval flow decides).
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the hook payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<std::path::PathBuf>,
}

impl CodexArgs {
    fn settings(&self) -> HookSettings {
        HookSettings {
            service: self.service.clone(),
            wait: self.wait,
            submit_timeout: self.submit_timeout,
            on_unavailable: self.on_unavailable,
            task: self.task.clone(),
        }
    }
}

pub fn run(args: &CodexArgs) -> ExitCode {
    let payload = match hook::load(args.payload.as_ref()) {
        Ok(payload) => payload,
        Err(why) => return blocked(&why),
    };
    let settings = args.settings();
    let answer = match hook::event_name(&payload) {
        "PermissionRequest" => permission_answer(&hook::permission(
            &payload,
            &settings,
            action_from_codex_hook,
        )),
        "PreToolUse" => hook::screen(&payload, &settings, action_from_codex_hook)
            .as_ref()
            .and_then(pre_tool_use_answer),
        "PostToolUse" => {
            hook::executed(&payload, &settings, Some(action_from_codex_hook));
            None
        }
        "SessionEnd" => {
            hook::session_end(&payload, &settings);
            None
        }
        "" => return blocked("the payload has no hook_event_name"),
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

/// Exit 2 with the reason on stderr: Codex blocks the call and shows the reason.
fn blocked(why: &str) -> ExitCode {
    eprintln!("Assent gate: {why}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
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
/// as a failed hook).
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
