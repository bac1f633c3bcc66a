//! `assent request` and `assent exec`: the gate for any agent or script.
//!
//! `request` submits one action and waits for the outcome; `exec` also runs the command when
//! (and only when) it is allowed — the seed's `guardedExecute`. Exit codes are the contract:
//! 0 allowed, 10 denied, 11 blocked, 12 timed out, 13 unavailable, 2 usage; `exec` passes the
//! command's own code through when it ran (127 when it could not be started).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use assent_client::{blocking, ClientConfig};
use assent_core::{Action, ActionContext, ActionKind, ActionRequest, RequestedBy};
use clap::Args;

use crate::gate::outcome::{decide, parse_seconds, unreached, Deadlines, Decided, Outcome};
use crate::gate::repo::git_root;
use crate::gate::ServiceArgs;

pub const EXIT_ALLOWED: u8 = 0;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_DENIED: u8 = 10;
pub const EXIT_BLOCKED: u8 = 11;
pub const EXIT_TIMED_OUT: u8 = 12;
pub const EXIT_UNAVAILABLE: u8 = 13;
/// `exec`: the allowed command could not be started.
pub const EXIT_NOT_STARTED: u8 = 127;

#[derive(Debug, Clone, Args)]
pub struct RequestArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// The run this action belongs to (grants "for this run" are scoped to it).
    #[arg(long = "run", env = "ASSENT_RUN_ID", default_value = "cli")]
    pub run: String,
    /// The task id [default: the run id].
    #[arg(long = "task", env = "ASSENT_TASK_ID")]
    pub task: Option<String>,
    /// What kind of action: shell, file_read, file_write, file_delete, network, credential,
    /// pr, mcp, other. For file kinds the arguments are paths, for network targets.
    #[arg(long, default_value = "shell", value_parser = parse_kind)]
    pub kind: ActionKind,
    /// Longest wait for a person, in seconds.
    #[arg(long, default_value = "300", value_parser = parse_seconds)]
    pub wait: Duration,
    /// Longest wait for the service to answer the submit, in seconds.
    #[arg(long, default_value = "5", value_parser = parse_seconds)]
    pub submit_timeout: Duration,
    /// Why the agent wants this (shown to the person).
    #[arg(long, default_value = "")]
    pub reason: String,
    /// Makes resubmissions answer the first decision instead of asking again.
    #[arg(long)]
    pub idempotency_key: Option<String>,
    /// Print the full outcome as JSON (stdout for `request`, stderr for `exec`).
    #[arg(long)]
    pub json: bool,
    /// `exec` only: run the command with this credential capability of the policy (the
    /// service releases its secret into the command's environment only, output masked).
    #[arg(long)]
    pub capability: Option<String>,
    /// The command (or paths, URLs, tool name for other kinds).
    #[arg(last = true, required = true, num_args = 1..)]
    pub command: Vec<String>,
}

fn parse_kind(text: &str) -> Result<ActionKind, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("unknown kind {text:?}"))
}

/// `assent request`.
pub fn run_request(args: &RequestArgs) -> ExitCode {
    if args.capability.is_some() {
        eprintln!("--capability runs a command: use `assent exec --capability NAME -- CMD`");
        return ExitCode::from(EXIT_USAGE);
    }
    let decided = submit(args);
    report(args, &decided, true);
    ExitCode::from(exit_code(&decided.outcome))
}

/// `assent exec`.
pub fn run_exec(args: &RequestArgs) -> ExitCode {
    if let Some(capability) = &args.capability {
        return crate::capability_exec::run(args, capability);
    }
    if args.kind != ActionKind::Shell {
        eprintln!(
            "assent exec runs commands: use --kind shell (or `assent request` for other kinds)"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let decided = submit(args);
    report(args, &decided, false);
    if !matches!(decided.outcome, Outcome::Allowed { .. }) {
        return ExitCode::from(exit_code(&decided.outcome));
    }
    let Some((program, rest)) = args.command.split_first() else {
        return ExitCode::from(EXIT_USAGE);
    };
    match std::process::Command::new(program).args(rest).status() {
        Ok(status) => ExitCode::from(child_code(status)),
        Err(err) => {
            eprintln!("assent exec: cannot start {program}: {err}");
            ExitCode::from(EXIT_NOT_STARTED)
        }
    }
}

pub(crate) fn child_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from((128 + signal) & 0xff).unwrap_or(1);
        }
    }
    1
}

/// The exit code of an outcome.
pub fn exit_code(outcome: &Outcome) -> u8 {
    match outcome {
        Outcome::Allowed { .. } => EXIT_ALLOWED,
        Outcome::Denied { .. } => EXIT_DENIED,
        Outcome::Blocked { .. } => EXIT_BLOCKED,
        Outcome::TimedOut { .. } => EXIT_TIMED_OUT,
        Outcome::Unavailable { .. } => EXIT_UNAVAILABLE,
    }
}

fn submit(args: &RequestArgs) -> Decided {
    let config =
        match ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref()) {
            Ok(config) => config,
            Err(err) => return unreached(&err, args.submit_timeout),
        };
    let client = match blocking::Client::from_config(&config) {
        Ok(client) => client,
        Err(err) => return unreached(&err, args.submit_timeout),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| Path::new("/").to_path_buf());
    let request = action_request(args, &cwd);
    decide(
        &client,
        &request,
        Deadlines {
            submit: args.submit_timeout,
            total: args.wait,
        },
    )
}

/// The request for the command line's action, run from `cwd`.
pub fn action_request(args: &RequestArgs, cwd: &Path) -> ActionRequest {
    let words = args.command.clone();
    let mut action = Action {
        kind: args.kind,
        command: None,
        argv: None,
        cwd: cwd.to_string_lossy().into_owned(),
        paths: Vec::new(),
        network: Vec::new(),
        credential_scope: None,
        tool: None,
    };
    match args.kind {
        ActionKind::Shell => action.argv = Some(words),
        ActionKind::FileRead | ActionKind::FileWrite | ActionKind::FileDelete => {
            action.paths = words
        }
        ActionKind::Network => action.network = words,
        ActionKind::Credential => action.credential_scope = Some(words.join(" ")),
        ActionKind::Pr | ActionKind::Mcp | ActionKind::Other => action.tool = Some(words.join(" ")),
    }
    ActionRequest {
        run_id: args.run.clone(),
        task_id: args.task.clone().unwrap_or_else(|| args.run.clone()),
        requested_by: RequestedBy::Agent,
        idempotency_key: args.idempotency_key.clone(),
        action,
        context: ActionContext {
            repo: git_root(cwd).map(|p| p.to_string_lossy().into_owned()),
            ..ActionContext::default()
        },
        reason: args.reason.clone(),
    }
}

fn report(args: &RequestArgs, decided: &Decided, json_to_stdout: bool) {
    if args.json {
        let text = serde_json::to_string_pretty(decided).unwrap_or_else(|_| "{}".into());
        if json_to_stdout {
            println!("{text}");
        } else {
            eprintln!("{text}");
        }
    }
    if !matches!(decided.outcome, Outcome::Allowed { .. }) {
        eprintln!("{}", decided.outcome.reason());
    }
}
