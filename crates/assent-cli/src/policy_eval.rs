//! `assent policy eval`: JSON lines in, one JSON answer per line out.
//!
//! A line is a Claude Code or Codex hook payload, an action request (`POST /v1/actions`'s body), or a
//! bare action (`{"kind":"shell","command":"ls","cwd":"/repo"}`) for which eval fills in the
//! run, task and keys. A line that cannot be answered gets `{"error":{"line","message"}}`,
//! the other lines are still answered, and the exit code is 1.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use assent_core::{
    action_from_codex_hook, evaluate, is_claude_hook, Action, ActionContext, ActionRequest,
    Environment, HookDefaults, Policy, RequestedBy,
};
use serde_json::{json, Value};

use crate::gate::hook::MAX_PAYLOAD_BYTES;
use crate::gate::repo::git_root;

/// The run and task of requests eval makes up for bare actions.
const EVAL_RUN: &str = "policy-eval";

/// Answers every line of `input` on `output`.
pub fn eval_lines(
    policy: &Policy,
    env: &Environment,
    mut input: impl BufRead,
    output: impl Write,
) -> ExitCode {
    let mut out = std::io::BufWriter::new(output);
    let limit = usize::try_from(MAX_PAYLOAD_BYTES).unwrap_or(usize::MAX);
    let mut failed = false;
    let mut number = 0;
    loop {
        let read = read_line(&mut input, limit);
        // A failed read would fail again: report it once and stop.
        let read_failed = read.is_err();
        number += 1;
        let answer = match read {
            Ok(None) => break,
            Ok(Some(Line::Text(text))) if text.trim().is_empty() => continue,
            Ok(Some(Line::Text(text))) => answer_line(policy, env, &text, number),
            Ok(Some(Line::TooLong(size))) => Err(format!(
                "the line is longer than {limit} bytes ({size}); it was skipped"
            )),
            Ok(Some(Line::NotUtf8(e))) => Err(format!("the line is not UTF-8: {e}")),
            Err(e) => Err(format!("cannot read the input: {e}")),
        };
        let value = answer.unwrap_or_else(|message| {
            failed = true;
            json!({ "error": { "line": number, "message": message } })
        });
        if writeln!(out, "{value}").is_err() {
            return ExitCode::from(2);
        }
        if read_failed {
            break;
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One line of input.
enum Line {
    Text(String),
    /// Longer than the limit: its length; its bytes were read past, not kept.
    TooLong(usize),
    /// Not UTF-8: why.
    NotUtf8(String),
}

/// The next line of `input` (without its newline), keeping at most `limit` bytes of it;
/// `None` at the end of the input.
fn read_line(input: &mut impl BufRead, limit: usize) -> std::io::Result<Option<Line>> {
    let mut kept = Vec::new();
    let mut size = 0usize;
    let mut read_any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        let end = chunk.iter().position(|&b| b == b'\n');
        let part = chunk.get(..end.unwrap_or(chunk.len())).unwrap_or_default();
        size = size.saturating_add(part.len());
        if size <= limit {
            kept.extend_from_slice(part);
        }
        let used = part.len() + usize::from(end.is_some());
        input.consume(used);
        if end.is_some() {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if size > limit {
        return Ok(Some(Line::TooLong(size)));
    }
    Ok(Some(match String::from_utf8(kept) {
        Ok(text) => Line::Text(text),
        Err(e) => Line::NotUtf8(e.utf8_error().to_string()),
    }))
}

fn answer_line(
    policy: &Policy,
    env: &Environment,
    text: &str,
    number: usize,
) -> Result<Value, String> {
    let payload: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let request = to_request(payload, number)?;
    let eval = evaluate(policy, &request, env).map_err(|e| e.to_string())?;
    let d = &eval.decision;
    Ok(json!({
        "decision": d.decision,
        "risk": d.risk,
        "reasons": d.reasons,
        "rule": d.rule,
        "required_role": d.required_role,
        "profile": d.profile,
        "action_hash": eval.action_hash,
        "batch_key": eval.batch_key,
    }))
}

/// A hook payload, an action request (it has `action`) or a bare action (it has `kind`).
fn to_request(payload: Value, number: usize) -> Result<ActionRequest, String> {
    if is_claude_hook(&payload) {
        let cwd = payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let defaults = HookDefaults {
            repo: cwd.as_deref().and_then(repo_of),
            ..HookDefaults::default()
        };
        return action_from_codex_hook(&payload, &defaults).map_err(|e| e.to_string());
    }
    let Some(object) = payload.as_object() else {
        return Err("not a JSON object".to_owned());
    };
    if object.contains_key("action") {
        return serde_json::from_value(payload)
            .map_err(|e| format!("not a valid action request: {e}"));
    }
    if object.contains_key("kind") {
        let action: Action =
            serde_json::from_value(payload).map_err(|e| format!("not a valid bare action: {e}"))?;
        return Ok(bare_request(action, number));
    }
    Err(
        "neither a Claude Code hook payload (hook_event_name, tool_name), an action request \
         (action) nor a bare action (kind)"
            .to_owned(),
    )
}

/// The request a bare action stands for: eval's run and task, an idempotency key per line,
/// and the git repository around its cwd, as the gate would send it.
fn bare_request(action: Action, number: usize) -> ActionRequest {
    let repo = repo_of(&action.cwd);
    ActionRequest {
        run_id: EVAL_RUN.to_owned(),
        task_id: EVAL_RUN.to_owned(),
        requested_by: RequestedBy::Agent,
        idempotency_key: Some(format!("{EVAL_RUN}-line-{number}")),
        action,
        context: ActionContext {
            repo,
            ..ActionContext::default()
        },
        reason: String::new(),
    }
}

/// The enclosing git work tree of `cwd`, if any.
fn repo_of(cwd: &str) -> Option<String> {
    git_root(Path::new(cwd)).map(|dir| dir.display().to_string())
}
