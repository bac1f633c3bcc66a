//! `assent install claude-code [--user|--project] [--bin PATH]` and `assent uninstall
//! claude-code`: merge the gate's hook entries into Claude Code's settings file idempotently
//! (keeping a backup), or remove exactly those entries. Every other setting and hook is left
//! as it was.
//!
//! The hooks fail closed: each entry carries `"onFailure": "block"`, so a Claude Code that
//! honours it (2.1.295 and later, [`claude_version`]) blocks the tool call when the gate
//! cannot start, and the command names a binary that stays put ([`binary`]), never a build
//! dir.

mod binary;
mod claude_version;
mod codex;
mod codex_toml;
mod hooks;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::gate::outcome::parse_seconds;
use crate::gate::OnUnavailable;
use binary::BinaryError;
use claude_version::Advice;

/// Seconds the hook timeout exceeds the gate's wait, so the gate always answers first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 10;
/// Suffix of the backup written next to the settings file.
pub const BACKUP_SUFFIX: &str = "assent-backup";

#[derive(Debug, Subcommand)]
pub enum InstallCommand {
    /// Claude Code: fail-closed hooks in ~/.claude/settings.json (or .claude/settings.json).
    ClaudeCode(InstallArgs),
    /// Codex CLI: trusted hooks in $CODEX_HOME/config.toml (or .codex/config.toml).
    Codex(InstallArgs),
}

#[derive(Debug, Subcommand)]
pub enum UninstallCommand {
    /// Remove the gate's hook entries from Claude Code's settings.
    ClaudeCode(Target),
    /// Remove the gate's hook entries (and their trust) from Codex's config.
    Codex(Target),
}

#[derive(Debug, Clone, Args)]
#[group(multiple = false)]
pub struct Target {
    /// The user's settings (default): ~/.claude/settings.json, $CODEX_HOME/config.toml.
    #[arg(long)]
    pub user: bool,
    /// This project's settings: ./.claude/settings.json, ./.codex/config.toml.
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
    /// The `assent` binary the hooks run (absolute path); default: the `assent` on PATH, else
    /// this binary unless it is a build output under a cargo target dir.
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
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
    #[error("{path} is not valid TOML, leaving it untouched: {reason}")]
    NotToml { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Shape {
        path: PathBuf,
        source: codex_toml::ShapeError,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Binary(#[from] BinaryError),
}

pub fn run_install(cmd: InstallCommand) -> ExitCode {
    let args = match cmd {
        InstallCommand::ClaudeCode(args) => args,
        InstallCommand::Codex(args) => return report(codex::install(&args)),
    };
    let (lines, bin) = match install(&args) {
        Ok(installed) => installed,
        Err(err) => return report(Err(err)),
    };
    let code = report(Ok(lines));
    // After the write: an old or unknown Claude Code does not undo the install, it is told.
    match claude_version::advice(&claude_version::probe(), &bin) {
        Advice::Fine(text) => println!("{text}"),
        Advice::Note(text) => eprintln!("assent: note: {text}"),
        Advice::Warning(text) => eprintln!("assent: warning: {text}"),
    }
    code
}

pub fn run_uninstall(cmd: UninstallCommand) -> ExitCode {
    match cmd {
        UninstallCommand::ClaudeCode(target) => report(uninstall(&target)),
        UninstallCommand::Codex(target) => report(codex::uninstall(&target)),
    }
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

/// Writes the hooks; the summary lines and the binary they run.
fn install(args: &InstallArgs) -> Result<(Vec<String>, PathBuf), InstallError> {
    let bin = binary::hook_binary(args.bin.as_deref())?;
    let path = settings_path(&args.target)?;
    let before = read_settings(&path)?;
    let command = hooks::gate_command(&bin, args.wait, args.on_unavailable);
    let timeout = args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS;
    let after = hooks::with_gate(&before, &hooks::gate_hook(&command, timeout));
    let mut lines = apply(&path, &before, &after)?;
    lines.push(format!("the hooks run {}", bin.display()));
    Ok((lines, bin))
}

fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = settings_path(target)?;
    let before = read_settings(&path)?;
    apply(&path, &before, &hooks::without_gate(&before))
}

/// Writes `after` (keeping a backup of the old file) unless nothing changed; returns the
/// summary lines.
fn apply(path: &Path, before: &Value, after: &Value) -> Result<Vec<String>, InstallError> {
    let mut lines = hooks::summary(before, after);
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
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into()) + "\n";
    write_text(path, &text)
}

/// Writes `text` through a temporary file beside `path`, so a reader never sees half of it.
fn write_text(path: &Path, text: &str) -> Result<(), InstallError> {
    let wrap = |source| InstallError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(wrap)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".assent-tmp");
    std::fs::write(&tmp, text).map_err(wrap)?;
    std::fs::rename(&tmp, path).map_err(wrap)
}
