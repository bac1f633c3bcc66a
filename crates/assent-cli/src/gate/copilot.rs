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
use std::time::Duration;

use assent_core::action_from_copilot_hook;
use assent_core::hook::copilot::claude_shaped;
use clap::Args;
use serde_json::{json, Value};

use super::args::{OnUnavailable, ServiceArgs};
use super::hook::{self, HookSettings, Verdict, BLOCKING_EXIT};
use super::outcome::parse_seconds;

#[derive(Debug, Clone, Args)]
pub struct CopilotArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person, in seconds. Keep it under the hook's `timeoutSec` (`assent
    /// install copilot` does): past it Copilot runs the tool. The default fits Copilot's 30 s.
    #[arg(long, default_value = "25", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// What to answer when no decision can be had: deny, or ask (Copilot's own prompt; a
    /// `-p` run takes that as a deny).
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the hook payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<std::path::PathBuf>,
}

impl CopilotArgs {
    fn settings(&self) -> HookSettings {
        HookSettings {
            service: self.service.clone(),
            wait: self.wait,
            submit_timeout: self.submit_timeout,
            on_unavailable: self.on_unavailable,
            task: self.task.clone(),
            agent: "copilot",
        }
    }
}

pub fn run(args: &CopilotArgs) -> ExitCode {
    let mut payload = match hook::load(args.payload.as_ref()) {
        Ok(payload) => claude_shaped(&payload),
        Err(why) => return blocked(&why),
    };
    let settings = args.settings();
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
            let verdict = hook::permission(&payload, &settings, action_from_copilot_hook);
            println!("{}", answer(&verdict));
        }
        "PostToolUse" => hook::executed(&payload, &settings, Some(action_from_copilot_hook)),
        "SessionEnd" => hook::session_end(&payload, &settings),
        "" => return blocked("the payload is no preToolUse, postToolUse or sessionEnd"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// Exit 2 with the reason on stderr: Copilot blocks the call.
fn blocked(why: &str) -> ExitCode {
    eprintln!("Assent gate: {why}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
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
