//! `assent gate <agent>`: what agents run on every tool call. The hook gates are the
//! `assent-gate` crate's ([`assent_gate::AGENTS`], the same ones its binary answers); the MCP
//! permission tool, which needs the async runtime, is this binary's own.

use std::process::ExitCode;

use clap::Subcommand;

pub mod mcp;
mod mcp_tasks;

// What the other commands share with the gates: their flags and the decision path.
pub use assent_gate::{change, hook, outcome, repo, OnUnavailable, ServiceArgs};

#[derive(Debug, Subcommand)]
pub enum GateCommand {
    /// An agent's hook gate: one subcommand per agent (`claude-code`, `codex`, …).
    #[command(flatten)]
    Hook(assent_gate::Gate),
    /// MCP permission tool over stdio (`--permission-prompt-tool mcp__assent__approve`).
    Mcp(mcp::McpArgs),
}

pub fn run(cmd: GateCommand) -> ExitCode {
    match cmd {
        GateCommand::Hook(gate) => gate.run(),
        GateCommand::Mcp(args) => mcp::run(&args),
    }
}
