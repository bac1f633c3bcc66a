//! `assent request --exception RULE --reason "…" [--for 30d] [--repo R] -- CMD`: asks a
//! security reviewer to let the command past a policy rule in one repository, for up to the
//! policy's `max_exception_lifetime`. Bad input is a usage error (exit 2) with the reason —
//! locally (no reason, a bad duration) or from the service (an unknown rule, one the command
//! does not trigger, a lifetime past the policy's bound); a rule the policy keeps out of
//! exceptions is blocked at once (exit 11) with the reason, never a prompt.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use assent_client::{blocking, ClientConfig, ClientError};
use assent_core::{ActionRequest, ExceptionAsk};

use crate::gate::outcome::{answered, unreached, wait_for_person, Decided};
use crate::request_args::{RequestArgs, EXIT_USAGE};

/// The checks that need no service: the flags that only go with `--exception`, a reason.
pub fn check_args(args: &RequestArgs) -> Result<(), String> {
    if args.exception.is_none() {
        if args.lifetime.is_some() || args.repo.is_some() || !args.hosts.is_empty() {
            return Err("--for, --repo and --host go with --exception RULE".to_owned());
        }
        return Ok(());
    }
    if args.reason.trim().is_empty() {
        return Err(
            "an exception needs a reason: --reason \"why this must go past the rule\"".to_owned(),
        );
    }
    Ok(())
}

/// Puts the exception (rule, lifetime, repository) on `request`, asked from `cwd`.
pub fn attach(args: &RequestArgs, request: &mut ActionRequest, cwd: &Path) {
    let Some(rule) = &args.exception else {
        return;
    };
    request.context.exception = Some(ExceptionAsk {
        rule: rule.clone(),
        lifetime_seconds: args.lifetime,
        hosts: args.hosts.clone(),
    });
    if let Some(repo) = &args.repo {
        let path = cwd.join(repo);
        request.context.repo = Some(match std::fs::canonicalize(&path) {
            Ok(dir) if dir.is_dir() => dir.to_string_lossy().into_owned(),
            // A name the policy knows the repository by.
            _ => repo.clone(),
        });
    }
}

/// Submits the exception request and waits for the security reviewer.
pub fn submit(args: &RequestArgs, request: &ActionRequest) -> Result<Decided, ExitCode> {
    let config =
        match ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref()) {
            Ok(config) => config,
            Err(err) => return Ok(unreached(&err, args.submit_timeout)),
        };
    let client = match blocking::Client::from_config(&config) {
        Ok(client) => client,
        Err(err) => return Ok(unreached(&err, args.submit_timeout)),
    };
    // `--wait` bounds the wait for the reviewer alone, from the submit's answer.
    let submitted = match client.submit(request, Instant::now() + args.submit_timeout) {
        Ok(submitted) => submitted,
        Err(ClientError::Api {
            status: 400,
            message,
            ..
        }) => {
            eprintln!("assent: the exception is refused: {message}");
            return Err(ExitCode::from(EXIT_USAGE));
        }
        Err(err) => return Ok(unreached(&err, args.submit_timeout)),
    };
    Ok(match answered(&submitted) {
        Some(outcome) => Decided {
            outcome,
            submit: Some(submitted),
            approval: None,
        },
        None => wait_for_person(&client, submitted, Instant::now() + args.wait, args.wait),
    })
}
