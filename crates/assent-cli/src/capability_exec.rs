//! `assent exec --capability NAME -- CMD`: run a command with a credential capability.
//!
//! The request is a credential approval of the capability for this command (never the
//! secret). Once it is allowed, the service releases the secret for this one execution; it
//! goes into the child's environment only (as the capability's `inject_as`), and the child's
//! stdout and stderr are masked for it, as they stream, before the agent sees them.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use assent_client::{blocking, ClientConfig, ClientError};
use assent_core::secret_stream::SecretStream;
use assent_core::ActionKind;

use crate::gate::outcome::{decide, unreached, Deadlines, Decided, Outcome};
use crate::request_args::{
    action_request, child_code, exit_code, RequestArgs, EXIT_DENIED, EXIT_NOT_STARTED,
    EXIT_UNAVAILABLE, EXIT_USAGE,
};

/// `assent exec --capability NAME`.
pub fn run(args: &RequestArgs, capability: &str) -> ExitCode {
    if args.kind != ActionKind::Shell {
        eprintln!("assent exec --capability runs a command: leave out --kind");
        return ExitCode::from(EXIT_USAGE);
    }
    let client = match client(args) {
        Ok(client) => client,
        Err(err) => return finish_early(args, &unreached(&err, args.submit_timeout)),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| Path::new("/").to_path_buf());
    let mut request = action_request(args, &cwd);
    request.action.kind = ActionKind::Credential;
    request.action.credential_scope = Some(capability.to_owned());
    let key = request
        .idempotency_key
        .get_or_insert_with(|| format!("exec-{}", uuid::Uuid::new_v4()))
        .clone();
    // A first submit tells a refused request (an unknown capability) from an unreachable
    // service; `decide` then replays the same answer (same key) and waits for a person.
    if let Err(err) = client.submit(&request, Instant::now() + args.submit_timeout) {
        if let ClientError::Api {
            status: 400,
            message,
            ..
        } = &err
        {
            eprintln!("assent exec: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
        return finish_early(args, &unreached(&err, args.submit_timeout));
    }
    let deadlines = Deadlines::person(args.submit_timeout, args.wait);
    let decided = decide(&client, &request, deadlines);
    if args.json {
        eprintln!(
            "{}",
            serde_json::to_string_pretty(&decided).unwrap_or_else(|_| "{}".into())
        );
    }
    if !matches!(decided.outcome, Outcome::Allowed { .. }) {
        return finish_early(args, &decided);
    }
    let deadline = Instant::now() + args.submit_timeout;
    let released = match client.release_credential(&args.run, &key, deadline) {
        Ok(released) => released,
        Err(err) => {
            eprintln!("assent exec: the secret of {capability} was not released: {err}");
            let conflict = matches!(err, ClientError::Api { status: 409, .. });
            return ExitCode::from(if conflict {
                EXIT_DENIED
            } else {
                EXIT_UNAVAILABLE
            });
        }
    };
    run_masked(&args.command, &released.inject_as, &released.value)
}

fn client(args: &RequestArgs) -> Result<blocking::Client, ClientError> {
    let config = ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref())?;
    blocking::Client::from_config(&config)
}

fn finish_early(args: &RequestArgs, decided: &Decided) -> ExitCode {
    if args.json && decided.submit.is_none() {
        eprintln!(
            "{}",
            serde_json::to_string_pretty(decided).unwrap_or_else(|_| "{}".into())
        );
    }
    eprintln!("{}", decided.outcome.reason());
    ExitCode::from(exit_code(&decided.outcome))
}

/// Runs `command` with `var=value` in its environment only, its output masked for `value`.
fn run_masked(command: &[String], var: &str, value: &str) -> ExitCode {
    let Some((program, rest)) = command.split_first() else {
        return ExitCode::from(EXIT_USAGE);
    };
    let spawned = Command::new(program)
        .args(rest)
        .env(var, value)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            eprintln!("assent exec: cannot start {program}: {err}");
            return ExitCode::from(EXIT_NOT_STARTED);
        }
    };
    let out = child.stdout.take().map(|pipe| {
        let mask = SecretStream::new(value.as_bytes());
        std::thread::spawn(move || copy_masked(pipe, std::io::stdout(), mask))
    });
    let err = child.stderr.take().map(|pipe| {
        let mask = SecretStream::new(value.as_bytes());
        std::thread::spawn(move || copy_masked(pipe, std::io::stderr(), mask))
    });
    let status = child.wait();
    for copier in [out, err].into_iter().flatten() {
        let _ = copier.join();
    }
    match status {
        Ok(status) => ExitCode::from(child_code(status)),
        Err(err) => {
            eprintln!("assent exec: lost {program}: {err}");
            ExitCode::from(EXIT_NOT_STARTED)
        }
    }
}

/// Copies `from` to `to` as it arrives, masked; a closed `to` ends the copy.
fn copy_masked(mut from: impl Read, mut to: impl Write, mut mask: SecretStream) {
    let mut buffer = [0u8; 8192];
    loop {
        let chunk = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => buffer.get(..n).unwrap_or_default(),
        };
        let shown = mask.push(chunk);
        if to.write_all(&shown).and_then(|()| to.flush()).is_err() {
            return;
        }
    }
    let _ = to.write_all(&mask.finish());
    let _ = to.flush();
}
