//! The SQLite backend: WAL, `synchronous=FULL` (but for the automated decisions: see
//! [`BEGIN_RELAXED`]), one writer connection taking `BEGIN IMMEDIATE` transactions, a small
//! pool of readers. Its [`Store`](super::Store) methods are PostgreSQL's too
//! (`sql/store.rs`); here is what is SQLite's own.

#[macro_use]
mod backend;
mod batch;
mod checkpoint;
#[allow(
    clippy::duplicate_mod,
    reason = "the statement files are compiled once per backend on purpose"
)]
#[path = "../sql/mod.rs"]
mod sql;
mod tx;
mod version;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction, TransactionManager};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::StoreError;
use checkpoint::Writes;
use sql::events::{bounds, Events as SqliteEvents};
use sql::stmt::Stmt;
use tx::SqliteTx;
use version::VersionReader;

/// How every write transaction begins: SQLite takes `synchronous` only outside a transaction,
/// so each one sets it, in the same round trip as its `BEGIN` (a [`SqliteTx`] sends both with
/// its first statement). Whatever the previous transaction was, this one's commit is fsynced…
const BEGIN_SYNCED: [&str; 2] = ["PRAGMA synchronous = FULL", "BEGIN IMMEDIATE"];
/// …or, for what was decided automatically (the policy's own decisions, the model reviewer's
/// approvals: `Store::begin_relaxed`), written to the WAL but not fsynced: the checkpointer's
/// fsync follows within [`checkpoint`]'s settle time.
const BEGIN_RELAXED: [&str; 2] = ["PRAGMA synchronous = NORMAL", "BEGIN IMMEDIATE"];

/// The WAL file is cut back to this size (bytes) after a checkpoint resets it.
const JOURNAL_SIZE_LIMIT: &str = "33554432";

/// The default store.
#[derive(Debug)]
pub struct SqliteStore {
    /// The one writer connection.
    writer: SqlitePool,
    reader: SqlitePool,
    /// The checkpointer's own connection, and the task.
    checkpoint: SqlitePool,
    checkpointer: JoinHandle<()>,
    /// The WAL file, flushed once more as the store shuts.
    wal: std::path::PathBuf,
    pub(super) events: SqliteEvents,
    /// Told after every commit, so the checkpointer flushes (and checkpoints) soon after.
    writes: Arc<Writes>,
    /// The identity version, read on every request without the pool.
    version: VersionReader,
    /// Signs a checkpoint every N events, inside the appending transaction.
    pub(super) signer: crate::audit_chain::SignerSlot,
    /// Whether any webhook may exist: read as the store opens, set as one is added (through
    /// this store: the service is the file's only writer), never cleared until the next open.
    /// Without one, an event's commit makes no outbox statement — one round trip fewer for
    /// every prompt, settlement and grant.
    webhooks: Arc<AtomicBool>,
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
        let writer = pool()
            .max_connections(1)
            // A COMMIT that fails (a full disk: SQLite rolls the transaction back itself)
            // leaves sqlx counting the transaction open, and every later begin on that
            // connection fails: such a connection is closed and a new one made.
            .after_release(|conn, _| {
                let idle =
                    <Sqlite as sqlx::Database>::TransactionManager::get_transaction_depth(conn)
                        == 0;
                Box::pin(async move { Ok(idle) })
            })
            .connect_with(
                options
                    .clone()
                    .pragma("journal_size_limit", JOURNAL_SIZE_LIMIT),
            )
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
        let reader = pool()
            .max_connections(4)
            .connect_with(options.clone())
            .await?;
        let checkpoint = pool()
            .max_connections(1)
            .connect_with(options.pragma("journal_size_limit", JOURNAL_SIZE_LIMIT))
            .await?;
        let writes = Arc::new(Writes::default());
        let wal = wal_path(path);
        let checkpointer = checkpoint::spawn(checkpoint.clone(), wal.clone(), writes.clone());
        let (_, newest) = bounds(&reader).await?;
        let version = VersionReader::open(path)?;
        let any: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM webhooks)")
            .fetch_one(&reader)
            .await?;
        let events = SqliteEvents {
            pool: reader.clone(),
            newest: Arc::new(watch::channel(newest).0),
        };
        Ok(SqliteStore {
            writer,
            reader,
            checkpoint,
            checkpointer,
            wal,
            events,
            writes,
            version,
            signer: crate::audit_chain::SignerSlot::default(),
            webhooks: Arc::new(AtomicBool::new(any)),
        })
    }

    /// A raw write transaction, for the identity rows; its commit is fsynced.
    pub(super) async fn write(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with(BEGIN_SYNCED.join("; ")).await?)
    }

    /// Commits a raw transaction and schedules a checkpoint.
    pub(super) async fn done(&self, tx: Transaction<'static, Sqlite>) -> Result<(), StoreError> {
        tx.commit().await?;
        self.writes.committed(false);
        Ok(())
    }
}

