//! The PostgreSQL backend: one pool shared by every statement, migrations under an advisory
//! lock (replicas starting together migrate once), events announced with `LISTEN/NOTIFY` so
//! every replica's streams move when any replica commits ([`bus`]). Its [`Store`] methods are
//! SQLite's too (`sql/store.rs`); here is what is PostgreSQL's own: reads from the pool (any
//! replica, any connection), write transactions holding the writers' lock ([`tx::PgTx`]),
//! plain transactions for the identity rows.
//!
//! [`Store`]: super::Store

#[macro_use]
mod backend;
mod bus;
#[allow(
    clippy::duplicate_mod,
    reason = "the statement files are compiled once per backend on purpose"
)]
#[path = "../sql/mod.rs"]
mod sql;
mod tx;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection, Postgres, Row, Transaction};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::StoreError;
use bus::PgEvents;
use tx::PgTx;

/// Key of the session advisory lock held while migrating (any constant shared by replicas).
const MIGRATION_LOCK: i64 = 0x6173_7365_6e74_0001;

/// How long a request waits for a connection before it is answered 503.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// Connections per replica: enough for the 2-core machines this runs on, far below
/// PostgreSQL's default `max_connections` for a handful of replicas.
const MAX_CONNECTIONS: u32 = 12;

/// The team store.
#[derive(Debug)]
pub struct PgStore {
    pub(super) pool: PgPool,
    pub(super) events: PgEvents,
    listener: JoinHandle<()>,
    /// Signs a checkpoint every N events, inside the appending transaction.
    pub(super) signer: crate::audit_chain::SignerSlot,
}

impl PgStore {
    /// Connects to `url` (`postgres://…`), migrates (once, however many replicas start), and
    /// starts following the event log.
    pub async fn open(url: &str) -> Result<PgStore, StoreError> {
        let options = PgConnectOptions::from_str(url)?.application_name("assent");
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await?;
        migrate(&pool).await?;
        let newest = bus::newest_id(&pool).await?;
        let events = PgEvents {
            pool: pool.clone(),
            newest: Arc::new(watch::channel(newest).0),
        };
        let listener = bus::follow(pool.clone(), events.newest.clone());
        Ok(PgStore {
            pool,
            events,
            listener,
            signer: crate::audit_chain::SignerSlot::default(),
        })
    }

    pub(super) async fn shut(&self) {
        self.listener.abort();
        self.pool.close().await;
    }
}

impl PgStore {
    /// The pool reads use.
    pub(super) fn reads(&self) -> &sqlx::PgPool {
        &self.pool
    }

    pub(super) async fn begin_tx(&self) -> Result<PgTx, StoreError> {
        PgTx::begin(&self.events, self.signer.get(), false).await
    }

    pub(super) async fn begin_relaxed_tx(&self) -> Result<PgTx, StoreError> {
        PgTx::begin(&self.events, self.signer.get(), true).await
    }

    /// A plain write transaction, for the identity rows (their locks are the rows').
    pub(super) async fn write(&self) -> Result<Transaction<'static, Postgres>, StoreError> {
        Ok(self.pool.begin().await?)
    }

    pub(super) async fn done(&self, tx: Transaction<'static, Postgres>) -> Result<(), StoreError> {
        Ok(tx.commit().await?)
    }

    /// The identity version, read from its row: every replica sees a change at once.
    pub(super) async fn current_identity_version(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT version FROM identity_version WHERE id = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("version")?)
    }
}

/// Runs the migrations holding a session advisory lock: a replica starting while another
/// migrates waits, then finds nothing left to do.
async fn migrate(pool: &PgPool) -> Result<(), StoreError> {
    let mut conn = pool.acquire().await?;
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *conn)
        .await?;
    let migrated = sqlx::migrate!("./migrations/postgres")
        .run_direct(&mut *conn)
        .await;
    let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *conn)
        .await;
    if unlocked.is_err() {
        // The lock dies with the session: drop this connection rather than return it held.
        let _ = conn.detach().close().await;
    }
    migrated?;
    unlocked?;
    Ok(())
}
