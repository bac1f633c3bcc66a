//! `assent install claude-code [--user|--project]` and `assent uninstall claude-code`: merge
//! the gate's hook entries into Claude Code's settings file idempotently (keeping a backup),
//! or remove exactly those entries. Every other setting and hook is left as it was.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};

use crate::gate::outcome::parse_seconds;
use crate::gate::OnUnavailable;

/// The hook events the gate answers.
pub const EVENTS: [&str; 4] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionEnd",
];
/// Events whose entries take a tool matcher.
const MATCHED: [&str; 3] = ["PreToolUse", "PermissionRequest", "PostToolUse"];
/// Seconds the hook timeout exceeds the gate's wait, so the gate always answers first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 10;
/// Suffix of the backup written next to the settings file.
pub const BACKUP_SUFFIX: &str = "assent-backup";

#[derive(Debug, Subcommand)]
pub enum InstallCommand {
    /// Claude Code: hook entries in ~/.claude/settings.json (or .claude/settings.json).
    ClaudeCode(InstallArgs),
}

#[derive(Debug, Subcommand)]
pub enum UninstallCommand {
    /// Remove the gate's hook entries from Claude Code's settings.
    ClaudeCode(Target),
}

#[derive(Debug, Clone, Args)]
#[group(multiple = false)]
pub struct Target {
    /// The user's settings, ~/.claude/settings.json (default).
    #[arg(long)]
    pub user: bool,
    /// This project's settings, ./.claude/settings.json.
    #[arg(long)]
    pub project: bool,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub target: Target,
    /// The gate's longest wait for a person, in seconds; the hook timeout is 10 s more.
    #[arg(long, default_value = "290", value_parser = parse_seconds)]
    pub wait: Duration,
    /// What the gate answers when no decision can be had.
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
}

/// Why the settings could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("no home directory to find ~/.claude")]
    NoHome,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a JSON object: leaving it untouched")]
    NotJson { path: PathBuf },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

pub fn run_install(cmd: InstallCommand) -> ExitCode {
    let InstallCommand::ClaudeCode(args) = cmd;
    report(install(&args))
}

pub fn run_uninstall(cmd: UninstallCommand) -> ExitCode {
    let UninstallCommand::ClaudeCode(target) = cmd;
    report(uninstall(&target))
}

fn report(result: Result<Vec<String>, InstallError>) -> ExitCode {
    match result {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("assent: {err}");
            ExitCode::FAILURE
        }
    }
}

fn settings_path(target: &Target) -> Result<PathBuf, InstallError> {
    if target.project {
        let cwd = std::env::current_dir().map_err(|source| InstallError::Read {
            path: ".".into(),
            source,
        })?;
        return Ok(cwd.join(".claude").join("settings.json"));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .ok_or(InstallError::NoHome)?;
    Ok(home.join(".claude").join("settings.json"))
}

/// The gate command the hooks run.
pub fn gate_command(wait: Duration, on_unavailable: OnUnavailable) -> String {
    let exe = std::env::current_exe()
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| "assent".to_owned());
    let mut command = format!(
        "{} gate claude-code --wait {}",
        shell_quote(&exe),
        wait.as_secs()
    );
    if on_unavailable == OnUnavailable::Ask {
        command.push_str(" --on-unavailable ask");
    }
    command
}

fn shell_quote(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let path = settings_path(&args.target)?;
    let before = read_settings(&path)?;
    let command = gate_command(args.wait, args.on_unavailable);
    let timeout = args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS;
    let after = with_gate(&without_gate(&before), &command, timeout);
    apply(&path, &before, &after)
}

fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = settings_path(target)?;
    let before = read_settings(&path)?;
    apply(&path, &before, &without_gate(&before))
}

