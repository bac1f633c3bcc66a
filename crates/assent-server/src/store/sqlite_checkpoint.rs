//! WAL checkpoints, mostly off the request path.
//!
//! SQLite checkpoints inside the COMMIT that pushes the WAL past 1,000 pages, on the committing
//! connection: that commit also copies the WAL back into the database file and fsyncs it, and
//! with one writer every request queued behind it waits. After a burst has grown the database,
//! those frames land on pages all over the file and the unlucky commit takes tens of ms.
//!
//! This task runs `PRAGMA wal_checkpoint(PASSIVE)` on its own connection a moment after writes
//! (never while idle), so most pages are copied and fsynced while the writer keeps committing.
//! The writer keeps SQLite's automatic checkpoint as the backstop: measured, a PASSIVE
//! checkpoint beside a writer that never pauses never catches up with the end of the WAL, so
//! the WAL is never restarted and grew to 587 MB in a 15 s burst; the writer's own checkpoint
//! then only has the remainder to copy, and restarts the WAL. Durability is unchanged: every
//! commit still fsyncs the WAL (`synchronous=FULL`); a checkpoint only moves committed pages
//! into the main file.

use std::sync::Arc;
use std::time::Duration;

use sqlx::SqlitePool;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// How long after a write the checkpoint waits, so a burst is checkpointed once, not per
/// commit (≤ 4 checkpoints per second under steady load, none while idle).
const SETTLE: Duration = Duration::from_millis(250);

/// Starts the checkpointer; it checkpoints after every [`Notify::notify_one`] on `writes`.
pub fn spawn(connection: SqlitePool, writes: Arc<Notify>) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            writes.notified().await;
            tokio::time::sleep(SETTLE).await;
            let result: Result<(i64, i64, i64), sqlx::Error> =
                sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                    .fetch_one(&connection)
                    .await;
            match result {
                Ok((busy, wal_frames, checkpointed)) => {
                    tracing::trace!(busy, wal_frames, checkpointed, "WAL checkpoint");
                }
                Err(err) => tracing::warn!(error = %err, "WAL checkpoint failed"),
            }
        }
    })
}
