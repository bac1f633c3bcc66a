//! `assent request` and `assent exec`: the gate for any agent or script.
//!
//! `request` submits one action and waits for the outcome; `exec` also runs the command when
//! (and only when) it is allowed — the seed's `guardedExecute`. Exit codes are the contract:
//! 0 allowed, 10 denied, 11 blocked, 12 timed out, 13 unavailable, 2 usage; `exec` passes the
//! command's own code through when it ran (127 when it could not be started).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use assent_client::{blocking, ClientConfig};
use assent_core::diff::ChangeSet;
use assent_core::{Action, ActionContext, ActionKind, ActionRequest, RequestedBy};
use clap::Args;

use crate::gate::change::{base_commit, pr_history};
use crate::gate::outcome::{decide, parse_seconds, unreached, Deadlines, Decided, Outcome};
use crate::gate::repo::git_root;
use crate::gate::ServiceArgs;

pub const EXIT_ALLOWED: u8 = 0;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_DENIED: u8 = 10;
pub const EXIT_BLOCKED: u8 = 11;
pub const EXIT_TIMED_OUT: u8 = 12;
pub const EXIT_UNAVAILABLE: u8 = 13;
/// Largest `--diff` read (bytes): what is sent is cut at 256 KiB, the fingerprint covers all.
const MAX_DIFF_INPUT_BYTES: u64 = 16 * 1024 * 1024;
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
    /// The commit the action is based on [default: HEAD of the repository around the
    /// working directory, when there is one]. Grants bound to it stop covering when it moves.
    #[arg(long, value_name = "SHA", value_parser = parse_sha)]
    pub base_sha: Option<String>,
    /// A unified diff of the change (`-` reads stdin), sent as evidence (masked, cut at
    /// 256 KiB with a note); grants bind to the SHA-256 of the whole diff.
    #[arg(long, value_name = "FILE")]
    pub diff: Option<PathBuf>,
    /// Print the full outcome as JSON (stdout for `request`, stderr for `exec`).
    #[arg(long)]
    pub json: bool,
    /// `exec` only: run the command with this credential capability of the policy (the
    /// service releases its secret into the command's environment only, output masked).
    #[arg(long)]
    pub capability: Option<String>,
    /// `request` only: ask a security reviewer for an exception to this policy rule
    /// (`ask.network`, a block the policy marks exceptionable): the command may go past it in
    /// the repository, in every run, for `--for`. Needs `--reason`.
    #[arg(long, value_name = "RULE")]
    pub exception: Option<String>,
    /// How long the exception lasts: `30d`, `12h`, `90m` [default: the policy's
    /// max_exception_lifetime; longer is refused].
    #[arg(long = "for", value_name = "DURATION", value_parser = crate::exception::parse_lifetime)]
    pub lifetime: Option<i64>,
    /// The repository the exception holds in (a path, or a name the policy knows) [default:
    /// the repository around the working directory].
    #[arg(long, value_name = "REPO")]
    pub repo: Option<String>,
    /// Hold the exception for this host instead of this one command (repeat it for each host
    /// the command reaches): any command of this kind reaching only these hosts is covered.
    #[arg(long = "host", value_name = "HOST")]
    pub hosts: Vec<String>,
    /// The command (or paths, URLs, tool name for other kinds).
    #[arg(last = true, required = true, num_args = 1..)]
    pub command: Vec<String>,
}

/// A commit id: 4 to 64 hex digits (abbreviated or full).
fn parse_sha(text: &str) -> Result<String, String> {
    let valid = (4..=64).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit());
    if valid {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!("{text:?} is not a commit id (4 to 64 hex digits)"))
    }
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
    if let Err(why) = crate::exception::check_args(args) {
        eprintln!("assent: {why}");
        return ExitCode::from(EXIT_USAGE);
    }
    let request = match request_here(args) {
        Ok(request) => request,
        Err(code) => return code,
    };
    let decided = if args.exception.is_some() {
        match crate::exception::submit(args, &request) {
            Ok(decided) => decided,
            Err(code) => return code,
        }
    } else {
        submit(args, &request)
    };
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
    if args.exception.is_some() || args.lifetime.is_some() || args.repo.is_some() {
        eprintln!("an exception is asked for with `assent request --exception RULE … -- CMD`");
        return ExitCode::from(EXIT_USAGE);
    }
    let request = match request_here(args) {
        Ok(request) => request,
        Err(code) => return code,
    };
    let decided = submit(args, &request);
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

/// The request for the command line, run from the working directory, with its diff; a
/// usage error (exit 2, the reason on stderr) when the diff cannot be read.
fn request_here(args: &RequestArgs) -> Result<ActionRequest, ExitCode> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| Path::new("/").to_path_buf());
    let mut request = action_request(args, &cwd);
    crate::exception::attach(args, &mut request, &cwd);
    if let Some(file) = &args.diff {
        let diff = read_diff(file).map_err(|why| {
            eprintln!("assent: --diff {}: {why}", file.display());
            ExitCode::from(EXIT_USAGE)
        })?;
        let mut set = ChangeSet::new();
        set.push_raw(&diff);
        set.attach(&mut request.context);
    }
    Ok(request)
}

/// The diff in `file` (`-`: stdin), at most [`MAX_DIFF_INPUT_BYTES`], as text.
fn read_diff(file: &Path) -> Result<String, String> {
    let mut bytes = Vec::new();
    let limit = MAX_DIFF_INPUT_BYTES + 1;
    let read = if file == Path::new("-") {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(file)
            .map_err(|err| format!("cannot open it: {err}"))?
            .take(limit)
            .read_to_end(&mut bytes)
    };
    read.map_err(|err| format!("cannot read it: {err}"))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_DIFF_INPUT_BYTES {
        return Err(format!(
            "larger than {} MiB",
            MAX_DIFF_INPUT_BYTES / (1024 * 1024)
        ));
    }
    if bytes.is_empty() {
        return Err("it is empty".to_owned());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text (a binary diff?)".to_owned())
}

fn submit(args: &RequestArgs, request: &ActionRequest) -> Decided {
    let config =
        match ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref()) {
            Ok(config) => config,
            Err(err) => return unreached(&err, args.submit_timeout),
        };
    let client = match blocking::Client::from_config(&config) {
        Ok(client) => client,
        Err(err) => return unreached(&err, args.submit_timeout),
    };
    decide(
        &client,
        request,
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
    let root = git_root(cwd);
    let context = ActionContext {
        repo: root.as_ref().map(|p| p.to_string_lossy().into_owned()),
        base_sha: args.base_sha.clone(),
        ..ActionContext::default()
    };
    let mut request = ActionRequest {
        run_id: args.run.clone(),
        task_id: args.task.clone().unwrap_or_else(|| args.run.clone()),
        requested_by: RequestedBy::Agent,
        idempotency_key: args.idempotency_key.clone(),
        action,
        context,
        reason: args.reason.clone(),
    };
    if let (None, Some(root)) = (&args.base_sha, &root) {
        base_commit(&mut request.context, root);
        pr_history(&mut request, root);
    }
    request
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
