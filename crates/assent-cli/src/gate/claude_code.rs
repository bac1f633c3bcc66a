//! `assent gate claude-code`: one Claude Code hook call. Reads the payload on stdin and
//! always ends with exit 0 and a JSON answer in the event's format, or exit 2 (which Claude
//! Code treats as a block) when the payload itself is unreadable. Never a silent allow.

use std::process::ExitCode;
use std::time::Duration;

use assent_core::hook::action_from_claude_hook;
use clap::Args;
use serde_json::{json, Value};

use super::args::{OnUnavailable, ServiceArgs};
use super::hook::{self, HookSettings, Verdict, BLOCKING_EXIT};
use super::outcome::parse_seconds;

#[derive(Debug, Clone, Args)]
pub struct ClaudeCodeArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person, in seconds. Keep it under the hook's timeout
    /// (`assent install claude-code` does); the default fits Claude Code's 60 s default.
    #[arg(long, default_value = "55", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// What to answer when no decision can be had: deny, or hand back to Claude Code's prompt.
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the hook payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<std::path::PathBuf>,
}

impl ClaudeCodeArgs {
    fn settings(&self) -> HookSettings {
        HookSettings {
            service: self.service.clone(),
            wait: self.wait,
            submit_timeout: self.submit_timeout,
            on_unavailable: self.on_unavailable,
            task: self.task.clone(),
            agent: "claude-code",
        }
    }
}

pub fn run(args: &ClaudeCodeArgs) -> ExitCode {
    let payload = match hook::load(args.payload.as_ref()) {
        Ok(payload) => payload,
        Err(why) => {
            eprintln!("Assent gate: {why}; blocking the tool call");
            return ExitCode::from(BLOCKING_EXIT);
        }
    };
    let settings = args.settings();
    match hook::event_name(&payload) {
        event @ ("PreToolUse" | "PermissionRequest") => {
            let verdict = hook::permission(&payload, &settings, action_from_claude_hook);
            println!("{}", answer(event, &verdict));
            ExitCode::SUCCESS
        }
        "PostToolUse" => {
            hook::executed(&payload, &settings, None);
            ExitCode::SUCCESS
        }
        "SessionEnd" => {
            hook::session_end(&payload, &settings);
            ExitCode::SUCCESS
        }
        "" => {
            eprintln!("Assent gate: the payload has no hook_event_name; blocking the tool call");
            ExitCode::from(BLOCKING_EXIT)
        }
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
