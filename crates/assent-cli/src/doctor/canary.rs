//! The canary: each installed hook command run exactly as configured (`/bin/sh -c COMMAND`,
//! as the agents run it) with a harmless PreToolUse — a read of a file in a scratch repo —
//! and its answer checked for the agent's shape; then a SessionEnd ends the canary's run.
//! [`judge_claude_code`] and [`judge_codex`] are pure.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use super::report::Check;

/// How long a canary may take: the read is decided by the policy, no person waits.
pub const CANARY_TIMEOUT: Duration = Duration::from_secs(30);
/// `sh`'s exit code for a command not found.
const NOT_FOUND: i32 = 127;

/// How a hook command ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    Exited {
        code: Option<i32>,
        stdout: String,
        stderr: String,
    },
    /// Did not start, or did not end in time: why.
    Failed(String),
}

/// The canary payload for `agent` (`claude-code` or `codex`) in `cwd`; `id` names its
/// session and call, new for each canary (the service keys requests by them).
pub fn payload(agent: &str, cwd: &Path, id: &str) -> Value {
    let file = cwd.join("README.md");
    let (tool, input) = match agent {
        "codex" => ("Bash", json!({ "command": "true" })),
        _ => ("Read", json!({ "file_path": file })),
    };
    json!({
        "session_id": id,
        "transcript_path": cwd.join("canary.jsonl"),
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": id,
    })
}

