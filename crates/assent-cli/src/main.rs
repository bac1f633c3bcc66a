//! `assent`: the approval desk's command line.
//!
//! Each subcommand lives in its own module with its own clap arguments; `main` only
//! dispatches and turns the outcome into an exit code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod audit_cmd;
mod campaign;
mod capability_exec;
mod doctor;
mod exception;
mod gate;
mod install;
mod people;
mod policy_cmd;
mod policy_eval;
mod reach;
mod request;
mod request_args;
mod reviewer_cmd;
mod run_cmd;
mod sandbox;
mod serve;
mod suggest;
mod webhooks;

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
    /// The agent gate: answers an agent's tool call with the service's decision.
    #[command(subcommand)]
    Gate(gate::GateCommand),
    /// Ask for one action and wait: exit 0 allowed, 10 denied, 11 blocked, 12 timed out,
    /// 13 unavailable, 14 the service refused the token, 2 usage.
    Request(request_args::RequestArgs),
    /// Run a command only when allowed, passing its exit code through; else as `request`.
    Exec(request_args::RequestArgs),
    /// Install the gate into an agent's settings (idempotent, with a backup).
    #[command(subcommand)]
    Install(install::InstallCommand),
    /// Remove exactly the entries `assent install` added.
    #[command(subcommand)]
    Uninstall(install::UninstallCommand),
    /// People who decide, and their roles: add (prints the token), list, remove, roles.
    #[command(subcommand)]
    People(people::PeopleCommand),
    /// Agents that request: add (prints a requester token), list, remove.
    #[command(subcommand)]
    Agents(people::AgentsCommand),
    /// Run the approval service: `assent serve [--listen ADDR] [--data-dir DIR] [--policy FILE]
    /// [--public-url URL] [--tls-cert FILE --tls-key FILE]`.
    Serve(serve::ServeArgs),
    /// Check that every agent action is guarded: service, tokens, hooks, agent versions, a
    /// canary through each hook, desktop; a fix under each failure. Exit 0 guarded, 1 a check
    /// failed, 2 usage.
    Doctor(doctor::DoctorArgs),
    /// A run before it acts: `assent run start` (pre-run approval when the policy asks).
    #[command(subcommand)]
    Run(run_cmd::RunCommand),
    /// Fleet campaigns approved stage by stage: create, stage, report, resume.
    #[command(subcommand)]
    Campaign(campaign::CampaignCommand),
    /// The audit chain: `key` (the checkpoints' public key), `verify` (exit 0 only when it
    /// holds), `export` (JSONL or CSV to stdout).
    #[command(subcommand)]
    Audit(audit_cmd::AuditCommand),
    /// Run a command (another agent) under bubblewrap with Assent's tokens, database, audit
    /// key, policy and the secret stores hidden, the hook settings read-only, and the
    /// requester token in ASSENT_TOKEN. Exit: the command's code; 69 no bwrap, 71 no user
    /// namespaces, 127 not found.
    Sandbox(sandbox::SandboxArgs),
    /// The model reviewer (`[reviewer]` in the policy): `check` sends one canned request and
    /// prints what was sent, the verdict and the latency (exit 0 a valid verdict, 1 none).
    #[command(subcommand)]
    Reviewer(reviewer_cmd::ReviewerCommand),
    /// Outbound webhooks signed as Standard Webhooks do (a platform admin's token): add URL
    /// [--event NAME]… [--agent NAME] [--allow-private], list, remove ID, deliveries ID.
    #[command(subcommand)]
    Webhooks(webhooks::WebhooksCommand),
}

fn main() -> ExitCode {
    assent_core::quiet_parser_panics();
    let cli = Cli::parse();
    match cli.command {
        Command::Policy(cmd) => policy_cmd::run(cmd),
        Command::Gate(cmd) => gate::run(cmd),
        Command::Request(args) => request::run_request(&args),
        Command::Exec(args) => request::run_exec(&args),
        Command::Install(cmd) => install::run_install(cmd),
        Command::Uninstall(cmd) => install::run_uninstall(cmd),
        Command::Serve(args) => serve::run(args),
        Command::People(cmd) => people::run_people(cmd),
        Command::Agents(cmd) => people::run_agents(cmd),
        Command::Doctor(args) => doctor::run(&args),
        Command::Run(cmd) => run_cmd::run(cmd),
        Command::Campaign(cmd) => campaign::run(cmd),
        Command::Audit(cmd) => audit_cmd::run(cmd),
        Command::Sandbox(args) => sandbox::run(&args),
        Command::Reviewer(cmd) => reviewer_cmd::run(cmd),
        Command::Webhooks(cmd) => webhooks::run(cmd),
    }
}
