//! `assent policy eval | show | check`.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use assent_core::{
    action_from_claude_hook, evaluate, is_claude_hook, ActionRequest, Environment, HookDefaults,
    Policy,
};
use assent_protocol::DEFAULT_LISTEN;
use assent_server::environment::{environment, OwnFiles};
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Evaluate JSON lines from stdin (Claude Code hook payloads or native action requests),
    /// one JSON answer per line.
    Eval {
        /// A policy file extending the defaults.
        #[arg(long)]
        policy: Option<PathBuf>,
    },
    /// Print the effective policy as TOML.
    Show {
        #[arg(long)]
        policy: Option<PathBuf>,
    },
    /// Validate a policy file; errors carry line numbers.
    Check { file: PathBuf },
    /// Propose policy changes from what people decided (`--apply` writes them, audited).
    Suggest(crate::suggest::SuggestArgs),
}

/// Why a policy file could not be used.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: String,
        line: usize,
        message: String,
    },
}

pub fn run(cmd: PolicyCommand) -> ExitCode {
    let outcome = match cmd {
        PolicyCommand::Eval { policy } => {
            load(policy.as_deref()).map(|p| eval_stdin(&p, policy.as_deref()))
        }
        PolicyCommand::Show { policy } => load(policy.as_deref()).map(|p| {
            print!("{}", p.to_toml());
            ExitCode::SUCCESS
        }),
        PolicyCommand::Check { file } => load(Some(&file)).map(|p| {
            println!("{}: ok (policy version {})", file.display(), p.version());
            ExitCode::SUCCESS
        }),
        PolicyCommand::Suggest(args) => return crate::suggest::run(args),
    };
    outcome.unwrap_or_else(|err| {
        eprintln!("assent policy: {err}");
        ExitCode::from(2)
    })
}

fn load(path: Option<&Path>) -> Result<Policy, LoadError> {
    let Some(path) = path else {
        return Ok(Policy::default());
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
        path: shown.clone(),
        source,
    })?;
    Policy::from_toml(&text).map_err(|e| LoadError::Invalid {
        path: shown,
        line: e.line,
        message: e.message,
    })
}

fn eval_stdin(policy: &Policy, policy_file: Option<&Path>) -> ExitCode {
    // Symlinks are resolved on the machine `eval` runs on, and Assent's own files are where a
    // service started here with this policy keeps them, as the service does.
    let own = OwnFiles {
        data_dir: None,
        policy_file,
        port: DEFAULT_LISTEN.parse::<SocketAddr>().ok().map(|a| a.port()),
    };
    let env = environment(&home_dir(), own);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for (index, line) in stdin.lock().lines().enumerate() {
        let number = index + 1;
        let answer = match line {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => answer_line(policy, &env, &text),
            Err(e) => Err(format!("unreadable input: {e}")),
        };
        let value = answer.unwrap_or_else(|message| {
            failed = true;
            json!({ "error": { "line": number, "message": message } })
        });
        if writeln!(out, "{value}").is_err() {
            return ExitCode::from(2);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn answer_line(policy: &Policy, env: &Environment, text: &str) -> Result<Value, String> {
    let payload: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let request = to_request(payload)?;
    let eval = evaluate(policy, &request, env).map_err(|e| e.to_string())?;
    let d = &eval.decision;
    Ok(json!({
        "decision": d.decision,
        "risk": d.risk,
        "reasons": d.reasons,
        "rule": d.rule,
        "required_role": d.required_role,
        "profile": d.profile,
        "action_hash": eval.action_hash,
        "batch_key": eval.batch_key,
    }))
}

fn to_request(payload: Value) -> Result<ActionRequest, String> {
    if is_claude_hook(&payload) {
        let cwd = payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let defaults = HookDefaults {
            repo: cwd.as_deref().and_then(git_root),
            ..HookDefaults::default()
        };
        return action_from_claude_hook(&payload, &defaults).map_err(|e| e.to_string());
    }
    serde_json::from_value(payload)
        .map_err(|e| format!("neither a Claude Code hook payload nor an action request: {e}"))
}

/// The enclosing git work tree of `cwd`, if any.
fn git_root(cwd: &str) -> Option<String> {
    Path::new(cwd)
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(|dir| dir.display().to_string())
}

fn home_dir() -> String {
    dirs::home_dir()
        .map(|h| h.display().to_string())
        .filter(|h| h.starts_with('/'))
        .unwrap_or_else(|| "/".to_owned())
}
