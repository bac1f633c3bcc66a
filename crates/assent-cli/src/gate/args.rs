//! The flags every gate shares: where the service is and what to answer without it.

use clap::{Args, ValueEnum};

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
