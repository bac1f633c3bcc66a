//! `assent audit key|verify|export`: the audit chain read from the store directly (the data
//! dir's SQLite file or a team's PostgreSQL, like `assent people`), or from an export, so it
//! can be checked away from the service (docs/security.md, "The audit chain").

use std::path::PathBuf;
use std::process::ExitCode;

use assent_server::audit_chain::{
    self, public_from_hex, AuditKey, Break, ExportError, Report, KEY_FILE,
};
use assent_server::{PgStore, SqliteStore, Store, StoreError};
use chrono::{DateTime, Utc};

#[derive(Debug, clap::Subcommand)]
pub enum AuditCommand {
    /// Print the public key that signs this service's checkpoints (hex) and its key id.
    Key {
        #[command(flatten)]
        keys: KeyArgs,
    },
    /// Walk the chain and its checkpoints; exit 0 only when every link, checkpoint and
    /// execution's cover holds, 1 when something is broken (each break is printed), 2 on error.
    Verify {
        #[command(flatten)]
        source: Source,
        /// An export (`assent audit export`, JSONL or CSV) instead of the database.
        #[arg(long, conflicts_with_all = ["data_dir", "database"])]
        from: Option<PathBuf>,
        #[command(flatten)]
        keys: KeyArgs,
        /// The report as JSON (what `GET /v1/audit/verify` answers).
        #[arg(long)]
        json: bool,
    },
    /// Write the events with their links, and the checkpoints, to stdout (streamed).
    Export {
        #[command(flatten)]
        source: Source,
        /// From the first event at or after this time (RFC 3339) to the end.
        #[arg(long)]
        since: Option<DateTime<Utc>>,
        #[arg(long, value_enum, default_value = "jsonl")]
        format: Format,
    },
}

/// Where the store is.
#[derive(Debug, Clone, clap::Args)]
pub struct Source {
    /// The service's data dir (default: the XDG data dir, e.g. ~/.local/share/assent).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// A team service's PostgreSQL (`postgres://…`) instead of the data dir's SQLite.
    #[arg(long, env = crate::serve::DATABASE_ENV, hide_env_values = true)]
    database: Option<String>,
}

