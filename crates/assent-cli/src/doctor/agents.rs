//! The gates of Gemini CLI, opencode, Cursor and Copilot CLI as installed (present for every
//! event, naming an executable binary, failing closed as far as the agent lets them) and a
//! canary round trip through each: the installed command run as the agent runs it, with a
//! harmless read in the agent's own payload, its answer read in the agent's own shape. An
//! agent whose configuration is not there at all is not reported.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::canary::{self, Ran};
use super::hooks::{binaries, Found, Runs};
use super::report::Check;
use crate::install::gemini::{FAIL_CLOSED as GEMINI_FAIL_CLOSED, GEMINI};
use crate::install::hooks::{is_agent_gate_command, is_layout_hook, shell_quote};
use crate::install::{copilot, opencode};

/// One of the agents this module checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Gemini,
    Opencode,
    Cursor,
    Copilot,
}

impl Agent {
    pub const ALL: [Agent; 4] = [
        Agent::Gemini,
        Agent::Opencode,
        Agent::Cursor,
        Agent::Copilot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Gemini => "gemini",
            Agent::Opencode => "opencode",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
        }
    }

    /// The user's and this project's config files that would hold the gate.
    fn candidates(self, home: Option<&Path>) -> Vec<PathBuf> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let (user, project) = match self {
            Agent::Gemini => (
                var("GEMINI_CLI_HOME")
                    .or_else(|| home.map(Path::to_path_buf))
                    .map(|h| h.join(".gemini/settings.json")),
                ".gemini/settings.json",
            ),
            Agent::Opencode => (
                var("XDG_CONFIG_HOME")
                    .or_else(|| home.map(|h| h.join(".config")))
                    .map(|c| c.join("opencode/plugin/assent.js")),
                ".opencode/plugin/assent.js",
            ),
            Agent::Cursor => (
                home.map(|h| h.join(".cursor/hooks.json")),
                ".cursor/hooks.json",
            ),
            Agent::Copilot => (
                var("COPILOT_HOME")
                    .or_else(|| home.map(|h| h.join(".copilot")))
                    .map(|c| c.join("hooks/assent.json")),
                ".github/hooks/assent.json",
            ),
        };
        let project = std::env::current_dir().ok().map(|cwd| cwd.join(project));
        user.into_iter().chain(project).collect()
    }
}

/// The gate as installed for `agent` (the first candidate file holding it), or `None` when no
/// candidate file exists.
pub fn found(agent: Agent, home: Option<&Path>, runs: Runs) -> Option<Found> {
    let mut first = None;
    for path in agent.candidates(home) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let found = judge_config(agent, &path, &text, runs);
        if !found.commands.is_empty() {
            return Some(found);
        }
        first.get_or_insert(found);
    }
    first
}

/// What the config file `path` (its `text`) says about `agent`'s gate.
pub fn judge_config(agent: Agent, path: &Path, text: &str, runs: Runs) -> Found {
    let name = agent.name();
    let fix = format!("assent install {name}");
    let (commands, open) = match agent {
        Agent::Opencode => (opencode_command(text).into_iter().collect(), Vec::new()),
        _ => {
            let Ok(settings) = serde_json::from_str::<Value>(text) else {
                return Found {
                    checks: vec![Check::fail(
                        &format!("{name}.hooks"),
                        format!("{} is not JSON: the agent may not read it", path.display()),
                        fix,
                    )],
                    commands: Vec::new(),
                };
            };
            json_commands(agent, &settings)
        }
    };
    let shown = path.display();
    let mut checks = Vec::new();
    if commands.is_empty() {
        checks.push(Check::warn(
            &format!("{name}.hooks"),
            format!("no Assent gate in {shown}: {name} runs unguarded"),
            fix,
        ));
        return Found { checks, commands };
    }
    checks.push(Check::pass(
        &format!("{name}.hooks"),
        format!("the gate is in {shown}"),
    ));
    checks.push(fail_closed(agent, &open, &fix));
    let programs: Vec<String> = commands.clone();
    checks.extend(binaries(&format!("{name}.binary"), &programs, runs, &fix));
    Found { checks, commands }
}

