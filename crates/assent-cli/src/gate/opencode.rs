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
use std::time::Duration;

use assent_core::action_from_opencode_hook;
use assent_core::hook::opencode::claude_shaped;
use clap::Args;
use serde_json::{json, Value};

use super::args::{OnUnavailable, ServiceArgs};
use super::hook::{self, HookSettings, Verdict, BLOCKING_EXIT};
use super::outcome::parse_seconds;

#[derive(Debug, Clone, Args)]
pub struct OpencodeArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Longest wait for a person, in seconds (opencode itself waits for the plugin as long as
    /// it takes).
    #[arg(long, default_value = "290", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// What to answer when no decision can be had: deny, or ask (opencode's own permission
    /// config decides).
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<std::path::PathBuf>,
}

pub fn run(args: &OpencodeArgs) -> ExitCode {
    let payload = match hook::load(args.payload.as_ref()) {
        Ok(payload) => claude_shaped(&payload),
        Err(why) => {
            eprintln!("Assent gate: {why}; blocking the tool call");
            return ExitCode::from(BLOCKING_EXIT);
        }
    };
    let settings = HookSettings {
        service: args.service.clone(),
        wait: args.wait,
        submit_timeout: args.submit_timeout,
        on_unavailable: args.on_unavailable,
        task: args.task.clone(),
        agent: "opencode",
    };
    match hook::event_name(&payload) {
        "PreToolUse" => {
            let verdict = hook::permission(&payload, &settings, action_from_opencode_hook);
            println!("{}", answer(&verdict));
        }
        "PostToolUse" => hook::executed(&payload, &settings, None),
        "SessionEnd" => hook::session_end(&payload, &settings),
        "" => {
            eprintln!("Assent gate: the payload has no hook_event_name; blocking the tool call");
            return ExitCode::from(BLOCKING_EXIT);
        }
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
