//! `assent install copilot [--user|--project]` and `assent uninstall copilot`: the gate's hooks
//! as Copilot CLI's own hook file, `assent.json` in the user's hook directory
//! (`$COPILOT_HOME/hooks`, default `~/.copilot/hooks`) or the repository's `.github/hooks`;
//! Copilot CLI loads every `*.json` there (observed with 1.0.102). The file is Assent's alone,
//! so every other hook file and setting stays as it was; a file of that name that is not
//! Assent's is kept as a backup.
//!
//! Copilot CLI 1.0.102 blocks the call when a hook exits non-zero (its binary gone: "hook
//! errored"), but runs it when the hook times out or prints nothing; so `timeoutSec` is the
//! gate's wait plus a margin, and the command ends in a deny on any failure.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::binary;
use super::hooks;
use super::settings_file::{read_settings, write_settings};
use super::shared::{InstallArgs, InstallError, Target, BACKUP_SUFFIX, TIMEOUT_MARGIN_SECONDS};

/// The agent name in `assent gate copilot`.
pub const AGENT: &str = "copilot";
/// The hook events the gate answers (camelCase: the format GitHub documents for the CLI).
pub const EVENTS: [&str; 3] = ["preToolUse", "postToolUse", "sessionEnd"];
/// Appended to the gate command (Copilot runs it with bash): a gate that cannot start or fails
/// without answering becomes exit 2 with a reason, whatever this Copilot does with an error.
pub const FAIL_CLOSED: &str =
    " || { echo \"Assent gate failed (exit $?); blocking the tool call\" >&2; exit 2; }";

/// The hook file: the user's (`$COPILOT_HOME/hooks` or `~/.copilot/hooks`) or the project's.
pub fn hooks_path(target: &Target) -> Result<PathBuf, InstallError> {
    if target.project {
        let cwd = std::env::current_dir().map_err(|source| InstallError::Read {
            path: ".".into(),
            source,
        })?;
        return Ok(cwd.join(".github/hooks/assent.json"));
    }
    Ok(copilot_home()?.join("hooks/assent.json"))
}

/// `$COPILOT_HOME`, else `~/.copilot`.
pub fn copilot_home() -> Result<PathBuf, InstallError> {
    if let Some(dir) = std::env::var_os("COPILOT_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .map(|home| home.join(".copilot"))
        .ok_or(InstallError::NoHome)
}

/// The hook file for the gate `command` with `timeout_sec`.
pub fn hook_file(command: &str, timeout_sec: u64) -> Value {
    let entry = json!({ "type": "command", "bash": command, "timeoutSec": timeout_sec });
    let hooks: serde_json::Map<String, Value> = EVENTS
        .iter()
        .map(|event| ((*event).to_owned(), json!([entry.clone()])))
        .collect();
    json!({ "version": 1, "hooks": hooks })
}

/// Whether `file` is one Assent wrote: every hook in it runs `gate copilot`.
pub fn is_ours(file: &Value) -> bool {
    let commands: Vec<&str> = file
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|hooks| hooks.values())
        .filter_map(Value::as_array)
        .flatten()
        .map(|entry| {
            entry
                .get("bash")
                .and_then(Value::as_str)
                .unwrap_or_default()
        })
        .collect();
    !commands.is_empty()
        && commands
            .iter()
            .all(|c| hooks::is_agent_gate_command(c, AGENT))
}

pub fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let bin = binary::hook_program(args.bin.as_deref(), AGENT)?;
    let path = hooks_path(&args.target)?;
    let gate = hooks::agent_gate_command(AGENT, &bin, args.wait, args.on_unavailable);
    let after = hook_file(
        &format!("{gate}{FAIL_CLOSED}"),
        args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS,
    );
    let mut lines = Vec::new();
    let before = match read_settings(&path) {
        Ok(before) => before,
        Err(InstallError::NotJson { .. }) => json!({}),
        Err(err) => return Err(err),
    };
    if path.exists() && !is_ours(&before) {
        let backup = path.with_extension(format!("json.{BACKUP_SUFFIX}"));
        std::fs::rename(&path, &backup).map_err(|source| InstallError::Write {
            path: backup.clone(),
            source,
        })?;
        lines.push(format!(
            "{} was not Assent's: moved to {}",
            path.display(),
            backup.display()
        ));
    }
    let before = if is_ours(&before) { before } else { json!({}) };
    lines.extend(write_settings(&path, &before, &after)?);
    lines.push(format!("the hooks run {}", bin.display()));
    if args.target.project {
        lines.push("note: Copilot CLI runs a repository's hooks only in a folder it trusts".into());
    }
    Ok(lines)
}

pub fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = hooks_path(target)?;
    match read_settings(&path) {
        Ok(file) if path.exists() && is_ours(&file) => {
            std::fs::remove_file(&path).map_err(|source| InstallError::Write {
                path: path.clone(),
                source,
            })?;
            Ok(vec![format!("{}: removed", path.display())])
        }
        _ if path.exists() => Ok(vec![format!(
            "{}: not Assent's hooks, left as it is",
            path.display()
        )]),
        _ => Ok(vec![format!("{}: not installed", path.display())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_runs_the_gate_on_each_event_and_is_recognised() {
        let file = hook_file("/usr/bin/assent gate copilot --wait 290", 300);
        assert_eq!(
            file["hooks"]["preToolUse"][0],
            json!({ "type": "command", "bash": "/usr/bin/assent gate copilot --wait 290",
                    "timeoutSec": 300 }),
            "the command and a timeout past the gate's wait"
        );
        assert!(is_ours(&file), "uninstall recognises what install writes");
        let theirs = json!({ "version": 1, "hooks": { "preToolUse": [{ "type": "command",
            "bash": "./scripts/audit.sh" }] } });
        assert!(
            !is_ours(&theirs),
            "someone else's hook file is not Assent's"
        );
    }
}