/// Writes `after` (keeping a backup of the old file) unless nothing changed; returns the
/// summary lines.
fn apply(path: &Path, before: &Value, after: &Value) -> Result<Vec<String>, InstallError> {
    let mut lines = summary(before, after);
    if before == after {
        lines.push(format!("{}: unchanged", path.display()));
        return Ok(lines);
    }
    if path.exists() {
        let backup = path.with_extension(format!("json.{BACKUP_SUFFIX}"));
        std::fs::copy(path, &backup).map_err(|source| InstallError::Write {
            path: backup.clone(),
            source,
        })?;
        lines.push(format!("backup: {}", backup.display()));
    }
    write_atomically(path, after)?;
    lines.push(format!("{}: updated", path.display()));
    Ok(lines)
}

fn read_settings(path: &Path) -> Result<Value, InstallError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(json!({})),
        Err(source) => {
            return Err(InstallError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(value) if value.is_object() => Ok(value),
        _ => Err(InstallError::NotJson {
            path: path.to_owned(),
        }),
    }
}

fn write_atomically(path: &Path, value: &Value) -> Result<(), InstallError> {
    let wrap = |source| InstallError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(wrap)?;
    }
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into()) + "\n";
    let tmp = path.with_extension("json.assent-tmp");
    std::fs::write(&tmp, text).map_err(wrap)?;
    std::fs::rename(&tmp, path).map_err(wrap)
}

/// Whether a hook entry is one of the gate's.
pub fn is_gate_hook(hook: &Value) -> bool {
    let Some(command) = hook.get("command").and_then(Value::as_str) else {
        return false;
    };
    let mut words = command.split_whitespace();
    let program = words.next().unwrap_or_default().trim_matches('\'');
    let is_assent = Path::new(program)
        .file_name()
        .is_some_and(|n| n == "assent");
    is_assent && words.next() == Some("gate") && words.next() == Some("claude-code")
}

/// `settings` with every gate hook removed, and groups or events left empty by that removed.
pub fn without_gate(settings: &Value) -> Value {
    let mut out = settings.clone();
    let Some(hooks) = out.get_mut("hooks").and_then(Value::as_object_mut) else {
        return out;
    };
    for event in EVENTS {
        let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                list.retain(|hook| !is_gate_hook(hook));
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|l| !l.is_empty())
        });
        if groups.is_empty() {
            hooks.remove(event);
        }
    }
    if hooks.is_empty() {
        if let Some(map) = out.as_object_mut() {
            map.remove("hooks");
        }
    }
    out
}

/// `settings` plus one gate hook group per event.
pub fn with_gate(settings: &Value, command: &str, timeout: u64) -> Value {
    let mut out = settings.clone();
    let Some(root) = out.as_object_mut() else {
        return out;
    };
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
        let entry = json!({ "type": "command", "command": command, "timeout": timeout });
        let group = if MATCHED.contains(&event) {
            json!({ "matcher": "*", "hooks": [entry] })
        } else {
            json!({ "hooks": [entry] })
        };
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        if let Some(list) = groups.as_array_mut() {
            list.push(group);
        } else {
            *groups = json!([group]);
        }
    }
    out
}

/// `+`/`-` lines for the gate hooks that appear or disappear between the two settings.
fn summary(before: &Value, after: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for event in EVENTS {
        let old = gate_hooks(before, event);
        let new = gate_hooks(after, event);
        lines.extend(
            old.iter()
                .filter(|h| !new.contains(h))
                .map(|h| format!("- {event}: {h}")),
        );
        lines.extend(
            new.iter()
                .filter(|h| !old.contains(h))
                .map(|h| format!("+ {event}: {h}")),
        );
    }
    lines
}

fn gate_hooks(settings: &Value, event: &str) -> Vec<String> {
    settings
        .pointer(&format!("/hooks/{event}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|hook| is_gate_hook(hook))
        .map(|hook| {
            let command = hook
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let timeout = hook
                .get("timeout")
                .and_then(Value::as_u64)
                .map(|t| format!(" (timeout {t}s)"))
                .unwrap_or_default();
            format!("{command}{timeout}")
        })
        .collect()
}
