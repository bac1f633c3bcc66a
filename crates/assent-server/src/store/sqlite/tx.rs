//! One SQLite write transaction (`BEGIN IMMEDIATE` on the one writer connection): the [`Tx`]
//! methods are shared (`../sql/tx.rs`); here is how it commits. After the commit the
//! checkpointer is told, and the event watch moves to the newest event written.
//!
//! A commit is fsynced (`synchronous=FULL`), but for the automated decisions (`relaxed`,
//! `synchronous=NORMAL`): committed to the WAL — a crash of the service loses nothing — and on
//! disk with the checkpointer's fsync a moment later, or with the next synced commit,
//! whichever comes first.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::sql::events::Events as SqliteEvents;
use crate::store::StoreError;

/// An open write transaction.
pub struct SqliteTx {
    pub tx: sqlx::Transaction<'static, sqlx::Sqlite>,
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
    /// Commits, tells the checkpointer, and moves the event watch.
    pub(super) async fn finish(self) -> Result<(), StoreError> {
        let SqliteTx {
            tx,
            relaxed,
            newest_event,
            events,
            writes,
            signer: _,
            chain_head: _,
            webhooks: _,
        } = self;
        tx.commit().await?;
        writes.committed(relaxed);
        if let Some(newest) = newest_event {
            // One writer: the newest id this transaction wrote is the newest committed.
            events.newest.send_if_modified(|current| {
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
