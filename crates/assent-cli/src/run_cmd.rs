//! `assent run start`: tell the service what a run is for before it acts. When the policy
//! asks for a pre-run approval the run's actions are blocked until a person approves it;
//! `--wait S` waits for that decision. Exit codes: 0 started, 10 denied, 11 blocked,
//! 12 pending (no decision within `--wait`), 13 unavailable, 2 usage.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use assent_client::{blocking, ClientConfig, ClientError};
use assent_core::RiskLevel;
use assent_protocol::{Resolution, RunStartRequest, RunStartResponse, RunStartStatus};
use clap::{Args, Subcommand};

use crate::gate::outcome::parse_seconds;
use crate::gate::ServiceArgs;
use crate::request_args::{
    EXIT_ALLOWED, EXIT_BLOCKED, EXIT_DENIED, EXIT_TIMED_OUT, EXIT_UNAVAILABLE, EXIT_USAGE,
};

/// How long one call to the service may take.
const CALL: Duration = Duration::from_secs(10);

#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// Start a run: asks for a pre-run approval when the policy wants one. Exit 0 started,
    /// 10 denied, 11 blocked, 12 pending, 13 unavailable, 2 usage.
    Start(StartArgs),
}

#[derive(Debug, Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    #[arg(long = "run", env = "ASSENT_RUN_ID")]
    pub run: String,
    /// What the run is for (shown to the person).
    #[arg(long)]
    pub task: String,
    /// The task's risk: low, medium, high, critical.
    #[arg(long, default_value = "low", value_parser = parse_risk)]
    pub risk: RiskLevel,
    /// The repositories it touches, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub repos: Vec<String>,
    /// An action it expects to take (repeat for more).
    #[arg(long)]
    pub expected: Vec<String>,
    /// A credential it will need (repeat for more).
    #[arg(long)]
    pub credentials: Vec<String>,
    /// What it may change outside the machine ("PR creation only, no merge").
    #[arg(long)]
    pub remote_mutation: Option<String>,
    /// The fleet campaign the run belongs to (with --repo).
    #[arg(long, requires = "repo")]
    pub campaign: Option<String>,
    /// The campaign repository the run works on.
    #[arg(long, requires = "campaign")]
    pub repo: Option<String>,
    /// Longest wait for the pre-run decision, in seconds (0: do not wait).
    #[arg(long, default_value = "0", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_risk(text: &str) -> Result<RiskLevel, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("unknown risk {text:?} (low, medium, high, critical)"))
}

pub fn run(cmd: RunCommand) -> ExitCode {
    match cmd {
        RunCommand::Start(args) => ExitCode::from(start(&args)),
    }
}

/// A client from `--url`/`--token` (or the environment); the error is printed.
pub fn client(service: &ServiceArgs) -> Result<blocking::Client, u8> {
    ClientConfig::resolve(service.url.as_deref(), service.token.as_deref())
        .and_then(|config| blocking::Client::from_config(&config))
        .map_err(|err| failed(&err))
}

/// Prints a failed call; its exit code (13 unreachable, 2 refused as bad input, else 11).
pub fn failed(err: &ClientError) -> u8 {
    eprintln!("{err}");
    match err {
        ClientError::Api { status: 400, .. } => EXIT_USAGE,
        ClientError::Api { .. } => EXIT_BLOCKED,
        _ => EXIT_UNAVAILABLE,
    }
}

fn start(args: &StartArgs) -> u8 {
    let client = match client(&args.service) {
        Ok(client) => client,
        Err(code) => return code,
    };
    let request = RunStartRequest {
        task: args.task.clone(),
        risk: Some(args.risk),
        repos: args.repos.clone(),
        expected: args.expected.clone(),
        credentials: args.credentials.clone(),
        remote_mutation: args.remote_mutation.clone(),
        campaign: args.campaign.clone(),
        repo: args.repo.clone(),
    };
    let answer = match client.run_start(&args.run, &request, Instant::now() + CALL) {
        Ok(answer) => answer,
        Err(err) => return failed(&err),
    };
    let code = match (answer.status, &answer.approval_id) {
        (RunStartStatus::Pending, Some(id)) if !args.wait.is_zero() => {
            return waited(&client, &answer, id, args);
        }
        (RunStartStatus::Started, _) => EXIT_ALLOWED,
        (RunStartStatus::Pending, _) => EXIT_TIMED_OUT,
        (RunStartStatus::Blocked, _) => EXIT_BLOCKED,
    };
    print(&answer, args.json);
    code
}

/// Waits for the pre-run decision: approved 0, denied 10, still pending 12.
fn waited(client: &blocking::Client, answer: &RunStartResponse, id: &str, args: &StartArgs) -> u8 {
    print(answer, args.json);
    match client.wait_settled(id, Instant::now() + args.wait) {
        Ok(approval) => {
            let by = approval.decided_by.unwrap_or_default();
            let why = approval.decision_reason.unwrap_or_default();
            match approval.resolution {
                Some(Resolution::Approved) => {
                    println!("run {}: started (pre-run approved by {by})", args.run);
                    EXIT_ALLOWED
                }
                Some(Resolution::Denied) => {
                    eprintln!("run {}: pre-run approval denied by {by}: {why}", args.run);
                    EXIT_DENIED
                }
                _ => {
                    eprintln!("run {}: pre-run approval was not given: {why}", args.run);
                    EXIT_DENIED
                }
            }
        }
        Err(ClientError::Timeout) => {
            eprintln!(
                "run {}: no decision within {} s; its actions stay blocked until approval {id} is decided",
                args.run,
                args.wait.as_secs()
            );
            EXIT_TIMED_OUT
        }
        Err(err) => failed(&err),
    }
}

fn print(answer: &RunStartResponse, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(answer).unwrap_or_else(|_| "{}".into())
        );
        return;
    }
    let status = match answer.status {
        RunStartStatus::Started => "started",
        RunStartStatus::Pending => "awaiting pre-run approval",
        RunStartStatus::Blocked => "blocked",
    };
    let approval = answer
        .approval_id
        .as_deref()
        .map(|id| format!(" (approval {id})"))
        .unwrap_or_default();
    println!(
        "run {}: {status}{approval}: {}",
        answer.run_id,
        answer.reasons.join("; ")
    );
}
