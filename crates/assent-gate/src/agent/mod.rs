//! The agents' hook gates, one row each in [`AGENTS`]: the subcommand both `assent gate AGENT`
//! and `assent-gate AGENT` answer, the defaults that fit the agent's hook timeout, and the
//! handler that writes the answer in the agent's format. Every list of the gated agents (the
//! subcommands of both binaries, the gates `assent-gate` answers itself, the agents `assent
//! install` names `assent-gate` for) is this table.

pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod opencode;

use std::process::ExitCode;

use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};
use serde_json::Value;

use crate::args::HookArgs;
use crate::hook::{self, Hook};

/// One agent's hook gate.
#[derive(Debug)]
pub struct Agent {
    /// The subcommand (`assent gate NAME`, `assent-gate NAME`) and the agent its requests
    /// come from (its requester token, when no `--token` is given).
    pub name: &'static str,
    /// The subcommand's help line.
    pub about: &'static str,
    /// `--wait`'s default in seconds: under the agent's default hook timeout.
    pub wait: &'static str,
    /// `--wait`'s help: what the agent does past its hook's timeout.
    pub wait_help: &'static str,
    /// `--on-unavailable`'s help: what "ask" hands the call to in this agent.
    pub on_unavailable_help: &'static str,
    /// Answers one readable payload (the agent's own shape) on stdout, with the exit code.
    pub handle: fn(Value, Hook<'_>) -> ExitCode,
}

/// The gated agents, in the order the help lists them.
pub const AGENTS: [Agent; 6] = [
    Agent {
        name: "claude-code",
        about: "Claude Code hook: reads one hook payload on stdin, answers in the hook's format.",
        wait: "55",
        wait_help: "Longest wait for a person, in seconds. Keep it under the hook's timeout \
                    (`assent install claude-code` does); the default fits Claude Code's 60 s \
                    default.",
        on_unavailable_help: "What to answer when no decision can be had: deny, or hand back \
                              to Claude Code's prompt.",
        handle: claude_code::handle,
    },
    Agent {
        name: "codex",
        about: "Codex CLI hook: reads one hook payload on stdin, answers in Codex's hook format.",
        wait: "590",
        wait_help: "Longest wait for a person, in seconds. Keep it under the hook's timeout \
                    (`assent install codex` does); the default fits Codex's 600 s default.",
        on_unavailable_help: "What to answer when no decision can be had: deny, or no decision \
                              (Codex's own approval flow decides).",
        handle: codex::handle,
    },
    Agent {
        name: "gemini",
        about: "Gemini CLI hook: reads one BeforeTool/AfterTool payload on stdin, answers \
                allow/deny.",
        wait: "55",
        wait_help: "Longest wait for a person, in seconds. Keep it under the hook's timeout \
                    (`assent install gemini` does): past the timeout Gemini runs the tool. The \
                    default fits Gemini's 60 s default.",
        on_unavailable_help: "What to answer when no decision can be had: deny, or no decision \
                              (Gemini's own approval mode decides).",
        handle: gemini::handle,
    },
    Agent {
        name: "cursor",
        about: "Cursor hook: reads one preToolUse/beforeShellExecution/beforeMCPExecution \
                payload on stdin, answers its permission.",
        wait: "55",
        wait_help: "Longest wait for a person, in seconds. Keep it under the hook's `timeout` \
                    (`assent install cursor` does): a timeout blocks only with `failClosed`.",
        on_unavailable_help: "What to answer when no decision can be had: deny, or ask \
                              (Cursor's own prompt).",
        handle: cursor::handle,
    },
    Agent {
        name: "copilot",
        about: "GitHub Copilot CLI hook: reads one preToolUse/postToolUse payload on stdin, \
                answers its permissionDecision.",
        wait: "25",
        wait_help: "Longest wait for a person, in seconds. Keep it under the hook's \
                    `timeoutSec` (`assent install copilot` does): past it Copilot runs the \
                    tool. The default fits Copilot's 30 s.",
        on_unavailable_help: "What to answer when no decision can be had: deny, or ask \
                              (Copilot's own prompt; a `-p` run takes that as a deny).",
        handle: copilot::handle,
    },
    Agent {
        name: "opencode",
        about: "opencode: one tool call from the plugin `assent install opencode` writes, on \
                stdin.",
        wait: "290",
        wait_help: "Longest wait for a person, in seconds (opencode itself waits for the plugin \
                    as long as it takes).",
        on_unavailable_help: "What to answer when no decision can be had: deny, or ask \
                              (opencode's own permission config decides).",
        handle: opencode::handle,
    },
];

/// The gated agent called `name`.
pub fn agent(name: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|agent| agent.name == name)
}

impl Agent {
    /// This agent's subcommand: the gate's flags with the agent's `--wait` default and help.
    pub fn command(&self) -> Command {
        HookArgs::augment_args(Command::new(self.name).about(self.about))
            .mut_arg("wait", |arg| {
                arg.default_value(self.wait).help(self.wait_help)
            })
            .mut_arg("on_unavailable", |arg| arg.help(self.on_unavailable_help))
    }
}

/// One hook gate to run: the agent and its flags. As a clap [`Subcommand`], one subcommand per
/// row of [`AGENTS`].
#[derive(Debug, Clone)]
pub struct Gate {
    pub agent: &'static Agent,
    pub args: HookArgs,
}

impl Gate {
    /// Reads the payload (`--payload`, else stdin) and answers it; an unreadable one blocks
    /// the call (exit 2, the reason on stderr).
    pub fn run(&self) -> ExitCode {
        let payload = match hook::load(self.args.payload.as_ref()) {
            Ok(payload) => payload,
            Err(why) => return hook::blocked(&why),
        };
        let hook = Hook {
            args: &self.args,
            agent: self.agent.name,
        };
        (self.agent.handle)(payload, hook)
    }

    /// `matches` of [`Agent::command`] for `agent`.
    pub fn of(agent: &'static Agent, matches: &ArgMatches) -> Result<Gate, clap::Error> {
        Ok(Gate {
            agent,
            args: HookArgs::from_arg_matches(matches)?,
        })
    }
}

impl FromArgMatches for Gate {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = matches.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        let agent = agent(name).ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("no hook gate for {name}"),
            )
        })?;
        Gate::of(agent, sub)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Gate::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for Gate {
    fn augment_subcommands(command: Command) -> Command {
        AGENTS.iter().fold(command, |command, agent| {
            command.subcommand(agent.command())
        })
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Gate::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        agent(name).is_some()
    }
}