impl SqliteStore {
    /// The pool reads use.
    pub(super) fn reads(&self) -> &SqlitePool {
        &self.reader
    }

    pub(super) async fn begin_tx(&self) -> Result<SqliteTx, StoreError> {
        self.tx(BEGIN_SYNCED, false).await
    }

    /// A write transaction whose commit is not fsynced (see `Store::begin_relaxed`).
    pub(super) async fn begin_relaxed_tx(&self) -> Result<SqliteTx, StoreError> {
        self.tx(BEGIN_RELAXED, true).await
    }

    /// A write transaction on the writer connection; `begin` is sent with its first statement.
    async fn tx(&self, begin: [&'static str; 2], relaxed: bool) -> Result<SqliteTx, StoreError> {
        let conn = self.writer.acquire().await?;
        Ok(SqliteTx {
            conn: Some(conn),
            open: false,
            wrote: false,
            queued: begin.into_iter().map(Stmt::new).collect(),
            relaxed,
            newest_event: None,
            events: self.events.clone(),
            writes: self.writes.clone(),
            signer: self.signer.get(),
            chain_head: None,
            webhooks: Some(self.webhooks.clone()),
        })
    }

    /// A store in a new temporary directory, kept as long as the directory is (for tests).
    #[cfg(test)]
    pub(crate) async fn temporary() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = SqliteStore::open(&dir.path().join("assent.db"))
            .await
            .expect("a store in it");
        (dir, store)
    }

    /// The identity version, read without the pool (it is read on every request).
    pub(super) async fn current_identity_version(&self) -> Result<i64, StoreError> {
        self.version.read()
    }

    pub(super) async fn shut(&self) {
        self.checkpointer.abort();
        self.version.close();
        // The last relaxed commits were not fsynced, and the checkpointer is gone.
        checkpoint::flush(&self.wal).await;
        self.writer.close().await;
        self.reader.close().await;
        self.checkpoint.close().await;
    }
}

/// A pool of connections to the database file. sqlx pings a connection before lending it out,
/// to find a server that hung up; a file does not hang up, and on SQLite each ping is one more
/// round trip to the connection's thread before every transaction and read (a submission's
/// answer waits for it), so none is made.
fn pool() -> SqlitePoolOptions {
    SqlitePoolOptions::new().test_before_acquire(false)
}

