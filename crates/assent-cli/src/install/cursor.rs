//! `assent install cursor [--user|--project]` and `assent uninstall cursor`: the gate's hooks
//! in Cursor's `hooks.json` (`~/.cursor/hooks.json`, or `./.cursor/hooks.json`), whose entries
//! are flat (`hooks.<event>` → `[{command, timeout, failClosed, matcher?}]`, no groups):
//! `beforeShellExecution`, `beforeMCPExecution` and `preToolUse` decide, `postToolUse` records,
//! `sessionEnd` ends the run. Idempotent, a backup kept, every other hook and key left as it
//! was.
//!
//! Cursor lets a tool run when a hook crashes, times out or prints no JSON, unless the entry
//! says `"failClosed": true`, which every gate entry does; the `timeout` (seconds) is the
//! gate's wait plus a margin, and the command ends in `|| exit 2` (Cursor's deny) for a Cursor
//! older than `failClosed`.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::binary;
use super::hooks;
use super::settings_file::{read_settings, write_settings};
use super::shared::{InstallArgs, InstallError, Target, TIMEOUT_MARGIN_SECONDS};

/// The agent name in `assent gate cursor`.
pub const AGENT: &str = "cursor";
/// The hook events the gate answers.
pub const EVENTS: [&str; 5] = [
    "beforeShellExecution",
    "beforeMCPExecution",
    "preToolUse",
    "postToolUse",
    "sessionEnd",
];

/// The hooks file: the user's (`~/.cursor/hooks.json`) or the project's.
pub fn hooks_path(target: &Target) -> Result<PathBuf, InstallError> {
    if target.project {
        let cwd = std::env::current_dir().map_err(|source| InstallError::Read {
            path: ".".into(),
            source,
        })?;
        return Ok(cwd.join(".cursor").join("hooks.json"));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .ok_or(InstallError::NoHome)?;
    Ok(home.join(".cursor").join("hooks.json"))
}

/// The gate's entry: the command, its timeout in seconds, fail closed.
pub fn gate_entry(command: &str, timeout: u64) -> Value {
    json!({ "command": command, "timeout": timeout, "failClosed": true })
}

fn is_gate_entry(entry: &Value) -> bool {
    entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| hooks::is_agent_gate_command(c, AGENT))
}

/// `settings` with exactly one gate entry per event, where an earlier install's stood (else
/// last), and `version: 1` when the file had none.
pub fn with_gate(settings: &Value, entry: &Value) -> Value {
    let mut out = settings.clone();
    let Some(root) = out.as_object_mut() else {
        return out;
    };
    root.entry("version").or_insert(json!(1));
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        *hooks = Value::Object(Map::new());
    }
    let Some(hooks) = hooks.as_object_mut() else {
        return out;
    };
    for event in EVENTS {
        let entries = match hooks.remove(event) {
            Some(Value::Array(entries)) => entries,
            _ => Vec::new(),
        };
        let mut ours = Some(entry.clone());
        let mut placed = Vec::with_capacity(entries.len() + 1);
        for old in entries {
            if is_gate_entry(&old) {
                placed.extend(ours.take());
            } else {
                placed.push(old);
            }
        }
        placed.extend(ours);
        hooks.insert(event.to_owned(), Value::Array(placed));
    }
    out
}

/// `settings` with every gate entry removed, and events (and `hooks`) left empty removed.
pub fn without_gate(settings: &Value) -> Value {
    let mut out = settings.clone();
    let Some(hooks) = out.get_mut("hooks").and_then(Value::as_object_mut) else {
        return out;
    };
    for event in EVENTS {
        if let Some(entries) = hooks.get_mut(event).and_then(Value::as_array_mut) {
            entries.retain(|e| !is_gate_entry(e));
            if entries.is_empty() {
                hooks.remove(event);
            }
        }
    }
    if hooks.is_empty() {
        if let Some(map) = out.as_object_mut() {
            map.remove("hooks");
        }
    }
    out
}

/// `+`/`-` lines for the gate entries that appear or disappear.
fn summary(before: &Value, after: &Value) -> Vec<String> {
    let entries = |settings: &Value, event: &str| -> Vec<String> {
        settings
            .pointer(&format!("/hooks/{event}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|e| is_gate_entry(e))
            .map(Value::to_string)
            .collect()
    };
    let mut lines = Vec::new();
    for event in EVENTS {
        let (old, new) = (entries(before, event), entries(after, event));
        lines.extend(
            old.iter()
                .filter(|e| !new.contains(e))
                .map(|e| format!("- {event}: {e}")),
        );
        lines.extend(
            new.iter()
                .filter(|e| !old.contains(e))
                .map(|e| format!("+ {event}: {e}")),
        );
    }
    lines
}

pub fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let bin = binary::hook_program(args.bin.as_deref(), AGENT)?;
    let path = hooks_path(&args.target)?;
    let before = read_settings(&path)?;
    let gate = hooks::agent_gate_command(AGENT, &bin, args.wait, args.on_unavailable);
    let command = format!("{gate}{}", hooks::SHELL_FAIL_CLOSED);
    let timeout = args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS;
    let after = with_gate(&before, &gate_entry(&command, timeout));
    let mut lines = summary(&before, &after);
    lines.extend(write_settings(&path, &before, &after)?);
    lines.push(format!("the hooks run {}", bin.display()));
    lines.push(
        "note: with Cursor's third-party hooks on, it also runs Claude Code's hooks from \
         .claude/settings*.json; install one gate or the other for Cursor, not both"
            .into(),
    );
    Ok(lines)
}

pub fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = hooks_path(target)?;
    let before = read_settings(&path)?;
    let after = without_gate(&before);
    let mut lines = summary(&before, &after);
    lines.extend(write_settings(&path, &before, &after)?);
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_keeps_other_hooks_and_uninstall_takes_out_only_the_gate() {
        let theirs = json!({ "command": ".cursor/hooks/format.sh" });
        let settings = json!({ "version": 1, "hooks": { "afterFileEdit": [theirs],
            "beforeShellExecution": [{ "command": "./audit.sh" }] } });
        let entry = gate_entry("/usr/bin/assent gate cursor --wait 290 || exit 2", 300);
        let installed = with_gate(&settings, &entry);
        assert_eq!(
            installed["hooks"]["beforeShellExecution"],
            json!([{ "command": "./audit.sh" }, entry]),
            "the gate goes after the user's own hook, which stays"
        );
        assert_eq!(
            installed["hooks"]["afterFileEdit"],
            json!([theirs]),
            "other events untouched"
        );
        assert_eq!(
            with_gate(&installed, &entry),
            installed,
            "a second install changes nothing"
        );
        let moved = gate_entry("/opt/assent gate cursor --wait 60 || exit 2", 70);
        assert_eq!(
            with_gate(&installed, &moved)["hooks"]["beforeShellExecution"],
            json!([{ "command": "./audit.sh" }, moved]),
            "a re-install replaces the old entry where it stood"
        );
        assert_eq!(
            without_gate(&installed),
            settings,
            "uninstall gives the file back as it was"
        );
    }
}
