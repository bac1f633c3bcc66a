//! `assent gate <agent>`: what agents run on every tool call.

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

pub mod change;
pub mod claude_code;
pub mod codex;
pub mod codex_pass;
pub mod hook;
pub mod mcp;
pub mod outcome;
pub mod repo;

#[derive(Debug, Subcommand)]
pub enum GateCommand {
    /// Claude Code hook: reads one hook payload on stdin, answers in the hook's format.
    ClaudeCode(claude_code::ClaudeCodeArgs),
    /// Codex CLI hook: reads one hook payload on stdin, answers in Codex's hook format.
    Codex(codex::CodexArgs),
    /// MCP permission tool over stdio (`--permission-prompt-tool mcp__assent__approve`).
    Mcp(mcp::McpArgs),
}

/// Where the service is; both default to `ASSENT_URL` / `ASSENT_TOKEN` / the data dir.
#[derive(Debug, Clone, Args)]
pub struct ServiceArgs {
    /// Service URL [default: $ASSENT_URL, else http://127.0.0.1:7391].
    #[arg(long)]
    pub url: Option<String>,
    /// Requester token [default: $ASSENT_TOKEN, else requester.token in the data dir].
    #[arg(long)]
    pub token: Option<String>,
}

/// What to answer when no decision can be had (service down, hung, malformed, deadline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum OnUnavailable {
    /// Refuse the tool call, with the reason.
    #[default]
    Deny,
    /// Hand the decision back to the agent's own permission prompt.
    Ask,
}

pub fn run(cmd: GateCommand) -> ExitCode {
    match cmd {
        GateCommand::ClaudeCode(args) => claude_code::run(&args),
        GateCommand::Codex(args) => codex::run(&args),
        GateCommand::Mcp(args) => mcp::run(&args),
    }
}
