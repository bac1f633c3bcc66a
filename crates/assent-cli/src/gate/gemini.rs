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
use std::time::Duration;

use assent_core::action_from_gemini_hook;
use assent_core::hook::gemini::claude_shaped;
use clap::Args;
use serde_json::{json, Value};

use super::args::{OnUnavailable, ServiceArgs};
use super::hook::{self, HookSettings, Verdict, BLOCKING_EXIT};
use super::outcome::parse_seconds;

#[derive(Debug, Clone, Args)]
pub struct GeminiArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person, in seconds. Keep it under the hook's timeout (`assent
    /// install gemini` does): past the timeout Gemini runs the tool. The default fits Gemini's
    /// 60 s default.
    #[arg(long, default_value = "55", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// What to answer when no decision can be had: deny, or no decision (Gemini's own
    /// approval mode decides).
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the hook payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<std::path::PathBuf>,
}

impl GeminiArgs {
    fn settings(&self) -> HookSettings {
        HookSettings {
            service: self.service.clone(),
            wait: self.wait,
            submit_timeout: self.submit_timeout,
            on_unavailable: self.on_unavailable,
            task: self.task.clone(),
            agent: "gemini",
        }
    }
}

pub fn run(args: &GeminiArgs) -> ExitCode {
    let payload = match hook::load(args.payload.as_ref()) {
        Ok(payload) => claude_shaped(&payload),
        Err(why) => return blocked(&why),
    };
    let settings = args.settings();
    match hook::event_name(&payload) {
        "BeforeTool" => {
            let verdict = hook::permission(&payload, &settings, action_from_gemini_hook);
            if let Some(answer) = answer(&verdict) {
                println!("{answer}");
            }
        }
        "AfterTool" => hook::executed(&payload, &settings, Some(action_from_gemini_hook)),
        "SessionEnd" => hook::session_end(&payload, &settings),
        "" => return blocked("the payload has no hook_event_name"),
        other => eprintln!("Assent gate: nothing to do for hook event {other}"),
    }
    ExitCode::SUCCESS
}

/// Exit 2 with the reason on stderr: Gemini blocks the call and the model gets the reason.
fn blocked(why: &str) -> ExitCode {
    eprintln!("Assent gate: {why}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
}

/// BeforeTool's answer; `None` (no decision) leaves it to Gemini's own approval mode.
pub fn answer(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Allow(_) => Some(json!({ "decision": "allow" })),
        Verdict::Deny(reason) => Some(json!({ "decision": "deny", "reason": reason })),
        Verdict::Ask(_) => None,
    }
}
