//! `assent install claude-code [--user|--project] [--bin PATH]` and `assent uninstall
//! claude-code`: merge the gate's hook entries into Claude Code's settings file idempotently
//! (keeping a backup), or remove exactly those entries. Every other setting and hook is left
//! as it was.
//!
//! The hooks fail closed: each entry carries `"onFailure": "block"`, so a Claude Code that
//! honours it (2.1.295 and later, [`claude_version`]) blocks the tool call when the gate
//! cannot start, and the command names a binary that stays put ([`binary`]), never a build
//! dir.

mod agent_token;
pub(crate) mod binary;
pub(crate) mod claude_sandbox;
pub(crate) mod claude_version;
mod codex;
pub(crate) mod codex_sandbox;
pub(crate) mod codex_toml;
pub(crate) mod copilot;
pub(crate) mod cursor;
pub(crate) mod gemini;
pub(crate) mod hooks;
pub(crate) mod opencode;
mod sandbox_record;
mod sandbox_scope;
mod settings_file;
mod shared;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use claude_version::Advice;
use sandbox_scope::{sandbox_places, sandbox_summary};
use settings_file::{apply, read_settings};
pub use shared::{InstallArgs, InstallError, Target, TIMEOUT_MARGIN_SECONDS};

#[derive(Debug, Subcommand)]
pub enum InstallCommand {
    /// Claude Code: fail-closed hooks in ~/.claude/settings.json (or .claude/settings.json).
    ClaudeCode(InstallArgs),
    /// Codex CLI: trusted hooks in $CODEX_HOME/config.toml (or .codex/config.toml).
    Codex(InstallArgs),
    /// Gemini CLI: fail-closed BeforeTool/AfterTool hooks in ~/.gemini/settings.json (or
    /// .gemini/settings.json).
    Gemini(InstallArgs),
    /// opencode: a plugin (~/.config/opencode/plugin/assent.js, or .opencode/plugin) that
    /// hands every tool call to the gate.
    Opencode(InstallArgs),
    /// Cursor: fail-closed hooks in ~/.cursor/hooks.json (or .cursor/hooks.json).
    Cursor(InstallArgs),
    /// GitHub Copilot CLI: a hook file ~/.copilot/hooks/assent.json (or
    /// .github/hooks/assent.json).
    Copilot(InstallArgs),
}

#[derive(Debug, Subcommand)]
pub enum UninstallCommand {
    /// Remove the gate's hook entries from Claude Code's settings.
    ClaudeCode(Target),
    /// Remove the gate's hook entries (and their trust) from Codex's config.
    Codex(Target),
    /// Remove the gate's hook entries from Gemini CLI's settings.
    Gemini(Target),
    /// Remove Assent's opencode plugin.
    Opencode(Target),
    /// Remove the gate's entries from Cursor's hooks.json.
    Cursor(Target),
    /// Remove Assent's Copilot CLI hook file.
    Copilot(Target),
}

pub fn run_install(cmd: InstallCommand) -> ExitCode {
    let no_sandbox = match &cmd {
        InstallCommand::Gemini(a) if a.sandbox => Some("gemini"),
        InstallCommand::Opencode(a) if a.sandbox => Some("opencode"),
        InstallCommand::Cursor(a) if a.sandbox => Some("cursor-agent"),
        InstallCommand::Copilot(a) if a.sandbox => Some("copilot"),
        _ => None,
    };
    if let Some(agent) = no_sandbox {
        report(Err(InstallError::NoAgentSandbox { agent }));
        return ExitCode::FAILURE;
    }
    let (agent, installed) = match cmd {
        InstallCommand::ClaudeCode(args) => ("claude-code", install_claude_code(&args)),
        InstallCommand::Codex(args) => ("codex", report(codex::install(&args))),
        InstallCommand::Gemini(args) => ("gemini", report(gemini::install(&args))),
        InstallCommand::Opencode(args) => ("opencode", report(opencode::install(&args))),
        InstallCommand::Cursor(args) => ("cursor", report(cursor::install(&args))),
        InstallCommand::Copilot(args) => ("copilot", report(copilot::install(&args))),
    };
    if !installed {
        return ExitCode::FAILURE;
    }
    // After the hooks: without its own token the agent still asks, as `default`.
    match agent_token::ensure(agent) {
        Ok(line) => println!("{line}"),
        Err(why) => {
            eprintln!("assent: note: the gate will ask as the agent default, not {agent}: {why}")
        }
    }
    ExitCode::SUCCESS
}

/// Claude Code's hooks, then what its version means for them; whether they were written.
fn install_claude_code(args: &InstallArgs) -> bool {
    let (lines, bin) = match install(args) {
        Ok(installed) => installed,
        Err(err) => return report(Err(err)),
    };
    report(Ok(lines));
    // After the write: an old or unknown Claude Code does not undo the install, it is told.
    match claude_version::advice(&claude_version::probe(), &bin) {
        Advice::Fine(text) => println!("{text}"),
        Advice::Note(text) => eprintln!("assent: note: {text}"),
        Advice::Warning(text) => eprintln!("assent: warning: {text}"),
    }
    true
}

pub fn run_uninstall(cmd: UninstallCommand) -> ExitCode {
    let done = match cmd {
        UninstallCommand::ClaudeCode(target) => report(uninstall(&target)),
        UninstallCommand::Codex(target) => report(codex::uninstall(&target)),
        UninstallCommand::Gemini(target) => report(gemini::uninstall(&target)),
        UninstallCommand::Opencode(target) => report(opencode::uninstall(&target)),
        UninstallCommand::Cursor(target) => report(cursor::uninstall(&target)),
        UninstallCommand::Copilot(target) => report(copilot::uninstall(&target)),
    };
    if done {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints what happened, or why not; whether it went through.
fn report(result: Result<Vec<String>, InstallError>) -> bool {
    match result {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            true
        }
        Err(err) => {
            eprintln!("assent: {err}");
            false
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
    let bin = binary::hook_program(args.bin.as_deref(), "claude-code")?;
    let path = settings_path(&args.target)?;
    let before = read_settings(&path)?;
    let command = hooks::gate_command(&bin, args.wait, args.on_unavailable);
    let timeout = args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS;
    let mut after = hooks::with_gate(&before, &hooks::gate_hook(&command, timeout));
    let mut record = None;
    if args.sandbox {
        let places = sandbox_places(&args.target, &args.hide)?;
        let earlier = sandbox_record::load(&path)?;
        let (sandboxed, new_record) =
            claude_sandbox::with_sandbox(&after, &places, earlier.as_ref());
        after = sandboxed;
        record = Some((new_record, places));
    }
    let mut lines = apply(&hooks::CLAUDE_CODE, &path, &before, &after)?;
    if let Some((record, places)) = record {
        sandbox_record::save(&path, Some(record))?;
        lines.push(sandbox_summary("Claude Code's sandbox", &places));
    }
    lines.push(format!("the hooks run {}", bin.display()));
    Ok((lines, bin))
}

fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = settings_path(target)?;
    let before = read_settings(&path)?;
    let mut after = hooks::without_gate(&before);
    let record = sandbox_record::load(&path)?;
    if let Some(record) = &record {
        let places = sandbox_places(target, &[])?;
        after = claude_sandbox::without_sandbox(&after, &places, Some(record));
    }
    let mut lines = apply(&hooks::CLAUDE_CODE, &path, &before, &after)?;
    if record.is_some() {
        sandbox_record::save(&path, None)?;
        lines.push("- sandbox: the settings --sandbox added".into());
    }
    Ok(lines)
}
