//! What `assent request` and `assent exec` are asked on the command line: the flags, the
//! request they describe and the exit codes that answer it. `request`, `exec --capability`
//! and `request --exception` all read it; it reads none of them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assent_core::{Action, ActionContext, ActionKind, ActionRequest, RequestedBy};
use clap::Args;

use crate::gate::change::{base_commit, pr_history};
use crate::gate::outcome::{parse_seconds, Outcome};
use crate::gate::repo::git_root;
use crate::gate::ServiceArgs;

pub const EXIT_ALLOWED: u8 = 0;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_DENIED: u8 = 10;
pub const EXIT_BLOCKED: u8 = 11;
pub const EXIT_TIMED_OUT: u8 = 12;
pub const EXIT_UNAVAILABLE: u8 = 13;
/// The service is up and refused the token.
pub const EXIT_REFUSED: u8 = 14;
/// `exec`: the allowed command could not be started.
pub const EXIT_NOT_STARTED: u8 = 127;

#[derive(Debug, Clone, Args)]
pub struct RequestArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// The run this action belongs to (grants "for this run" are scoped to it).
    #[arg(long = "run", env = "ASSENT_RUN_ID", default_value = "cli", value_parser = non_empty)]
    pub run: String,
    /// The task id [default: the run id].
    #[arg(long = "task", env = "ASSENT_TASK_ID")]
    pub task: Option<String>,
    /// What kind of action: shell, file_read, file_write, file_delete, network, credential,
    /// pr, mcp, other. For file kinds the arguments are paths, for network targets.
    #[arg(long, default_value = "shell", value_parser = parse_kind)]
    pub kind: ActionKind,
    /// Longest wait for a person, in seconds (from the service's first answer: an auto or
    /// blocked action is answered whatever it is, `--wait 0` included).
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
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_lifetime)]
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

/// A word that is not empty or blank.
fn non_empty(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("must not be empty".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

/// A usage error in what the command line (or `$ASSENT_URL`) says about the service: a URL
/// that is not `http[s]://host[:port]`.
pub fn check_service(args: &RequestArgs) -> Result<(), String> {
    let url = args.service.url.clone().or_else(|| {
        std::env::var(assent_client::URL_ENV)
            .ok()
            .filter(|v| !v.trim().is_empty())
    });
    match url {
        Some(url) => assent_client::Endpoint::parse(&url)
            .map(|_| ())
            .map_err(|err| err.to_string()),
        None => Ok(()),
    }
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

/// A lifetime: `30d`, `12h`, `90m`, `45s` (or plain seconds).
pub fn parse_lifetime(text: &str) -> Result<i64, String> {
    let bad = || format!("{text:?} is not a duration: use e.g. 30d, 12h, 90m or 45s");
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let count: i64 = digits.parse().map_err(|_| bad())?;
    let per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 24 * 3600,
        _ => return Err(bad()),
    };
    match count.checked_mul(per) {
        Some(seconds) if seconds > 0 => Ok(seconds),
        _ => Err(format!("{text:?} must be a positive duration")),
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
        Outcome::Refused { .. } => EXIT_REFUSED,
    }
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

#[cfg(test)]
mod tests {
    use super::parse_lifetime;

    #[test]
    fn lifetimes_read_days_hours_minutes_and_seconds() {
        assert_eq!(parse_lifetime("30d"), Ok(30 * 24 * 3600), "days");
        assert_eq!(parse_lifetime("12h"), Ok(12 * 3600), "hours");
        assert_eq!(parse_lifetime("90m"), Ok(5400), "minutes");
        assert_eq!(parse_lifetime("45"), Ok(45), "plain seconds");
        for bad in ["", "d", "30x", "-3d", "0d", "3.5h", "99999999999999999d"] {
            assert!(parse_lifetime(bad).is_err(), "{bad:?} is refused");
        }
    }
}