/// Claude Code's hook answered a PreToolUse: exit 0 and `hookSpecificOutput` with a
/// `permissionDecision`; allow passes, deny/ask warn (guarded, but the read was not allowed).
pub fn judge_claude_code(command: &str, ran: &Ran) -> Check {
    const CHECK: &str = "claude-code.canary";
    let (stdout, stderr) = match exited_ok(ran) {
        Ok(out) => out,
        Err(why) => return broken(CHECK, command, &why, "claude-code"),
    };
    let answer: Option<Value> = serde_json::from_str(stdout.trim()).ok();
    let output = answer.as_ref().and_then(|a| a.get("hookSpecificOutput"));
    let event = output
        .and_then(|o| o.get("hookEventName"))
        .and_then(Value::as_str);
    let decision = output
        .and_then(|o| o.get("permissionDecision"))
        .and_then(Value::as_str);
    let reason = output
        .and_then(|o| o.get("permissionDecisionReason"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    match (event, decision) {
        (Some("PreToolUse"), Some("allow")) => {
            Check::pass(CHECK, "the hook answered the canary read: allow")
        }
        (Some("PreToolUse"), Some(other @ ("deny" | "ask"))) => Check::warn(
            CHECK,
            format!("the hook answered the canary read with {other}: {reason}"),
            "see the service and identity checks; the policy may not allow reads",
        ),
        _ => broken(
            CHECK,
            command,
            &format!(
                "answered in no shape Claude Code reads: {:?} {}",
                stdout.trim(),
                stderr.trim()
            ),
            "claude-code",
        ),
    }
}

/// Codex's hook answered a PreToolUse: exit 0 with nothing (allowed) or a deny.
pub fn judge_codex(command: &str, ran: &Ran) -> Check {
    const CHECK: &str = "codex.canary";
    let (stdout, stderr) = match exited_ok(ran) {
        Ok(out) => out,
        Err(why) => return broken(CHECK, command, &why, "codex"),
    };
    if stdout.trim().is_empty() {
        return Check::pass(CHECK, "the hook answered the canary `true`: allowed");
    }
    let answer: Option<Value> = serde_json::from_str(stdout.trim()).ok();
    let output = answer.as_ref().and_then(|a| a.get("hookSpecificOutput"));
    match output
        .and_then(|o| o.get("permissionDecision"))
        .and_then(Value::as_str)
    {
        Some("deny") => Check::warn(
            CHECK,
            format!(
                "the hook denied the canary `true`: {}",
                output
                    .and_then(|o| o.get("permissionDecisionReason"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            ),
            "see the service and identity checks; the policy may not allow `true`",
        ),
        _ => broken(
            CHECK,
            command,
            &format!(
                "answered in no shape Codex reads: {:?} {}",
                stdout.trim(),
                stderr.trim()
            ),
            "codex",
        ),
    }
}

pub(super) fn exited_ok(ran: &Ran) -> Result<(&str, &str), String> {
    match ran {
        Ran::Exited {
            code: Some(0),
            stdout,
            stderr,
        } => Ok((stdout, stderr)),
        Ran::Exited {
            code: Some(NOT_FOUND),
            stderr,
            ..
        } => Err(format!("did not start (not found): {}", stderr.trim())),
        Ran::Exited { code, stderr, .. } => Err(format!(
            "exited with {}: {}",
            code.map_or("a signal".to_owned(), |c| c.to_string()),
            stderr.trim()
        )),
        Ran::Failed(why) => Err(why.clone()),
    }
}

pub(super) fn broken(check: &str, command: &str, why: &str, agent: &str) -> Check {
    Check::fail(
        check,
        format!("`{command}` {why}"),
        format!("fix the checks above, then `assent install {agent}`"),
    )
}

/// Runs `command` with `sh -c` in a scratch repo with the agent's canary on stdin; `env` is
/// added to the environment (the service the doctor was pointed at).
pub fn run(agent: &str, command: &str, env: &[(&str, String)]) -> Ran {
    run_with(agent, command, env, |dir, id| {
        let end = json!({ "session_id": id, "cwd": dir, "hook_event_name": "SessionEnd",
                          "reason": "other" });
        (payload(agent, dir, id), end)
    })
}

/// [`run`] with the canary and the session's end written by `payloads(scratch dir, id)`.
pub fn run_with(
    agent: &str,
    command: &str,
    env: &[(&str, String)],
    payloads: impl Fn(&Path, &str) -> (Value, Value),
) -> Ran {
    let dir = scratch();
    // A repository as git (and the gate) takes one: a `.git` with a HEAD.
    let _ = std::fs::create_dir_all(dir.join(".git"));
    let _ = std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n");
    let _ = std::fs::write(dir.join("README.md"), "assent doctor canary\n");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let id = format!("assent-doctor-{agent}-{}-{nanos}", std::process::id());
    let (canary, end) = payloads(&dir, &id);
    let ran = spawn(command, &dir, &canary.to_string(), env);
    // The canary's run ends as an agent's session does, so no open run is left behind.
    let _ = spawn(command, &dir, &end.to_string(), env);
    let _ = std::fs::remove_dir_all(&dir);
    ran
}

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("assent-doctor-{}", std::process::id()))
}

fn spawn(command: &str, cwd: &Path, input: &str, env: &[(&str, String)]) -> Ran {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(command).current_dir(cwd);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let spawned = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => return Ran::Failed(format!("did not start: {err}")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Ran::Failed("no output pipes".into());
    };
    // Read on a thread so the wait is bounded; a hung hook is killed, which ends the read.
    let (sender, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let _ = out.read_to_end(&mut stdout);
        let _ = err.read_to_end(&mut stderr);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let _ = sender.send((text(&stdout), text(&stderr)));
    });
    let Ok((stdout, stderr)) = answer.recv_timeout(CANARY_TIMEOUT) else {
        let _ = child.kill();
        let _ = child.wait();
        return Ran::Failed(format!("did not answer within {CANARY_TIMEOUT:?}"));
    };
    match child.wait() {
        Ok(status) => Ran::Exited {
            code: status.code(),
            stdout,
            stderr,
        },
        Err(err) => Ran::Failed(format!("did not end: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;

    fn exited(code: i32, stdout: &str) -> Ran {
        Ran::Exited {
            code: Some(code),
            stdout: stdout.into(),
            stderr: String::new(),
        }
    }

    #[test]
    fn answers_are_judged_by_the_agents_shape() {
        let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}"#;
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"down"}}"#;
        let rows = [
            (
                judge_claude_code("c", &exited(0, allow)),
                Status::Pass,
                "claude allow",
            ),
            (
                judge_claude_code("c", &exited(0, deny)),
                Status::Warn,
                "claude deny: guarded",
            ),
            (
                judge_claude_code("c", &exited(0, "")),
                Status::Fail,
                "claude needs an answer",
            ),
            (
                judge_claude_code("c", &exited(127, "")),
                Status::Fail,
                "binary missing",
            ),
            (
                judge_codex("c", &exited(0, "")),
                Status::Pass,
                "codex allows by silence",
            ),
            (
                judge_codex("c", &exited(0, deny)),
                Status::Warn,
                "codex deny: guarded",
            ),
            (
                judge_codex("c", &exited(127, "")),
                Status::Fail,
                "codex runs the tool then",
            ),
            (
                judge_codex("c", &Ran::Failed("hung".into())),
                Status::Fail,
                "a hung hook",
            ),
        ];
        for (check, want, why) in rows {
            assert_eq!(check.status, want, "{why}: {check:?}");
        }
    }
}
