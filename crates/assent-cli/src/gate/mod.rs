//! `assent gate <agent>`: what agents run on every tool call.

use std::process::ExitCode;

use clap::Subcommand;

mod args;
pub mod change;
pub mod claude_code;
pub mod codex;
pub mod codex_pass;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod hook;
pub mod mcp;
pub mod opencode;
pub mod outcome;
pub mod push;
pub mod repo;

pub use args::{OnUnavailable, ServiceArgs};

#[derive(Debug, Subcommand)]
pub enum GateCommand {
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
    /// MCP permission tool over stdio (`--permission-prompt-tool mcp__assent__approve`).
    Mcp(mcp::McpArgs),
}

pub fn run(cmd: GateCommand) -> ExitCode {
    match cmd {
        GateCommand::ClaudeCode(args) => claude_code::run(&args),
        GateCommand::Codex(args) => codex::run(&args),
        GateCommand::Gemini(args) => gemini::run(&args),
        GateCommand::Cursor(args) => cursor::run(&args),
        GateCommand::Copilot(args) => copilot::run(&args),
        GateCommand::Mcp(args) => mcp::run(&args),
        GateCommand::Opencode(args) => opencode::run(&args),
    }
}
