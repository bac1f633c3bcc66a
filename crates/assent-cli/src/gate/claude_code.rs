//! `assent gate claude-code`: one Claude Code hook call. Reads the payload on stdin and
//! always ends with exit 0 and a JSON answer in the event's format, or exit 2 (which Claude
//! Code treats as a block) when the payload itself is unreadable. Never a silent allow.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use assent_client::{blocking, ClientConfig};
use assent_core::hook::{action_from_claude_hook, HookDefaults};
use clap::Args;
use serde_json::{json, Value};

use super::outcome::{decide, parse_seconds, Deadlines, Outcome};
use super::{OnUnavailable, ServiceArgs};

/// Largest hook payload read from stdin (a Write of a big file carries its content).
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;
/// Exit code Claude Code treats as "block this tool call".
const BLOCKING_EXIT: u8 = 2;

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

/// What the gate tells Claude Code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow(String),
    Deny(String),
    /// Hand back to Claude Code's own permission prompt.
    Ask(String),
}

pub fn run(args: &ClaudeCodeArgs) -> ExitCode {
    let read = match &args.payload {
        Some(path) => std::fs::File::open(path)
            .map_err(|err| format!("cannot open {}: {err}", path.display()))
            .and_then(read_payload),
        None => read_payload(std::io::stdin().lock()),
    };
    let payload = match read {
        Ok(payload) => payload,
        Err(why) => {
            eprintln!("Assent gate: {why}; blocking the tool call");
            return ExitCode::from(BLOCKING_EXIT);
        }
    };
    let event = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match event.as_str() {
        "PreToolUse" | "PermissionRequest" => {
            let verdict = permission(&payload, args);
            println!("{}", answer(&event, &verdict));
            ExitCode::SUCCESS
        }
        "PostToolUse" => {
            executed(&payload, args);
            ExitCode::SUCCESS
        }
        "SessionEnd" => {
            session_end(&payload, args);
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

/// Reads and parses one payload; the error says why it is unusable.
pub fn read_payload(input: impl Read) -> Result<Value, String> {
    let mut bytes = Vec::new();
    input
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the hook payload: {err}"))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_PAYLOAD_BYTES {
        return Err(format!(
            "the hook payload is larger than {MAX_PAYLOAD_BYTES} bytes"
        ));
    }
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|err| format!("the hook payload is not JSON: {err}"))?;
    if !value.is_object() {
        return Err("the hook payload is not a JSON object".into());
    }
    Ok(value)
}

/// The decision path shared by PreToolUse and PermissionRequest.
pub fn permission(payload: &Value, args: &ClaudeCodeArgs) -> Verdict {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let defaults = HookDefaults {
        task_id: args.task.clone(),
        repo: super::repo::git_root(Path::new(cwd)).map(|p| p.to_string_lossy().into_owned()),
        cwd: None,
    };
    let request = match action_from_claude_hook(payload, &defaults) {
        Ok(request) => request,
        Err(err) => {
            return Verdict::Deny(format!(
                "Assent: cannot read the tool call ({err}); not allowed"
            ))
        }
    };
    let client = match client(&args.service) {
        Ok(client) => client,
        Err(reason) => return unavailable(reason, args.on_unavailable),
    };
    let deadlines = Deadlines {
        submit: args.submit_timeout,
        total: args.wait,
    };
    match decide(&client, &request, deadlines).outcome {
        Outcome::Allowed { reason, .. } => Verdict::Allow(reason),
        Outcome::Denied { reason } | Outcome::Blocked { reason } => Verdict::Deny(reason),
        Outcome::TimedOut { reason } | Outcome::Unavailable { reason } => {
            unavailable(reason, args.on_unavailable)
        }
    }
}

fn unavailable(reason: String, choice: OnUnavailable) -> Verdict {
    match choice {
        OnUnavailable::Deny => Verdict::Deny(reason),
        OnUnavailable::Ask => Verdict::Ask(reason),
    }
}

fn client(service: &ServiceArgs) -> Result<blocking::Client, String> {
    let config = ClientConfig::resolve(service.url.as_deref(), service.token.as_deref())
        .map_err(|err| format!("Assent: {err}; not allowed"))?;
    blocking::Client::from_config(&config).map_err(|err| format!("Assent: {err}; not allowed"))
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

/// PostToolUse: tell the service the action ran (the audit's coverage check). The tool has
/// already run, so a failure here is only reported on stderr.
fn executed(payload: &Value, args: &ClaudeCodeArgs) {
    let run = payload.get("session_id").and_then(Value::as_str);
    let key = payload.get("tool_use_id").and_then(Value::as_str);
    let (Some(run), Some(key)) = (run, key) else {
        eprintln!("Assent gate: PostToolUse without session_id or tool_use_id; not recorded");
        return;
    };
    let result = client(&args.service).and_then(|c| {
        c.record_executed(run, key, Instant::now() + args.submit_timeout)
            .map_err(|e| e.to_string())
    });
    if let Err(why) = result {
        eprintln!("Assent gate: execution of {key} not recorded: {why}");
    }
}

/// SessionEnd: end the run, so its run-scoped grants expire and its prompts close.
fn session_end(payload: &Value, args: &ClaudeCodeArgs) {
    let Some(run) = payload.get("session_id").and_then(Value::as_str) else {
        eprintln!("Assent gate: SessionEnd without session_id");
        return;
    };
    let result = client(&args.service).and_then(|c| {
        c.end_run(run, Instant::now() + args.submit_timeout)
            .map_err(|e| e.to_string())
    });
    if let Err(why) = result {
        eprintln!("Assent gate: could not end run {run}: {why}");
    }
}
