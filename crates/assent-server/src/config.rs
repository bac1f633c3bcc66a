//! How the service is set up: where it keeps its data, which policy, which clock, its tokens.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use assent_core::IdentityKind;
use assent_core::Policy;
use assent_protocol::{APPROVER_TOKEN_FILE, REQUESTER_TOKEN_FILE};

use crate::public_url::PublicUrl;
use crate::tls::ServerTls;
use crate::token::new_token;

use crate::clock::{Clock, SystemClock};

/// Everything [`crate::launch`] needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Holds `assent.db` and the two token files.
    pub data_dir: PathBuf,
    pub policy: Policy,
    /// The file `policy` was read from: agents are blocked from it, the service reloads it
    /// when it changes and writes applied suggestions into it. Without one, `policy.toml` in
    /// the data dir (loaded at start when it exists, created by the first applied suggestion).
    pub policy_path: Option<PathBuf>,
    /// How often the service checks whether the policy file changed (one `stat`).
    pub policy_recheck: Duration,
    pub clock: Arc<dyn Clock>,
    /// The user's home directory, for `~` in actions.
    pub home: String,
    /// A client further behind than this many events gets `reset` instead of a replay.
    pub replay_limit: i64,
    /// Interval of the `:heartbeat` comment on `/v1/events`.
    pub heartbeat: Duration,
    /// The longest the expiry sweeper sleeps. It sleeps until the next deadline and is woken
    /// when an earlier one appears; this cap only bounds the damage of a missed wake-up (or of
    /// a machine suspended mid-sleep). Expiry is checked on every match regardless.
    pub expiry_recheck: Duration,
    /// The desktop's embedded mode: the owner's token is made fresh at each start and held
    /// only in memory (no `approver.token` on disk for an agent to read).
    pub owner_in_memory: bool,
    /// Where the state lives: SQLite in `data_dir` (the default) or a shared PostgreSQL.
    pub database: Database,
    /// The URL a team reaches the service at: its host is served besides loopback names.
    pub public_url: Option<PublicUrl>,
    /// Serve HTTPS with this certificate and key instead of plain HTTP.
    pub tls: Option<ServerTls>,
    /// The Ed25519 key that signs the audit chain's checkpoints; `audit-key` in the data dir
    /// unless given (each replica of a team keeps its own: checkpoints name the key id).
    pub audit_key: Option<PathBuf>,
    /// How often the head of the audit chain is signed (and always at start and shutdown).
    pub audit_checkpoint_every: Duration,
    /// The head is also signed every this many events, in the transaction that reaches a
    /// multiple of it (0: by time only).
    pub audit_checkpoint_events: u64,
    /// Fsync the automated decisions (the policy's own auto and block, the model reviewer's
    /// approvals) before answering them, as everything a person decides always is. Off by
    /// default: they are committed before the answer (a crash of the service loses none) and
    /// reach the disk within a quarter second (SQLite's checkpointer; PostgreSQL's WAL
    /// writer) — power lost in between loses those records whole (a reviewer's approval lost
    /// leaves its prompt pending for a person), and for the policy's no more than the tool
    /// calls they allowed wrote to disk meanwhile.
    pub sync_policy_decisions: bool,
    /// How a failed Web Push is tried again (attempts, first wait; waits run on `clock`).
    pub push_retry: crate::push::Retry,
    /// How long one webhook delivery attempt may take (connecting included) before it
    /// counts as failed and is retried.
    pub webhook_timeout: Duration,
    /// How webhook hosts are resolved before their addresses are checked (tests: a stub).
    pub webhook_resolver: Arc<dyn crate::webhooks::Resolver>,
}

/// The audit chain's head is signed at least every this many events by default.
pub const DEFAULT_CHECKPOINT_EVENTS: u64 = 1_000;

/// Where the service keeps its state.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum Database {
    /// `assent.db` in the data dir, with the two token files beside it.
    #[default]
    Sqlite,
    /// A `postgres://` URL shared by every replica; identities come from `assent people|agents
    /// add --database URL`, no token files are written.
    Postgres(String),
}

/// A database choice that is neither `sqlite` nor a PostgreSQL URL.
#[derive(Debug, thiserror::Error)]
#[error("the database must be `sqlite` or a postgres://USER@HOST:PORT/NAME URL, not {0:?}")]
pub struct DatabaseChoiceError(String);

impl std::str::FromStr for Database {
    type Err = DatabaseChoiceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text == "sqlite" {
            Ok(Database::Sqlite)
        } else if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Ok(Database::Postgres(text.to_owned()))
        } else {
            // The text may hold a password: say only what kind of thing it was.
            let shown = text.split_once("://").map_or(text, |(scheme, _)| scheme);
            Err(DatabaseChoiceError(shown.to_owned()))
        }
    }
}

impl std::fmt::Debug for Database {
    /// Never shows a URL's password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite => f.write_str("Sqlite"),
            Database::Postgres(url) => write!(f, "Postgres({})", redacted(url)),
        }
    }
}

/// `url` without its password, for logs and messages.
pub fn redacted(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, rest)), Some(_)) => match rest.split_once('@') {
            Some((user, host)) => {
                let user = user.split_once(':').map_or(user, |(name, _)| name);
                format!("{scheme}://{user}@{host}")
            }
            None => url.to_owned(),
        },
        _ => url.to_owned(),
    }
}

