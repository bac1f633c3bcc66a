//! `assent request` and `assent exec`: the gate for any agent or script.
//!
//! `request` submits one action and waits for the outcome; `exec` also runs the command when
//! (and only when) it is allowed — the seed's `guardedExecute`. Exit codes are the contract:
//! 0 allowed, 10 denied, 11 blocked, 12 timed out, 13 unavailable, 14 token refused, 2 usage;
//! `exec` passes the command's own code through when it ran (127 when it could not be started).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use assent_client::{blocking, ClientConfig};
use assent_core::diff::ChangeSet;
use assent_core::{ActionKind, ActionRequest};

use crate::gate::outcome::{decide, unreached, Deadlines, Decided, Outcome};
use crate::request_args::{
    action_request, check_service, child_code, exit_code, RequestArgs, EXIT_NOT_STARTED, EXIT_USAGE,
};

/// Largest `--diff` read (bytes): what is sent is cut at 256 KiB, the fingerprint covers all.
const MAX_DIFF_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// `assent request`.
pub fn run_request(args: &RequestArgs) -> ExitCode {
    if let Err(why) = check_service(args) {
        eprintln!("assent: {why}");
        return ExitCode::from(EXIT_USAGE);
    }
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
    if let Err(why) = check_service(args) {
        eprintln!("assent: {why}");
        return ExitCode::from(EXIT_USAGE);
    }
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
        Deadlines::person(args.submit_timeout, args.wait),
    )
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
