//! What the agents' hook gates share (`assent gate claude-code`, `assent gate codex`…): reading
//! one payload, turning it into a request, asking the service (and a person), recording that
//! a tool ran, ending a run. Each gate only picks its translation and writes the answer in its
//! agent's format.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use assent_client::{blocking, ClientConfig};
use assent_core::hook::{HookDefaults, HookError};
use assent_core::ActionRequest;
use serde_json::Value;

use crate::args::{HookArgs, OnUnavailable};
use crate::outcome::{decide, Deadlines, Outcome};

/// Largest hook payload read from stdin (a Write of a big file carries its content).
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;
/// Exit code every agent's hooks treat as "block this tool call" (stderr the reason).
pub const BLOCKING_EXIT: u8 = 2;

/// Turns an agent's hook payload into a request.
pub type Translate = fn(&Value, &HookDefaults) -> Result<ActionRequest, HookError>;

/// One hook call: the gate's flags and the agent it answers for (`claude-code`, `codex`…).
/// Without `--token` or `ASSENT_TOKEN`, its requests go with the token `assent install` made
/// for that agent, so a prompt says who asked.
#[derive(Debug, Clone, Copy)]
pub struct Hook<'a> {
    pub args: &'a HookArgs,
    pub agent: &'static str,
}

/// What the gate tells the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow(String),
    Deny(String),
    /// Hand back to the agent's own permission flow.
    Ask(String),
}

/// The payload from `file`, else stdin; the error says why it is unusable.
pub fn load(file: Option<&PathBuf>) -> Result<Value, String> {
    match file {
        Some(path) => std::fs::File::open(path)
            .map_err(|err| format!("cannot open {}: {err}", path.display()))
            .and_then(read_payload),
        None => read_payload(std::io::stdin().lock()),
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

/// Exit 2 with the reason on stderr: the agent blocks the call (and shows the reason).
pub fn blocked(why: &str) -> ExitCode {
    eprintln!("Assent gate: {why}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
}

/// The payload's `hook_event_name`, empty when absent.
pub fn event_name(payload: &Value) -> &str {
    payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The git root of the payload's `cwd`, if it is in a repository.
fn git_root_of(payload: &Value) -> Option<std::path::PathBuf> {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .unwrap_or_default();
    crate::repo::git_root(Path::new(cwd))
}

/// What a hook payload does not say: the task, and the repository `root` as `context.repo`.
fn defaults(hook: Hook<'_>, root: Option<&Path>) -> HookDefaults {
    HookDefaults {
        task_id: hook.args.task.clone(),
        repo: root.map(|p| p.to_string_lossy().into_owned()),
        cwd: None,
    }
}

/// The request for `payload`, or the deny that says why there is none.
fn request(
    payload: &Value,
    hook: Hook<'_>,
    translate: Translate,
) -> Result<ActionRequest, Verdict> {
    let root = git_root_of(payload);
    let defaults = defaults(hook, root.as_deref());
    let mut request = translate(payload, &defaults).map_err(|err| {
        Verdict::Deny(format!(
            "Assent: cannot read the tool call ({err}); not allowed"
        ))
    })?;
    crate::change::describe(&mut request, payload, root.as_deref());
    Ok(request)
}

/// The full decision: the service's answer, waiting for a person when one must decide.
pub fn permission(payload: &Value, hook: Hook<'_>, translate: Translate) -> Verdict {
    let request = match request(payload, hook, translate) {
        Ok(request) => request,
        Err(deny) => return deny,
    };
    let client = match client(hook) {
        Ok(client) => client,
        Err(reason) => return unavailable(reason, hook.args.on_unavailable),
    };
    let deadlines = Deadlines::hook(hook.args.submit_timeout, hook.args.wait);
    verdict(decide(&client, &request, deadlines).outcome, hook)
}

fn verdict(outcome: Outcome, hook: Hook<'_>) -> Verdict {
    match outcome {
        Outcome::Allowed { reason, .. } => Verdict::Allow(reason),
        Outcome::Denied { reason } | Outcome::Blocked { reason } => Verdict::Deny(reason),
        Outcome::TimedOut { reason }
        | Outcome::Unavailable { reason }
        | Outcome::Refused { reason } => unavailable(reason, hook.args.on_unavailable),
    }
}

fn unavailable(reason: String, choice: OnUnavailable) -> Verdict {
    match choice {
        OnUnavailable::Deny => Verdict::Deny(reason),
        OnUnavailable::Ask => Verdict::Ask(reason),
    }
}

fn client(hook: Hook<'_>) -> Result<blocking::Client, String> {
    let service = &hook.args.service;
    let config = ClientConfig::resolve_as(
        service.url.as_deref(),
        service.token.as_deref(),
        Some(hook.agent),
    )
    .map_err(|err| format!("Assent: {err}; not allowed"))?;
    blocking::Client::from_config(&config).map_err(|err| format!("Assent: {err}; not allowed"))
}

/// PostToolUse: tell the service the action ran (the audit's coverage check). The tool has
/// already run, so a failure here is only reported on stderr. `translate`, for an agent whose
/// permission step carries no call id (Codex), also sends the action itself, so the service
/// can find it when it was submitted without the call's key.
pub fn executed(payload: &Value, hook: Hook<'_>, translate: Option<Translate>) {
    let run = payload.get("session_id").and_then(Value::as_str);
    let key = payload.get("tool_use_id").and_then(Value::as_str);
    let (Some(run), Some(key)) = (run, key) else {
        eprintln!("Assent gate: PostToolUse without session_id or tool_use_id; not recorded");
        return;
    };
    let action = translate.and_then(|translate| {
        let root = git_root_of(payload);
        translate(payload, &defaults(hook, root.as_deref())).ok()
    });
    let result = client(hook).and_then(|c| {
        let deadline = Instant::now() + hook.args.submit_timeout;
        c.record_executed(run, key, action.as_ref(), deadline)
            .map_err(|e| e.to_string())
    });
    if let Err(why) = result {
        eprintln!("Assent gate: execution of {key} not recorded: {why}");
    }
}

/// `key` made this process's own: for an agent whose payload has no call id and gives equal
/// calls the same derived key, so each submission stands on its own (equal ones still join one
/// prompt by their batch key).
pub fn own_call_key(key: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{key}-{}-{nanos}", std::process::id())
}

/// SessionEnd: end the run, so its run-scoped grants expire and its prompts close.
pub fn session_end(payload: &Value, hook: Hook<'_>) {
    let Some(run) = payload.get("session_id").and_then(Value::as_str) else {
        eprintln!("Assent gate: SessionEnd without session_id");
        return;
    };
    let result = client(hook).and_then(|c| {
        c.end_run(run, Instant::now() + hook.args.submit_timeout)
            .map_err(|e| e.to_string())
    });
    if let Err(why) = result {
        eprintln!("Assent gate: could not end run {run}: {why}");
    }
}