/// The distinct gate commands of a JSON config, and the entries that do not fail closed.
fn json_commands(agent: Agent, settings: &Value) -> (Vec<String>, Vec<String>) {
    let mut commands: Vec<String> = Vec::new();
    let mut open = Vec::new();
    let hooks = settings.get("hooks").and_then(Value::as_object);
    for (event, entries) in hooks.into_iter().flatten() {
        let entries = entries.as_array().into_iter().flatten();
        let handlers: Vec<&Value> = match agent {
            // Grouped as Claude Code's: `{matcher, hooks: [handler]}`.
            Agent::Gemini => entries
                .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                .flatten()
                .filter(|h| is_layout_hook(&GEMINI, h))
                .collect(),
            _ => entries.collect(),
        };
        for handler in handlers {
            let field = if agent == Agent::Copilot {
                "bash"
            } else {
                "command"
            };
            let Some(command) = handler.get(field).and_then(Value::as_str) else {
                continue;
            };
            if !is_agent_gate_command(command, agent.name()) {
                continue;
            }
            let closed = match agent {
                Agent::Gemini => command.ends_with(GEMINI_FAIL_CLOSED),
                Agent::Cursor => handler.get("failClosed") == Some(&Value::Bool(true)),
                Agent::Copilot => command.ends_with(copilot::FAIL_CLOSED),
                Agent::Opencode => true,
            };
            if !closed {
                open.push(event.clone());
            }
            if !commands.iter().any(|c| c == command) {
                commands.push(command.to_owned());
            }
        }
    }
    (commands, open)
}

fn fail_closed(agent: Agent, open: &[String], fix: &str) -> Check {
    let check = format!("{}.fail-closed", agent.name());
    if agent == Agent::Opencode {
        return Check::warn(
            &check,
            "opencode skips a plugin that fails to load and then runs tools unguarded (it has \
             no fail-closed switch): the canary below is the guard",
            "run `assent doctor` after every opencode upgrade",
        );
    }
    if open.is_empty() {
        let how = match agent {
            Agent::Cursor => "failClosed: true",
            _ => "a deny (exit 2) when the gate cannot answer",
        };
        return Check::pass(&check, format!("every gate entry fails closed ({how})"));
    }
    Check::fail(
        &check,
        format!(
            "{} do not fail closed: if the gate cannot start, the tool runs unguarded",
            open.join(", ")
        ),
        format!("{fix} (a re-install writes them fail-closed)"),
    )
}

/// The command the opencode plugin runs, as a shell line: its `BIN` and `ARGS`.
fn opencode_command(text: &str) -> Option<String> {
    if !text.starts_with(opencode::MARKER) {
        return None;
    }
    let value = |name: &str| -> Option<Value> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let json = line.get(name.len()..)?.trim().trim_end_matches(';');
        serde_json::from_str(json).ok()
    };
    let bin = value("const BIN =")?;
    let args = value("const ARGS =")?;
    let mut words = vec![shell_quote(bin.as_str()?)];
    for arg in args.as_array()? {
        words.push(shell_quote(arg.as_str()?));
    }
    Some(words.join(" "))
}

/// The canary and the session's end, in `agent`'s payload, for the scratch repo `dir`.
pub fn canary_payloads(agent: Agent, dir: &Path, id: &str) -> (Value, Value) {
    let file = dir.join("README.md");
    match agent {
        Agent::Gemini => (
            json!({ "session_id": id, "cwd": dir, "hook_event_name": "BeforeTool",
                    "timestamp": "1970-01-01T00:00:00.000Z", "tool_name": "read_file",
                    "tool_input": { "file_path": file } }),
            json!({ "session_id": id, "cwd": dir, "hook_event_name": "SessionEnd" }),
        ),
        Agent::Opencode => (
            json!({ "hook_event_name": "PreToolUse", "session_id": id, "tool_use_id": id,
                    "cwd": dir, "tool_name": "read", "tool_input": { "filePath": file } }),
            json!({ "hook_event_name": "SessionEnd", "session_id": id, "cwd": dir }),
        ),
        Agent::Cursor => (
            json!({ "conversation_id": id, "generation_id": id, "hook_event_name": "preToolUse",
                    "workspace_roots": [dir], "cwd": dir, "tool_name": "Read",
                    "tool_input": { "file_path": file }, "tool_use_id": id }),
            json!({ "hook_event_name": "sessionEnd", "session_id": id, "reason": "completed",
                    "workspace_roots": [dir] }),
        ),
        Agent::Copilot => (
            json!({ "sessionId": id, "timestamp": 0, "cwd": dir, "toolName": "view",
                    "toolArgs": { "path": file } }),
            json!({ "sessionId": id, "timestamp": 0, "cwd": dir, "reason": "complete" }),
        ),
    }
}

/// Runs `command` with `agent`'s canary.
pub fn canary(agent: Agent, command: &str, env: &[(&str, String)]) -> Ran {
    canary::run_with(agent.name(), command, env, |dir, id| {
        canary_payloads(agent, dir, id)
    })
}

