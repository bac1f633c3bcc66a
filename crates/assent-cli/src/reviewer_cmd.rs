//! `assent reviewer check`: one canned, harmless review through the configured endpoint —
//! what was sent, the verdict, and how long it took.

use std::path::PathBuf;
use std::process::ExitCode;

use assent_core::reviewer::request::review_document;
use assent_core::{evaluate, ActionRequest, Environment, Policy};
use assent_server::reviewer::Reviewer;
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum ReviewerCommand {
    /// Send one canned, harmless request (`npm test` in a scratch directory) to the
    /// configured reviewer and print what was sent, the verdict and the latency. Exit 0 when
    /// a valid verdict came back, 1 when the reviewer failed, 2 usage (no `[reviewer]`).
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The policy file with the `[reviewer]` section (default: `policy.toml` in the data dir).
    #[arg(long)]
    policy: Option<PathBuf>,
    /// The service's data directory (default: the platform's data dir + `/assent`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

pub fn run(cmd: ReviewerCommand) -> ExitCode {
    match cmd {
        ReviewerCommand::Check(args) => check(&args),
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("assent reviewer check: {message}");
    ExitCode::from(2)
}

fn check(args: &CheckArgs) -> ExitCode {
    let path = match (&args.policy, &args.data_dir) {
        (Some(path), _) => path.clone(),
        (None, Some(dir)) => dir.join("policy.toml"),
        (None, None) => match dirs::data_dir() {
            Some(dir) => dir.join("assent").join("policy.toml"),
            None => return usage("no data directory on this platform; pass --policy FILE"),
        },
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return usage(&format!("{}: {e}", path.display())),
    };
    let policy = match Policy::from_toml(&text) {
        Ok(policy) => policy,
        Err(e) => return usage(&format!("{}:{}: {}", path.display(), e.line, e.message)),
    };
    let Some(config) = policy.reviewer.clone() else {
        return usage(&format!(
            "{} has no [reviewer] section: nothing to check (see the README's \"A model \
             reviewer\")",
            path.display()
        ));
    };
    if let Some(name) = &config.key_env {
        if std::env::var_os(name).is_none() {
            eprintln!("note: {name} is not set in this environment; the call goes without a key");
        }
    }
    let request: ActionRequest = match serde_json::from_value(json!({
        "run_id": "reviewer-check", "task_id": "reviewer-check", "requested_by": "agent",
        "action": {"kind": "shell", "command": "npm test", "cwd": "/tmp/assent-reviewer-check"},
        "context": {},
        "reason": "assent reviewer check: a canned request; nothing runs",
    })) {
        Ok(request) => request,
        Err(e) => return usage(&format!("internal: the canned request does not read: {e}")),
    };
    let evaluation = match evaluate(&policy, &request, &Environment::new("/tmp")) {
        Ok(evaluation) => evaluation,
        Err(e) => {
            return usage(&format!(
                "internal: the canned request does not evaluate: {e}"
            ))
        }
    };
    let document = review_document(&evaluation, &request.reason, &[], None);
    let reviewer = match Reviewer::new(config.clone()) {
        Ok(reviewer) => reviewer,
        Err(e) => return usage(&format!("cannot make an HTTP client: {e}")),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return usage(&format!("cannot start a runtime: {e}")),
    };
    let review = runtime.block_on(reviewer.review(&document));
    println!(
        "Sent to {} ({} API, model {}, instructions {}), request sha256 {}:",
        config.api.endpoint(&config.url),
        config.api.as_str(),
        config.model,
        review.prompt_version,
        review.request_sha256
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&document).unwrap_or_default()
    );
    println!("Latency: {} ms", review.latency.as_millis());
    match review.result {
        Ok(verdict) => {
            println!(
                "Verdict: {} (risk {}, user authorized: {}): {}",
                verdict.outcome.as_str(),
                verdict.risk.as_str(),
                verdict.user_authorized.as_str(),
                verdict.rationale
            );
            ExitCode::SUCCESS
        }
        Err(failure) => {
            println!("No verdict: {failure}. With this reviewer, every prompt goes to a person.");
            ExitCode::from(1)
        }
    }
}
