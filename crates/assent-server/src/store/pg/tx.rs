//! One PostgreSQL write transaction: the [`Tx`] methods are shared (`../sql/tx.rs`); here is how
//! it begins — by taking the writers' advisory lock (see [`WRITE_LOCK`]) — and how it
//! commits: notifying the other replicas of the newest event it wrote, and moving this
//! replica's watch at once.

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Postgres, Transaction};

use super::bus::{self, PgEvents};
use super::sql::stmt::{Returns, Stmt};
use crate::store::StoreError;

/// Key of the transaction-level advisory lock every write transaction takes first, on every
/// replica. Writers commit one after the other, so
/// - event ids become visible in id order (a stream reading `id > last` never skips an id
///   that commits later), and
/// - no two transactions wait on each other's row locks in opposite orders (no deadlocks).
///
/// The group commit batches up to 256 submissions per transaction, so one writer at a time
/// still carries thousands of decisions a second. Reads take no lock.
pub const WRITE_LOCK: i64 = 0x6173_7365_6e74_0002;

/// An open write transaction.
pub struct PgTx {
    pub(super) tx: Transaction<'static, Postgres>,
    /// The newest event id this transaction wrote.
    pub newest_event: Option<i64>,
    pub events: PgEvents,
    /// Signs the chain's head when this transaction's appends cross a multiple of N events.
    pub signer: Option<std::sync::Arc<crate::audit_chain::CountSigner>>,
    /// The audit chain's head as this transaction last read or appended it (under the
    /// writers' lock only its own appends move it); `None` until then.
    pub chain_head: Option<(i64, String)>,
    /// Always `None` here (see `SqliteTx::webhooks`).
    pub webhooks: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl PgTx {
    /// Begins a write transaction holding [`WRITE_LOCK`]; `relaxed`: its commit does not
    /// wait for the WAL flush (`synchronous_commit = off` for this transaction only, see
    /// [`crate::store::Store::begin_relaxed`]).
    pub async fn begin(
        events: &PgEvents,
        signer: Option<std::sync::Arc<crate::audit_chain::CountSigner>>,
        relaxed: bool,
    ) -> Result<PgTx, StoreError> {
        let mut tx = events.pool.begin().await?;
        // One round trip: the lock, and the commit's durability when relaxed.
        let lock = if relaxed {
            "SELECT pg_advisory_xact_lock($1), set_config('synchronous_commit', 'off', true)"
        } else {
            "SELECT pg_advisory_xact_lock($1)"
        };
        sqlx::query(lock).bind(WRITE_LOCK).execute(&mut *tx).await?;
        Ok(PgTx {
            tx,
            newest_event: None,
            events: events.clone(),
            signer,
            chain_head: None,
            // Replicas add webhooks too: every event's outbox statement is made.
            webhooks: None,
        })
    }
}

impl PgTx {
    /// Runs `stmt` now (SQLite keeps its writes for the next round trip; a PostgreSQL
    /// statement's round trip is to the server, one each however they are sent).
    pub async fn write(&mut self, stmt: Stmt) -> Result<(), StoreError> {
        let returns = stmt.returns;
        let rows = stmt.fetch_all(&mut self.tx).await?;
        if returns == Returns::EventId {
            for row in rows {
                let id: i64 = sqlx::Row::try_get(&row, "id")?;
                self.newest_event = Some(self.newest_event.map_or(id, |n| n.max(id)));
            }
        }
        Ok(())
    }

    /// The connection (nothing is ever kept back here).
    pub async fn conn(&mut self) -> Result<&mut PgConnection, StoreError> {
        Ok(&mut self.tx)
    }

    /// Runs `reads`, one after the other; the rows of each.
    pub async fn fetch(&mut self, reads: Vec<Stmt>) -> Result<Vec<Vec<PgRow>>, StoreError> {
        let mut answers = Vec::with_capacity(reads.len());
        for read in reads {
            answers.push(read.fetch_all(&mut self.tx).await?);
        }
        Ok(answers)
    }

    /// Commits; the other replicas hear of the newest event it wrote, and this one's watch
    /// moves at once.
    pub(super) async fn finish(self) -> Result<(), StoreError> {
        let PgTx {
            mut tx,
            newest_event,
            events,
            signer: _,
            chain_head: _,
            webhooks: _,
        } = self;
        if let Some(newest) = newest_event {
            // Delivered to every replica's listener when (and only if) this commits.
            bus::notify(&mut tx, newest).await?;
        }
        tx.commit().await?;
        if let Some(newest) = newest_event {
            bus::advance(&events.newest, newest);
        }
        Ok(())
    }
}