/// The WAL file SQLite keeps beside the database at `db`.
fn wal_path(db: &Path) -> std::path::PathBuf {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    wal.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn synchronous(tx: &mut SqliteTx) -> i64 {
        sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(tx.conn().await.unwrap())
            .await
            .unwrap()
    }

    /// SQLite fixes `synchronous` per connection, and the one writer connection serves both
    /// kinds of transaction: each sets its level as it begins, so however they alternate, a
    /// person's decision is never committed at the policy's relaxed level.
    #[tokio::test]
    async fn each_transaction_commits_at_its_own_durability() {
        let (_dir, store) = SqliteStore::temporary().await;
        let mut tx = store.begin_tx().await.unwrap();
        assert_eq!(synchronous(&mut tx).await, 2, "a full transaction is FULL");
        tx.finish().await.unwrap();

        let mut relaxed = store.begin_relaxed_tx().await.unwrap();
        assert_eq!(
            synchronous(&mut relaxed).await,
            1,
            "the policy's own record is NORMAL"
        );
        relaxed.finish().await.unwrap();

        let mut after = store.begin_tx().await.unwrap();
        assert_eq!(
            synchronous(&mut after).await,
            2,
            "a full transaction after a relaxed one is FULL again"
        );
        drop(after);
        let mut raw = store.write().await.unwrap();
        let level: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut *raw)
            .await
            .unwrap();
        assert_eq!(level, 2, "so are the identities' raw transactions");
        drop(raw); // closing the pool waits for its connection
        store.shut().await;
    }

    fn ended(run: &str) -> assent_protocol::Event {
        assent_protocol::Event::RunEnded {
            run_id: run.to_owned(),
            requester: None,
        }
    }

    /// The runs of the events the log holds, oldest first.
    async fn logged(store: &SqliteStore) -> Vec<String> {
        use crate::store::EventBus;
        store
            .events
            .after(0, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|e| match e.event {
                assent_protocol::Event::RunEnded { run_id, .. } => run_id,
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// After a transaction that must leave nothing (`why`): the writer serves the next one,
    /// whose event is then the log's only one.
    async fn next_commits_alone(
        store: &SqliteStore,
        now: chrono::DateTime<chrono::Utc>,
        why: &str,
    ) {
        use crate::store::Tx;
        let mut next = store.begin_tx().await.unwrap();
        next.insert_event(now, &ended("kept")).await.unwrap();
        next.finish().await.unwrap();
        assert_eq!(
            logged(store).await,
            ["kept"],
            "{why}, and the next transaction committed alone"
        );
    }

    /// A transaction begins with its first statement sent (`tx.rs`), not with sqlx's own
    /// `BEGIN`: dropped after that, it must be rolled back before the one writer connection
    /// serves the next, or the next `BEGIN IMMEDIATE` would fail inside it and what it wrote
    /// would commit with the next one.
    #[tokio::test]
    async fn a_transaction_dropped_after_its_statements_were_sent_leaves_nothing() {
        use crate::store::Tx;
        let (_dir, store) = SqliteStore::temporary().await;
        let now = chrono::Utc::now();
        let mut tx = store.begin_tx().await.unwrap();
        tx.insert_event(now, &ended("dropped")).await.unwrap();
        tx.conn().await.unwrap();
        drop(tx);

        next_commits_alone(
            &store,
            now,
            "the dropped transaction's event was rolled back",
        )
        .await;
        store.shut().await;
    }

    /// A kept write is sent with the commit: when it fails there, the commit fails, nothing of
    /// the transaction stays, and the writer still serves the next one.
    #[tokio::test]
    async fn a_kept_write_that_fails_at_the_commit_fails_it_whole() {
        use crate::store::Tx;
        let (_dir, store) = SqliteStore::temporary().await;
        let now = chrono::Utc::now();
        let mut tx = store.begin_tx().await.unwrap();
        tx.insert_event(now, &ended("lost")).await.unwrap();
        let twice = "INSERT INTO events (id, occurred_at, kind, body) VALUES (1000, 0, 'x', '{}')";
        tx.write(Stmt::new(twice)).await.unwrap();
        tx.write(Stmt::new(twice)).await.unwrap();
        let committed = tx.finish().await;
        assert!(
            matches!(&committed, Err(StoreError::Database(_))),
            "the second row's key is taken: the commit must fail, not succeed without it: \
             {committed:?}"
        );

        next_commits_alone(&store, now, "nothing of the failed transaction stays").await;
        store.shut().await;
    }
}
