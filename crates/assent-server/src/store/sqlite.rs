//! The SQLite backend: WAL, `synchronous=FULL`, one writer connection taking
//! `BEGIN IMMEDIATE` transactions, a small pool of readers.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use assent_core::{ApprovalAuditEvent, GrantStatus, Identity, IdentityKind, Role};
use assent_protocol::{Approval, Grant, IdentityInfo, Metrics, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, Sqlite, SqlitePool, Transaction};

use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use super::sqlite_events::{bounds, SqliteEvents};
use super::sqlite_rows::{json_col, micros, parse_name};
use super::sqlite_tx::SqliteTx;
use super::sqlite_version::VersionReader;
use super::{sqlite_checkpoint, sqlite_sql};
use super::{ActionSummary, ApprovalRecord, EventBus, Store, StoreError, TokenRecord, Tx};

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
    events: SqliteEvents,
    /// Told after every commit, so the checkpointer runs soon after writes.
    writes: Arc<Notify>,
    /// The identity version, read on every request without the pool.
    version: VersionReader,
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
            reader: reader.clone(),
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
        })
    }

    /// A raw write transaction, for the identity rows.
    async fn write(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Commits a raw transaction and schedules a checkpoint.
    async fn done(&self, tx: Transaction<'static, Sqlite>) -> Result<(), StoreError> {
        tx.commit().await?;
        self.writes.notify_one();
        Ok(())
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn begin(&self) -> Result<Box<dyn Tx>, StoreError> {
        Ok(Box::new(SqliteTx {
            tx: self.writer.begin_with("BEGIN IMMEDIATE").await?,
            newest_event: None,
            events: self.events.clone(),
            writes: self.writes.clone(),
        }))
    }

    fn events(&self) -> &dyn EventBus {
        &self.events
    }

    async fn action(&self, action_id: &str) -> Result<Option<ActionSummary>, StoreError> {
        let row = sqlx::query("SELECT id, status, approval_id FROM actions WHERE id = ?")
            .bind(action_id)
            .fetch_optional(&self.reader)
            .await?;
        row.map(|row| {
            Ok(ActionSummary {
                action_id: row.try_get("id")?,
                status: parse_name(&row.try_get::<String, _>("status")?)?,
                approval_id: row.try_get("approval_id")?,
            })
        })
        .transpose()
    }

    async fn approval(&self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::approvals::load(&mut conn, approval_id).await
    }

    async fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::approvals::list(&mut conn, pending_only).await
    }

    async fn grants(
        &self,
        status: Option<GrantStatus>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::grants::list(&mut conn, status, now).await
    }

    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::expiry::next_deadline(&mut conn).await
    }

    async fn run_state(&self, run_id: &str) -> Result<RunState, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::runs::get(&mut conn, run_id).await
    }

    async fn held_runs(&self, status: RunStatus) -> Result<Vec<RunState>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::runs::list(&mut conn, status).await
    }

    async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        let mut sql = String::from("SELECT body FROM audit_events WHERE 1 = 1");
        if since.is_some() {
            sql.push_str(" AND occurred_at >= ?");
        }
        if run_id.is_some() {
            sql.push_str(" AND run_id = ?");
        }
        sql.push_str(" ORDER BY seq LIMIT ?");
        let mut query = sqlx::query(&sql);
        if let Some(since) = since {
            query = query.bind(micros(since));
        }
        if let Some(run_id) = run_id {
            query = query.bind(run_id);
        }
        let rows = query.bind(limit).fetch_all(&self.reader).await?;
        rows.iter().map(|row| json_col(row, "body")).collect()
    }

    async fn metrics(&self, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
        sqlite_sql::metrics::metrics(&self.reader, now).await
    }

    async fn remembered_denials(
        &self,
        run_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::approvals::remembered_denials(&mut conn, run_id, since).await
    }

    async fn identity_version(&self) -> Result<i64, StoreError> {
        self.version.read()
    }

    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::identities::by_token(&mut conn, token_hash).await
    }

    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::identities::get(&mut conn, name).await
    }

    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_sql::identities::list(&mut conn, kind).await
    }

    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlite_sql::identities::add(&mut tx, identity, token.hash, token.label, now).await?;
        self.done(tx).await
    }

    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let removed = sqlite_sql::identities::remove(&mut tx, name, kind).await?;
        self.done(tx).await?;
        Ok(removed)
    }

    async fn person_roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Option<Identity>, StoreError> {
        let mut tx = self.write().await?;
        let person = sqlite_sql::identities::update_roles(&mut tx, name, add, remove).await?;
        self.done(tx).await?;
        Ok(person)
    }

    async fn token_set(
        &self,
        name: &str,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let set =
            sqlite_sql::identities::set_token(&mut tx, name, token.label, token.hash, now).await?;
        self.done(tx).await?;
        Ok(set)
    }

    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        sqlite_sql::identities::drop_token(&mut tx, name, label).await?;
        self.done(tx).await
    }

    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let seeded = sqlite_sql::identities::seed_once(
            &mut tx,
            crate::identities::OWNER,
            crate::identities::DEFAULT_AGENT,
            now,
        )
        .await?;
        self.done(tx).await?;
        Ok(seeded)
    }

    async fn close(&self) {
        self.checkpointer.abort();
        self.version.close();
        self.writer.close().await;
        self.reader.close().await;
        self.checkpoint.close().await;
    }
}
