//! The SQLite backend: WAL, `synchronous=FULL`, one writer connection taking
//! `BEGIN IMMEDIATE` transactions, a small pool of readers. Its [`Store`](super::Store)
//! methods are shared with PostgreSQL's (`sql/store.rs`); here is what is SQLite's own.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use super::sqlite_checkpoint;
use super::sqlite_events::{bounds, SqliteEvents};
use super::sqlite_tx::SqliteTx;
use super::sqlite_version::VersionReader;
use super::StoreError;

/// The WAL file is cut back to this size (bytes) after a checkpoint resets it.
const JOURNAL_SIZE_LIMIT: &str = "33554432";

/// The default store.
#[derive(Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    /// The checkpointer's own connection, and the task.
    checkpoint: SqlitePool,
    checkpointer: JoinHandle<()>,
    pub(super) events: SqliteEvents,
    /// Told after every commit, so the checkpointer runs soon after writes.
    writes: Arc<Notify>,
    /// The identity version, read on every request without the pool.
    version: VersionReader,
    /// Signs a checkpoint every N events, inside the appending transaction.
    pub(super) signer: crate::audit_chain::SignerSlot,
}

impl SqliteStore {
    /// Opens (creating and migrating) the database at `path`.
    pub async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                options
                    .clone()
                    .pragma("journal_size_limit", JOURNAL_SIZE_LIMIT),
            )
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.clone())
            .await?;
        let checkpoint = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.pragma("journal_size_limit", JOURNAL_SIZE_LIMIT))
            .await?;
        let writes = Arc::new(Notify::new());
        let checkpointer = sqlite_checkpoint::spawn(checkpoint.clone(), writes.clone());
        let (_, newest) = bounds(&reader).await?;
        let version = VersionReader::open(path)?;
        let events = SqliteEvents {
            pool: reader.clone(),
            newest: Arc::new(watch::channel(newest).0),
        };
        Ok(SqliteStore {
            writer,
            reader,
            checkpoint,
            checkpointer,
            events,
            writes,
            version,
            signer: crate::audit_chain::SignerSlot::default(),
        })
    }

    /// A raw write transaction, for the identity rows.
    pub(super) async fn write(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Commits a raw transaction and schedules a checkpoint.
    pub(super) async fn done(&self, tx: Transaction<'static, Sqlite>) -> Result<(), StoreError> {
        tx.commit().await?;
        self.writes.notify_one();
        Ok(())
    }
}

impl SqliteStore {
    /// The pool reads use.
    pub(super) fn reads(&self) -> &SqlitePool {
        &self.reader
    }

    pub(super) async fn begin_tx(&self) -> Result<SqliteTx, StoreError> {
        Ok(SqliteTx {
            tx: self.write().await?,
            newest_event: None,
            events: self.events.clone(),
            writes: self.writes.clone(),
            signer: self.signer.get(),
        })
    }

    /// The identity version, read without the pool (it is read on every request).
    pub(super) async fn current_identity_version(&self) -> Result<i64, StoreError> {
        self.version.read()
    }

    pub(super) async fn shut(&self) {
        self.checkpointer.abort();
        self.version.close();
        self.writer.close().await;
        self.reader.close().await;
        self.checkpoint.close().await;
    }
}
