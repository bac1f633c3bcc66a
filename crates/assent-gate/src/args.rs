//! The flags of the gates: where the service is, what to answer without it, and the one set of
//! flags every agent's hook gate takes ([`HookArgs`]; its `--wait` default and help are the
//! agent's, from [`crate::AGENTS`]).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::outcome::parse_seconds;

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

/// An agent's hook gate: `assent gate AGENT [flags]`, `assent-gate AGENT [flags]`.
#[derive(Debug, Clone, Args)]
pub struct HookArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    // Default and help: the agent's (`Agent::command`), to fit its hook's timeout.
    /// Longest wait for a person, in seconds.
    #[arg(long, default_value = "55", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer a submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    // Help: the agent's (`Agent::command`), which says what "ask" does there.
    /// What to answer when no decision can be had: deny, or ask.
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// Task id for the requests (default: the session id).
    #[arg(long)]
    pub task: Option<String>,
    /// Read the hook payload from this file instead of stdin (replays, benchmarks).
    #[arg(long)]
    pub payload: Option<PathBuf>,
}
