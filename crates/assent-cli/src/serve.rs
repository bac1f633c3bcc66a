//! `assent serve`: runs the approval service alone.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use assent_core::Policy;
use assent_protocol::{APPROVER_TOKEN_FILE, DEFAULT_LISTEN, REQUESTER_TOKEN_FILE};
use assent_server::{App, Config};

use crate::reach::{Reach, ReachArgs, ReachError};

/// Arguments of `assent serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless you mean otherwise).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    listen: SocketAddr,
    /// Where the database and tokens live (default: the XDG data dir, e.g. ~/.local/share/assent).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// A policy TOML file extending the defaults.
    #[arg(long)]
    policy: Option<PathBuf>,
    /// `sqlite` (in the data dir, the default) or a `postgres://USER@HOST:PORT/NAME` URL shared
    /// by every replica. With a URL no token files are written: make identities with
    /// `assent people|agents add … --database URL`.
    /// (Parsed after clap, so a refused URL's password is never echoed.)
    #[arg(long, env = DATABASE_ENV, hide_env_values = true, default_value = "sqlite")]
    database: String,
    /// The Ed25519 key file signing the audit chain's checkpoints (default: `audit-key` in
    /// the data dir, created at first start). A team gives every replica the same file.
    #[arg(long)]
    audit_key: Option<PathBuf>,
    /// Also sign the audit chain's head every N events (besides every minute, at start and
    /// at shutdown); 0 signs by time only.
    #[arg(long, value_name = "N", default_value_t = assent_server::DEFAULT_CHECKPOINT_EVENTS)]
    audit_checkpoint_events: u64,
    /// Fsync every automated decision (the policy's own auto and block, the model reviewer's
    /// approvals) before answering it, not only those a person makes. By default they are
    /// committed before the answer (the service's crash loses none) and on disk within a
    /// quarter second; this makes each such answer wait for the disk.
    #[arg(long, env = "ASSENT_SYNC_POLICY_DECISIONS")]
    sync_policy_decisions: bool,
    #[command(flatten)]
    reach: ReachArgs,
}

/// The environment variable naming the database (`--database`).
pub const DATABASE_ENV: &str = "ASSENT_DATABASE_URL";

#[derive(Debug, thiserror::Error)]
enum ServeError {
    #[error("no data dir: pass --data-dir")]
    NoDataDir,
    #[error("cannot read {path}: {source}")]
    PolicyFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Policy {
        path: PathBuf,
        source: assent_core::PolicyError,
    },
    #[error("cannot start: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Database(#[from] assent_server::DatabaseChoiceError),
    #[error(transparent)]
    Launch(#[from] assent_server::LaunchError),
    #[error(transparent)]
    Reach(#[from] ReachError),
}

/// Runs the service until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> ExitCode {
    assent_server::logging::init("RUST_LOG");
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Reach(err)) if err.is_usage() => {
            eprintln!("assent serve: {err}");
            ExitCode::from(2)
        }
        Err(err) => {
            eprintln!("assent serve: {err}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), ServeError> {
    let reach = Reach::check(args.listen, &args.reach)?;
    let data_dir = match args.data_dir {
        Some(dir) => dir,
        None => dirs::data_dir()
            .ok_or(ServeError::NoDataDir)?
            .join("assent"),
    };
    let policy = match &args.policy {
        None => Policy::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| ServeError::PolicyFile {
                path: path.clone(),
                source,
            })?;
            Policy::from_toml(&text).map_err(|source| ServeError::Policy {
                path: path.clone(),
                source,
            })?
        }
    };
    let database: assent_server::Database = args.database.parse()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|source| ServeError::Listen {
                addr: args.listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(ServeError::Runtime)?;
        let mut config = Config::new(&data_dir, policy);
        config.policy_path = args.policy;
        config.public_url = reach.public_url.clone();
        config.tls = reach.tls.clone();
        config.database = database;
        config.audit_key = args.audit_key;
        config.audit_checkpoint_events = args.audit_checkpoint_events;
        config.sync_policy_decisions = args.sync_policy_decisions;
        let app = App::open(config).await?;
        reach.warn_exposure(addr);
        println!("assent: listening on {}://{addr}", reach.scheme());
        print_credentials(&app, &data_dir, &reach.client_url(addr));
        app.serve(listener, shutdown_signal()).await?;
        Ok(())
    })
}

/// Where agents and people find their tokens.
fn print_credentials(app: &App, data_dir: &std::path::Path, client_url: &str) {
    if app.tokens().is_none() {
        println!(
            "assent: identities live in the database; make them with \
             `assent people add NAME --role ROLE --database URL` and `assent agents add NAME --database URL`"
        );
        return;
    }
    println!(
        "assent: requester token {}",
        data_dir.join(REQUESTER_TOKEN_FILE).display()
    );
    println!(
        "assent: approver token  {} (the person `owner`; add people with `assent people add`)",
        data_dir.join(APPROVER_TOKEN_FILE).display()
    );
    println!("assent: agents use ASSENT_URL={client_url} ASSENT_TOKEN=$(cat <requester token>)");
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