impl Config {
    /// Defaults: the system clock, `$HOME`, a 10 000-event replay window, 15 s heartbeat, an
    /// expiry re-check at least every 5 minutes.
    pub fn new(data_dir: impl Into<PathBuf>, policy: Policy) -> Self {
        Config {
            data_dir: data_dir.into(),
            policy,
            policy_path: None,
            policy_recheck: Duration::from_secs(2),
            clock: Arc::new(SystemClock),
            home: std::env::var("HOME").unwrap_or_else(|_| "/".to_owned()),
            replay_limit: 10_000,
            heartbeat: Duration::from_secs(15),
            expiry_recheck: Duration::from_secs(300),
            owner_in_memory: false,
            database: Database::Sqlite,
            public_url: None,
            tls: None,
            audit_key: None,
            audit_checkpoint_every: Duration::from_secs(60),
            audit_checkpoint_events: DEFAULT_CHECKPOINT_EVENTS,
            sync_policy_decisions: false,
            push_retry: crate::push::Retry::default(),
            webhook_timeout: Duration::from_secs(10),
            webhook_resolver: Arc::new(crate::webhooks::SystemResolver),
        }
    }

    /// Where a service on SQLite keeps its VAPID key.
    pub fn push_key_path(&self) -> PathBuf {
        self.data_dir.join(crate::push::PUSH_KEY_FILE)
    }

    /// Where the audit checkpoint key is.
    pub fn audit_key_path(&self) -> PathBuf {
        self.audit_key
            .clone()
            .unwrap_or_else(|| self.data_dir.join(crate::audit_chain::KEY_FILE))
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("assent.db")
    }
}

/// The local install's two credentials: the agent `default` holds the requester token, the
/// person `owner` the approver token (in a file for `assent serve`, in memory for the desk).
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    pub requester: String,
    pub approver: String,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens { .. }")
    }
}

/// Why the tokens cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("{path} is readable by group or others (mode {mode:o}); run chmod 600 on it")]
    TooOpen { path: PathBuf, mode: u32 },
    #[error("{path} is empty")]
    Empty { path: PathBuf },
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Tokens {
    /// Reads both tokens from `dir`, creating the dir (0700) and each token (0600) on first start.
    /// With `owner_in_memory` the approver token is made fresh and never written; an older
    /// `approver.token` is deleted.
    pub fn load_or_create(dir: &Path, owner_in_memory: bool) -> Result<Tokens, TokenError> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|source| TokenError::Io {
                path: dir.into(),
                source,
            })?;
        let approver_file = dir.join(APPROVER_TOKEN_FILE);
        let approver = if owner_in_memory {
            match fs::remove_file(&approver_file) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    return Err(TokenError::Io {
                        path: approver_file,
                        source: err,
                    })
                }
                _ => new_token(IdentityKind::Person),
            }
        } else {
            token_file(&approver_file, IdentityKind::Person)?
        };
        Ok(Tokens {
            requester: token_file(&dir.join(REQUESTER_TOKEN_FILE), IdentityKind::Agent)?,
            approver,
        })
    }
}

fn token_file(path: &Path, kind: IdentityKind) -> Result<String, TokenError> {
    let io = |source| TokenError::Io {
        path: path.into(),
        source,
    };
    match fs::metadata(path) {
        Ok(meta) => {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o044 != 0 {
                return Err(TokenError::TooOpen {
                    path: path.into(),
                    mode,
                });
            }
            let token = fs::read_to_string(path).map_err(io)?.trim().to_owned();
            if token.is_empty() {
                return Err(TokenError::Empty { path: path.into() });
            }
            Ok(token)
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let token = new_token(kind);
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(io)?;
            file.write_all(format!("{token}\n").as_bytes())
                .map_err(io)?;
            file.sync_all().map_err(io)?;
            Ok(token)
        }
        Err(err) => Err(io(err)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn a_database_is_sqlite_or_a_postgres_url() {
        assert_eq!(
            "sqlite".parse::<Database>().unwrap(),
            Database::Sqlite,
            "`sqlite` keeps the data dir's database"
        );
        assert_eq!(
            "postgres://assent@db:5432/assent"
                .parse::<Database>()
                .unwrap(),
            Database::Postgres("postgres://assent@db:5432/assent".to_owned()),
            "a postgres:// URL is kept whole for the driver"
        );
        assert!(
            "postgresql://db/assent".parse::<Database>().is_ok(),
            "the postgresql:// spelling is PostgreSQL's own too"
        );
        let refused = "mysql://root:hunter2@db/x".parse::<Database>().unwrap_err();
        assert!(
            !refused.to_string().contains("hunter2"),
            "a refused URL's password is not echoed: {refused}"
        );
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        let url = "postgres://assent:s3cret@db.internal:5432/assent";
        assert_eq!(
            redacted(url),
            "postgres://assent@db.internal:5432/assent",
            "logs name the user and host, never the password"
        );
        assert!(
            !format!("{:?}", Database::Postgres(url.to_owned())).contains("s3cret"),
            "Debug of a config never shows the password"
        );
    }
}
