//! One SQLite write transaction (`BEGIN IMMEDIATE` on the one writer connection): the [`Tx`]
//! methods are shared (`../sql/tx.rs`); here is how it begins, sends and commits. After the
//! commit the checkpointer is told, and the event watch moves to the newest event written.
//!
//! Its statements go to the connection's thread in as few round trips as the reads allow
//! (`batch.rs`): the `BEGIN` with the first read, each write with the next read, and the last
//! writes with the `COMMIT`. So the transaction is begun and ended by statements of its own,
//! not sqlx's: one dropped unfinished is rolled back before its connection serves another.
//!
//! A commit is fsynced (`synchronous=FULL`), but for the automated decisions (`relaxed`,
//! `synchronous=NORMAL`): committed to the WAL — a crash of the service loses nothing — and on
//! disk with the checkpointer's fsync a moment later, or with the next synced commit,
//! whichever comes first.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqliteRow;
use sqlx::{Sqlite, SqliteConnection};

use super::sql::events::Events as SqliteEvents;
use super::sql::stmt::{Returns, Stmt};
use crate::store::StoreError;

/// An open write transaction.
pub struct SqliteTx {
    /// The writer connection, until the transaction ends.
    pub(super) conn: Option<PoolConnection<Sqlite>>,
    /// Its `BEGIN` was sent: dropped unfinished, it is rolled back.
    pub(super) open: bool,
    /// A write was kept ([`SqliteTx::write`]).
    pub(super) wrote: bool,
    /// Statements kept to be sent with the next one that must answer now, or the commit: its
    /// `BEGIN` first, then writes ([`SqliteTx::write`]).
    pub(super) queued: Vec<Stmt>,
    /// Begun at `synchronous=NORMAL` (`Store::begin_relaxed`): its commit is not fsynced.
    pub relaxed: bool,
    /// The newest event id this transaction wrote.
    pub newest_event: Option<i64>,
    pub events: SqliteEvents,
    /// Told after every commit (the checkpointer).
    pub writes: Arc<super::checkpoint::Writes>,
    /// Signs the chain's head when this transaction's appends cross a multiple of N events.
    pub signer: Option<Arc<crate::audit_chain::CountSigner>>,
    /// The audit chain's head as this transaction last read or appended it (under the
    /// writers' lock only its own appends move it); `None` until then.
    pub chain_head: Option<(i64, String)>,
    /// Whether any webhook may exist (see [`super::SqliteStore`]'s `webhooks`): without one,
    /// an event needs no outbox statement. `None`: always written.
    pub webhooks: Option<Arc<AtomicBool>>,
}

impl SqliteTx {
    /// Keeps `stmt` to be sent with this transaction's next statement or its commit
    /// (`batch.rs`): a write whose answer nothing waits on costs no round trip of its own.
    /// Its failure is the failure of that later statement, which fails the transaction.
    pub async fn write(&mut self, stmt: Stmt) -> Result<(), StoreError> {
        self.wrote = true;
        self.queued.push(stmt);
        Ok(())
    }

    /// The connection, every kept write sent first: a statement run on it sees them.
    pub async fn conn(&mut self) -> Result<&mut SqliteConnection, StoreError> {
        if !self.queued.is_empty() {
            self.fetch(Vec::new()).await?;
        }
        self.connection()
    }

    fn connection(&mut self) -> Result<&mut SqliteConnection, StoreError> {
        match self.conn.as_mut() {
            Some(conn) => Ok(conn),
            None => Err(StoreError::Closed),
        }
    }

    /// Runs `reads` after the kept writes, in one round trip; the rows of each read.
    pub async fn fetch(&mut self, reads: Vec<Stmt>) -> Result<Vec<Vec<SqliteRow>>, StoreError> {
        let writes = std::mem::take(&mut self.queued);
        let returns: Vec<Returns> = writes.iter().map(|w| w.returns).collect();
        let stmts = writes.into_iter().chain(reads).collect();
        // From here, whatever is answered, the transaction may have begun.
        self.open = true;
        let mut answers = super::batch::send(self.connection()?, stmts).await?;
        let reads = answers.split_off(returns.len());
        for (returns, rows) in returns.into_iter().zip(answers) {
            if returns == Returns::EventId {
                for row in rows {
                    let id: i64 = sqlx::Row::try_get(&row, "id")?;
                    self.newest_event = Some(self.newest_event.map_or(id, |n| n.max(id)));
                }
            }
        }
        Ok(reads)
    }

    /// Commits (with the writes still kept), tells the checkpointer, and moves the event
    /// watch.
    pub(super) async fn finish(mut self) -> Result<(), StoreError> {
        // Nothing sent and nothing kept but its `BEGIN`: there is nothing to commit.
        if self.open || self.wrote {
            self.queued.push(Stmt::new("COMMIT"));
            self.fetch(Vec::new()).await?;
            self.open = false;
        }
        self.writes.committed(self.relaxed);
        if let Some(newest) = self.newest_event {
            // One writer: the newest id this transaction wrote is the newest committed.
            self.events.newest.send_if_modified(|current| {
                let newer = newest > *current;
                if newer {
                    *current = newest;
                }
                newer
            });
        }
        Ok(())
    }
}

impl Drop for SqliteTx {
    /// Rolled back when it began and did not commit, before the connection goes back to the
    /// pool (the next transaction waits for it); without a runtime to do so, the connection is
    /// closed instead, which ends the transaction too.
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        if !self.open {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    // Fails only when the failed statement already ended it (a full disk).
                    let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
                });
            }
            Err(_) => conn.close_on_drop(),
        }
    }
}