/// The gate answered `agent`'s canary read in the agent's shape: allow passes, deny warns
/// (guarded, but the read was not allowed), anything else fails.
pub fn judge_canary(agent: Agent, command: &str, ran: &Ran) -> Check {
    let check = format!("{}.canary", agent.name());
    let (stdout, stderr) = match canary::exited_ok(ran) {
        Ok(out) => out,
        Err(why) => return canary::broken(&check, command, &why, agent.name()),
    };
    let answer: Option<Value> = serde_json::from_str(stdout.trim()).ok();
    let field = match agent {
        Agent::Gemini | Agent::Opencode => "decision",
        Agent::Cursor => "permission",
        Agent::Copilot => "permissionDecision",
    };
    let decision = answer
        .as_ref()
        .and_then(|a| a.get(field))
        .and_then(Value::as_str);
    match decision {
        Some("allow") => Check::pass(&check, "the gate answered the canary read: allow"),
        Some(other @ ("deny" | "ask")) => Check::warn(
            &check,
            format!(
                "the gate answered the canary read with {other}: {}",
                stdout.trim()
            ),
            "see the service and identity checks; the policy may not allow reads",
        ),
        _ => canary::broken(
            &check,
            command,
            &format!(
                "answered in no shape {} reads: {:?} {}",
                agent.name(),
                stdout.trim(),
                stderr.trim()
            ),
            agent.name(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;

    fn ok(_: &str) -> Result<Option<String>, String> {
        Ok(None)
    }

    fn exited(stdout: &str) -> Ran {
        Ran::Exited {
            code: Some(0),
            stdout: stdout.into(),
            stderr: String::new(),
        }
    }

    #[test]
    fn each_agents_config_is_read_for_its_gate_and_fail_closed() {
        let path = Path::new("/h/cfg");
        let cursor_open = r#"{"version":1,"hooks":{"preToolUse":[{"command":"/b/assent gate cursor --wait 60"}]}}"#;
        let cursor_closed = r#"{"version":1,"hooks":{"preToolUse":[{"command":"/b/assent gate cursor --wait 60 || exit 2","failClosed":true}]}}"#;
        let copilot_file = copilot::hook_file(
            &format!("/b/assent gate copilot --wait 60{}", copilot::FAIL_CLOSED),
            70,
        );
        let rows = [
            (
                Agent::Cursor,
                cursor_open.to_owned(),
                Status::Fail,
                "cursor without failClosed",
            ),
            (
                Agent::Cursor,
                cursor_closed.to_owned(),
                Status::Pass,
                "cursor failClosed",
            ),
            (
                Agent::Copilot,
                copilot_file.to_string(),
                Status::Pass,
                "copilot's own file",
            ),
        ];
        for (agent, text, want, why) in rows {
            let found = judge_config(agent, path, &text, &ok);
            let check = found
                .checks
                .iter()
                .find(|c| c.check.ends_with(".fail-closed"))
                .unwrap_or_else(|| panic!("{why}: a fail-closed check: {:?}", found.checks));
            assert_eq!(check.status, want, "{why}: {check:?}");
            assert_eq!(
                found.commands.len(),
                1,
                "{why}: the gate command is found for the canary"
            );
        }
    }

    #[test]
    fn the_opencode_plugin_names_the_command_the_canary_runs() {
        let args = crate::install::InstallArgs {
            target: crate::install::Target {
                user: false,
                project: false,
            },
            wait: std::time::Duration::from_secs(60),
            on_unavailable: crate::gate::OnUnavailable::Deny,
            bin: None,
            sandbox: false,
            hide: Vec::new(),
        };
        let text = opencode::plugin(Path::new("/opt/my tools/assent"), &args);
        assert_eq!(
            opencode_command(&text).as_deref(),
            Some("'/opt/my tools/assent' gate opencode --wait 60"),
            "the plugin's argv, as one shell line"
        );
    }

    #[test]
    fn canary_answers_are_read_in_each_agents_shape() {
        let rows = [
            (Agent::Gemini, r#"{"decision":"allow"}"#, Status::Pass),
            (Agent::Cursor, r#"{"permission":"allow"}"#, Status::Pass),
            (
                Agent::Copilot,
                r#"{"permissionDecision":"deny","permissionDecisionReason":"x"}"#,
                Status::Warn,
            ),
            (Agent::Opencode, r#"{"permission":"allow"}"#, Status::Fail),
        ];
        for (agent, stdout, want) in rows {
            let check = judge_canary(agent, "c", &exited(stdout));
            assert_eq!(check.status, want, "{agent:?} {stdout}: {check:?}");
        }
    }
}
