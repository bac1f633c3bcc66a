//! `assent-gate`: the hook gates as a binary of their own (see [`gate_fast`]). The gate's
//! modules are `assent gate`'s own files, included as they are; this file only picks the
//! agent. `assent-gate claude-code …` is `assent gate claude-code …` (a leading `gate` word is
//! also taken), and so for every agent's hook gate; a gate it does not answer itself (`mcp`,
//! which needs the async runtime, or a word it does not know) is handed to `assent gate …`
//! beside it, by `exec`, so it answers exactly as `assent` does.

// The gate's files are shared with `assent`, which also uses what this binary does not
// (`Decided`, `screen`, the request helpers): unused here is not unused.
#![allow(dead_code, reason = "modules shared with the `assent` binary")]

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use clap::Parser;

#[path = "gate/args.rs"]
mod args;
#[path = "gate/change.rs"]
mod change;
#[path = "gate/claude_code.rs"]
mod claude_code;
#[path = "gate/codex.rs"]
mod codex;
#[path = "gate/codex_pass.rs"]
mod codex_pass;
#[path = "gate/copilot.rs"]
mod copilot;
#[path = "gate/cursor.rs"]
mod cursor;
mod gate_fast;
#[path = "gate/gemini.rs"]
mod gemini;
#[path = "gate/hook.rs"]
mod hook;
#[path = "gate/opencode.rs"]
mod opencode;
#[path = "gate/outcome.rs"]
mod outcome;
#[path = "gate/push.rs"]
mod push;
#[path = "gate/repo.rs"]
mod repo;

/// Exit code both Claude Code and Codex read as "block this tool call".
const BLOCKING_EXIT: u8 = hook::BLOCKING_EXIT;

#[derive(Debug, Parser)]
#[command(
    name = "assent-gate",
    version,
    about = "The agents' hook gate (`assent gate AGENT`), as a small binary of its own"
)]
enum Gate {
    /// Claude Code hook: reads one hook payload on stdin, answers in the hook's format.
    ClaudeCode(claude_code::ClaudeCodeArgs),
    /// Codex CLI hook: reads one hook payload on stdin, answers in Codex's hook format.
    Codex(codex::CodexArgs),
    /// Gemini CLI hook: reads one BeforeTool/AfterTool payload on stdin, answers allow/deny.
    Gemini(gemini::GeminiArgs),
    /// Cursor hook: reads one preToolUse/beforeShellExecution/beforeMCPExecution payload on
    /// stdin, answers its permission.
    Cursor(cursor::CursorArgs),
    /// GitHub Copilot CLI hook: reads one preToolUse/postToolUse payload on stdin, answers its
    /// permissionDecision.
    Copilot(copilot::CopilotArgs),
    /// opencode: one tool call from the plugin `assent install opencode` writes, on stdin.
    Opencode(opencode::OpencodeArgs),
}

fn main() -> ExitCode {
    assent_core::quiet_parser_panics();
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|word| word == "gate") {
        argv.remove(1);
    }
    let agent = argv.get(1).and_then(|word| word.to_str());
    let ours = agent.is_none_or(|word| word.starts_with('-') || gate_fast::AGENTS.contains(&word));
    if !ours {
        return hand_over(argv.get(1..).unwrap_or_default());
    }
    match parse(argv) {
        Gate::ClaudeCode(args) => claude_code::run(&args),
        Gate::Codex(args) => codex::run(&args),
        Gate::Gemini(args) => gemini::run(&args),
        Gate::Cursor(args) => cursor::run(&args),
        Gate::Copilot(args) => copilot::run(&args),
        Gate::Opencode(args) => opencode::run(&args),
    }
}

/// The gate `argv` asks for. The agent's own flags are parsed by its subcommand's parser
/// alone: building every agent's parser to use one was half of an auto decision's
/// instructions (≈90 k of ≈330 k, clap's `augment_subcommands`). Whatever that does not parse
/// (`--help`, `--version`, a typo) goes to the whole parser, which answers as it always has.
fn parse(argv: Vec<OsString>) -> Gate {
    by_agent(&argv).unwrap_or_else(|| Gate::parse_from(argv))
}

/// `argv` parsed by its agent's subcommand alone; `None` when that parser has something else
/// to say (help, an error) or `argv` names no agent.
fn by_agent(argv: &[OsString]) -> Option<Gate> {
    match argv.get(1)?.to_str()? {
        "claude-code" => alone("claude-code", argv).map(Gate::ClaudeCode),
        "codex" => alone("codex", argv).map(Gate::Codex),
        "gemini" => alone("gemini", argv).map(Gate::Gemini),
        "cursor" => alone("cursor", argv).map(Gate::Cursor),
        "copilot" => alone("copilot", argv).map(Gate::Copilot),
        "opencode" => alone("opencode", argv).map(Gate::Opencode),
        _ => None,
    }
}

/// `argv[1..]` (the agent's word and its flags) parsed by the agent's subcommand alone.
fn alone<A: clap::Args + clap::FromArgMatches>(
    agent: &'static str,
    argv: &[OsString],
) -> Option<A> {
    let matches = A::augment_args(clap::Command::new(agent))
        .try_get_matches_from(argv.get(1..)?)
        .ok()?;
    A::from_arg_matches(&matches).ok()
}

/// `assent gate ARGS` beside this binary, in this process (exec). It returns only when that
/// cannot start; the tool call is then blocked, with the reason.
fn hand_over(args: &[OsString]) -> ExitCode {
    let assent = std::env::current_exe().map(|exe| exe.with_file_name("assent"));
    let err = match &assent {
        Ok(assent) => std::process::Command::new(assent)
            .arg("gate")
            .args(args)
            .exec(),
        Err(err) => std::io::Error::new(err.kind(), err.to_string()),
    };
    let shown = assent.map_or_else(|_| "assent".into(), |p| p.display().to_string());
    eprintln!("Assent gate: cannot run {shown} gate: {err}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
}