/// Which public keys check the checkpoints.
#[derive(Debug, Clone, clap::Args)]
pub struct KeyArgs {
    /// A public key (hex, from `assent audit key`); repeatable. Default: the key file's.
    #[arg(long = "key")]
    public: Vec<String>,
    /// The checkpoint key file (default: `audit-key` in the data dir).
    #[arg(long)]
    audit_key: Option<PathBuf>,
    /// The data dir whose `audit-key` to read (for `key`, and `verify --from`).
    #[arg(long = "key-dir")]
    key_dir: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
enum AuditError {
    #[error("no data dir: pass --data-dir")]
    NoDataDir,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Key(#[from] audit_chain::KeyError),
    #[error("not a public key (64 hex digits): {0}")]
    PublicKey(String),
    #[error(transparent)]
    Database(#[from] assent_server::DatabaseChoiceError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

pub fn run(cmd: AuditCommand) -> ExitCode {
    let outcome = match cmd {
        AuditCommand::Key { keys } => key(&keys, None).map(|()| ExitCode::SUCCESS),
        AuditCommand::Verify {
            source,
            from,
            keys,
            json,
        } => verify(&source, from, &keys, json),
        AuditCommand::Export {
            source,
            since,
            format,
        } => export(&source, since, format).map(|()| ExitCode::SUCCESS),
    };
    outcome.unwrap_or_else(|err| {
        eprintln!("assent audit: {err}");
        ExitCode::from(2)
    })
}

fn key_path(keys: &KeyArgs, source: Option<&Source>) -> Result<PathBuf, AuditError> {
    if let Some(path) = &keys.audit_key {
        return Ok(path.clone());
    }
    let dir = keys
        .key_dir
        .clone()
        .or_else(|| source.and_then(|s| s.data_dir.clone()));
    match dir {
        Some(dir) => Ok(dir.join(KEY_FILE)),
        None => Ok(assent_client::default_data_dir()
            .ok_or(AuditError::NoDataDir)?
            .join(KEY_FILE)),
    }
}

fn key(keys: &KeyArgs, source: Option<&Source>) -> Result<(), AuditError> {
    let key = AuditKey::load(&key_path(keys, source)?)?;
    println!("{}", key.public_hex());
    eprintln!("key id {}", key.key_id());
    Ok(())
}

/// The public keys: those given, else the key file's (none when it is absent: then no
/// checkpoint's signature holds).
fn public_keys(
    keys: &KeyArgs,
    source: Option<&Source>,
) -> Result<Vec<ed25519_dalek::VerifyingKey>, AuditError> {
    if !keys.public.is_empty() {
        return keys
            .public
            .iter()
            .map(|hex| public_from_hex(hex).ok_or_else(|| AuditError::PublicKey(hex.clone())))
            .collect();
    }
    match AuditKey::load(&key_path(keys, source)?) {
        Ok(key) => Ok(vec![key.public()]),
        Err(_) => Ok(Vec::new()),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, AuditError> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

async fn open(source: &Source) -> Result<Box<dyn Store>, AuditError> {
    let database = source
        .database
        .as_deref()
        .map(str::parse::<assent_server::Database>)
        .transpose()?;
    if let Some(assent_server::Database::Postgres(url)) = database {
        return Ok(Box::new(PgStore::open(&url).await?));
    }
    let dir = match &source.data_dir {
        Some(dir) => dir.clone(),
        None => assent_client::default_data_dir().ok_or(AuditError::NoDataDir)?,
    };
    Ok(Box::new(SqliteStore::open(&dir.join("assent.db")).await?))
}

fn verify(
    source: &Source,
    from: Option<PathBuf>,
    keys: &KeyArgs,
    json: bool,
) -> Result<ExitCode, AuditError> {
    let from_export = from.is_some();
    let public = public_keys(keys, (!from_export).then_some(source))?;
    let report = match from {
        Some(path) => audit_chain::verify_export(&path, &public)?,
        None => runtime()?.block_on(async {
            let store = open(source).await?;
            let report = audit_chain::verify(store.as_ref(), &public).await;
            store.close().await;
            Ok::<_, AuditError>(report?)
        })?,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn render(report: &Report) -> String {
    let mut out = String::new();
    for b in &report.breaks {
        out.push_str(&format!("BROKEN {}\n", describe(b)));
    }
    out.push_str(&format!(
        "{}: {} events linked (head {} {}), {} checkpoints (the last signs event {}; \
         events after it are not yet signed), {} events from before the chain started \
         (fixed by its signed start record, not covered)\n",
        if report.ok { "OK" } else { "BROKEN" },
        report.events,
        report.head_seq,
        report.head_hash.get(..16).unwrap_or_default(),
        report.checkpoints,
        report.last_checkpoint_seq,
        report.before_chain,
    ));
    out
}

fn describe(b: &Break) -> String {
    match b {
        Break::Changed {
            chain_seq,
            event_id,
        } => format!("event {chain_seq} ({event_id}) was changed: its hash is not the hash of what it holds"),
        Break::Missing { after, found } => {
            format!("events missing after {after}: the next one is {found}")
        }
        Break::Relinked {
            chain_seq,
            event_id,
        } => format!(
            "event {chain_seq} ({event_id}) does not follow the event before it (moved, swapped or forged)"
        ),
        Break::Unlinked { event_id } => {
            format!("event {event_id} has no link: inserted outside the service")
        }
        Break::Checkpoint { id, why } => format!("checkpoint {id} no longer matches: {why}"),
        Break::Signature { id, key_id } => {
            format!("checkpoint {id}: its signature does not verify with key {key_id}")
        }
        Break::Uncovered {
            chain_seq,
            event_id,
        } => format!(
            "event {chain_seq} ({event_id}): an execution no auto decision, grant or approval covered"
        ),
        Break::BeforeChain { event_id, why } => {
            format!("event {event_id} from before the chain: {why}")
        }
        Break::ChainStart { why } => {
            format!("the signed record of the events before the chain: {why}")
        }
    }
}

fn export(source: &Source, since: Option<DateTime<Utc>>, format: Format) -> Result<(), AuditError> {
    runtime()?.block_on(async {
        let store = open(source).await?;
        let stdout = std::io::stdout();
        let out = std::io::BufWriter::new(stdout.lock());
        let outcome = audit_chain::export(store.as_ref(), since, format.into(), out).await;
        store.close().await;
        Ok(outcome?)
    })
}

/// `--format`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Jsonl,
    Csv,
}

impl From<Format> for audit_chain::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Jsonl => audit_chain::Format::Jsonl,
            Format::Csv => audit_chain::Format::Csv,
        }
    }
}
