//! `assent policy eval | show | check`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use assent_core::Policy;
use assent_protocol::DEFAULT_LISTEN;
use assent_server::environment::{environment, OwnFiles};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Evaluate JSON lines from stdin (Claude Code hook payloads, action requests or bare
    /// actions such as `{"kind":"shell","command":"ls","cwd":"/repo"}`), one JSON answer per
    /// line.
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
        audit_key: None,
        port: DEFAULT_LISTEN.parse::<SocketAddr>().ok().map(|a| a.port()),
        public_host: None,
    };
    let env = environment(&home_dir(), own);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    crate::policy_eval::eval_lines(policy, &env, stdin.lock(), stdout.lock())
}

fn home_dir() -> String {
    dirs::home_dir()
        .map(|h| h.display().to_string())
        .filter(|h| h.starts_with('/'))
        .unwrap_or_else(|| "/".to_owned())
}
