//! `assent policy eval | show | check`.

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the effective policy as TOML.
    Show {
        #[arg(long)]
        policy: Option<std::path::PathBuf>,
    },
}

pub fn run(cmd: PolicyCommand) -> ExitCode {
    match cmd {
        PolicyCommand::Show { policy: _ } => {
            print!("{}", assent_core::Policy::default().to_toml());
            ExitCode::SUCCESS
        }
    }
}
