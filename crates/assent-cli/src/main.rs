//! `assent`: the approval desk's command line.
//!
//! Each subcommand lives in its own module with its own clap arguments; `main` only
//! dispatches and turns the outcome into an exit code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod policy_cmd;

#[derive(Debug, Parser)]
#[command(name = "assent", version, about = "Approval desk for AI coding agents")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate actions against the policy, show or check a policy file.
    #[command(subcommand)]
    Policy(policy_cmd::PolicyCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Policy(cmd) => policy_cmd::run(cmd),
    }
}
