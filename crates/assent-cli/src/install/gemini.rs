//! `assent install gemini [--user|--project]` and `assent uninstall gemini`: the gate's hooks
//! in Gemini CLI's `settings.json` (`~/.gemini/settings.json`, `$GEMINI_CLI_HOME/.gemini` when
//! set; or `./.gemini/settings.json`), the same shape as Claude Code's: `BeforeTool` and
//! `AfterTool` on every tool (`"*"`), `SessionEnd`. Idempotent, a backup kept, every other
//! setting and hook left as it was.
//!
//! Gemini runs the tool when a hook times out or exits 1, so the hook's `timeout`
//! (milliseconds) is the gate's wait plus a margin, and the command ends in
//! [`FAIL_CLOSED`]: whatever makes the gate fail (its binary gone, a crash) becomes exit 2
//! with a reason on stderr, Gemini's deny.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::binary;
use super::hooks::{self, Layout};
use super::settings_file::{apply, read_settings};
use super::shared::{InstallArgs, InstallError, Target, TIMEOUT_MARGIN_SECONDS};

/// Gemini CLI's hook settings.
pub const GEMINI: Layout = Layout {
    agent: "gemini",
    events: &["BeforeTool", "AfterTool", "SessionEnd"],
    matched: &["BeforeTool", "AfterTool"],
    timeout_unit: "ms",
};

/// The name Gemini shows for the hook (and `hooksConfig.disabled` would list).
pub const HOOK_NAME: &str = "assent";

/// Appended to the gate command (Gemini runs it with `bash -c`): a gate that cannot start or
/// fails without answering becomes a deny with a reason, never Gemini's "non-blocking error".
pub const FAIL_CLOSED: &str =
    " || { echo \"Assent gate failed (exit $?); blocking the tool call\" >&2; exit 2; }";

/// The settings file: the user's (Gemini's home, `$GEMINI_CLI_HOME` or `$HOME`) or the project's.
pub fn settings_path(target: &Target) -> Result<PathBuf, InstallError> {
    if target.project {
        let cwd = std::env::current_dir().map_err(|source| InstallError::Read {
            path: ".".into(),
            source,
        })?;
        return Ok(cwd.join(".gemini").join("settings.json"));
    }
    Ok(user_home()?.join(".gemini").join("settings.json"))
}

fn user_home() -> Result<PathBuf, InstallError> {
    ["GEMINI_CLI_HOME", "HOME"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .ok_or(InstallError::NoHome)
}

/// The gate's hook handler: named, the command, the timeout in milliseconds.
pub fn gate_hook(command: &str, timeout_ms: u64) -> Value {
    json!({ "name": HOOK_NAME, "type": "command", "command": command, "timeout": timeout_ms })
}

pub fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let bin = binary::hook_program(args.bin.as_deref(), GEMINI.agent)?;
    let path = settings_path(&args.target)?;
    let before = read_settings(&path)?;
    let gate = hooks::agent_gate_command(GEMINI.agent, &bin, args.wait, args.on_unavailable);
    let command = format!("{gate}{FAIL_CLOSED}");
    let timeout_ms = (args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS) * 1000;
    let after = hooks::with_layout_gate(&GEMINI, &before, &gate_hook(&command, timeout_ms));
    let mut lines = apply(&GEMINI, &path, &before, &after)?;
    lines.push(format!("the hooks run {}", bin.display()));
    lines.extend(switched_off(&after));
    if args.target.project {
        lines.push(
            "note: Gemini runs a project's hooks only in a trusted folder, and warns about them"
                .into(),
        );
    }
    Ok(lines)
}

pub fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = settings_path(target)?;
    let before = read_settings(&path)?;
    apply(
        &GEMINI,
        &path,
        &before,
        &hooks::without_layout_gate(&GEMINI, &before),
    )
}

/// Warnings when the settings turn the hooks off (`hooksConfig.enabled: false`, or the
/// gate's name in `hooksConfig.disabled`): installed, but Gemini would not run them.
pub fn switched_off(settings: &Value) -> Vec<String> {
    let config = settings.get("hooksConfig");
    let mut lines = Vec::new();
    if config.and_then(|c| c.get("enabled")) == Some(&Value::Bool(false)) {
        lines.push(
            "warning: hooksConfig.enabled is false: Gemini runs no hooks, the gate included".into(),
        );
    }
    let disabled = config
        .and_then(|c| c.get("disabled"))
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|n| n == HOOK_NAME));
    if disabled {
        lines.push(format!(
            "warning: hooksConfig.disabled lists {HOOK_NAME:?}: Gemini skips the gate"
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_keeps_other_hooks_and_uninstall_takes_out_only_the_gate() {
        let theirs =
            json!({ "matcher": "write_file", "hooks": [{ "type": "command", "command": "fmt" }] });
        let settings = json!({ "ui": { "theme": "dark" }, "hooks": { "BeforeTool": [theirs] } });
        let hook = gate_hook(
            &format!("/usr/bin/assent gate gemini --wait 290{FAIL_CLOSED}"),
            300_000,
        );
        let installed = hooks::with_layout_gate(&GEMINI, &settings, &hook);
        assert_eq!(
            installed["hooks"]["BeforeTool"],
            json!([theirs, { "matcher": "*", "hooks": [hook] }]),
            "the gate goes after the user's own BeforeTool hook, which stays"
        );
        assert_eq!(
            installed["ui"], settings["ui"],
            "other settings are untouched"
        );
        assert_eq!(
            hooks::with_layout_gate(&GEMINI, &installed, &hook),
            installed,
            "a second install changes nothing"
        );
        assert_eq!(
            hooks::without_layout_gate(&GEMINI, &installed),
            settings,
            "uninstall gives back the settings as they were"
        );
    }

    #[test]
    fn settings_that_switch_hooks_off_are_said() {
        let off = json!({ "hooksConfig": { "enabled": false, "disabled": ["assent"] } });
        assert_eq!(
            switched_off(&off).len(),
            2,
            "both switches that skip the gate are warned about"
        );
        assert!(
            switched_off(&json!({})).is_empty(),
            "default settings run the hooks"
        );
    }
}
