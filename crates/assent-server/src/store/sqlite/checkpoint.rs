//! The WAL's flushes and checkpoints, off the request path.
//!
//! **Flush.** Every commit but the automated decisions (the policy's own, the model reviewer's
//! approvals) is fsynced by the committing transaction (`synchronous=FULL`). Those
//! (`SqliteStore::begin_relaxed_tx`) are only written to the WAL: this task fsyncs the WAL file [`SETTLE`] after a relaxed commit, so it is on
//! disk within that settle time (or sooner, with the next fsynced commit).
//!
//! **Checkpoint.** SQLite checkpoints inside the COMMIT that pushes the WAL past 1,000 pages, on
//! the committing connection: that commit also copies the WAL back into the database file and
//! fsyncs it, and with one writer every request queued behind it waits. After a burst has grown
//! the database, those frames land on pages all over the file and the unlucky commit takes tens
//! of ms. So this task runs `PRAGMA wal_checkpoint(PASSIVE)` on its own connection once enough
//! commits have gathered ([`CHECKPOINT_COMMITS`]), or once a while ([`CHECKPOINT_EVERY`]) has
//! passed since the last one — not after every trickle of writes: a checkpoint that copies the
//! whole WAL makes the next writer start the WAL afresh, and starting it costs that writer an
//! fsync of the new WAL header, even a relaxed one. At an agent's pace (a tool call every few
//! seconds) that was an fsync on every call.
//!
//! The writer keeps SQLite's automatic checkpoint as the backstop: measured, a PASSIVE
//! checkpoint beside a writer that never pauses never catches up with the end of the WAL, so
//! the WAL is never restarted and grows without bound in a burst; the writer's own checkpoint
//! then only has the remainder to copy, and restarts the WAL. A checkpoint only moves committed
//! pages into the main file; durability is the flush's and the commits'.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::SqlitePool;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// How long after a write the WAL is flushed (and a due checkpoint runs), so a burst is
/// flushed once, not per commit (≤ 4 flushes per second under steady load, none while idle).
/// The longest a relaxed commit waits to reach the disk.
pub const SETTLE: Duration = Duration::from_millis(250);
/// Checkpoint once this many commits have gathered since the last checkpoint…
const CHECKPOINT_COMMITS: u64 = 64;
/// …or when writes come and the last checkpoint is this old.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(30);

/// The writer's commits, as the checkpointer hears of them.
#[derive(Debug, Default)]
pub struct Writes {
    wake: Notify,
    commits: AtomicU64,
    /// A relaxed commit wrote WAL frames no fsync has covered yet (an fsynced commit's are on
    /// disk already: flushing after those only would be a second fsync of the same frames).
    unflushed: AtomicBool,
}

impl Writes {
    /// Called after every commit; `relaxed`: it was not fsynced.
    pub fn committed(&self, relaxed: bool) {
        self.commits.fetch_add(1, Ordering::Relaxed);
        if relaxed {
            self.unflushed.store(true, Ordering::Release);
        }
        self.wake.notify_one();
    }
}

/// Starts the checkpointer over `connection` (its own) and the WAL file at `wal`.
pub fn spawn(connection: SqlitePool, wal: PathBuf, writes: Arc<Writes>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut checkpointed_at = Instant::now();
        let mut commits_then = 0;
        loop {
            writes.wake.notified().await;
            tokio::time::sleep(SETTLE).await;
            // Taken before the fsync: a relaxed commit landing during it sets the flag again
            // (and wakes this task), so its frames are flushed on the next round.
            if writes.unflushed.swap(false, Ordering::AcqRel) {
                flush(&wal).await;
            }
            let commits = writes.commits.load(Ordering::Relaxed);
            let due = commits - commits_then >= CHECKPOINT_COMMITS
                || checkpointed_at.elapsed() >= CHECKPOINT_EVERY;
            if !due {
                continue;
            }
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
            (checkpointed_at, commits_then) = (Instant::now(), commits);
        }
    })
}

/// Fsyncs the WAL file: what relaxed commits wrote reaches the disk (an fsync covers the
/// file, whichever descriptor wrote it). No WAL (never written, or removed at close): nothing
/// to flush.
pub async fn flush(wal: &std::path::Path) {
    let wal = wal.to_owned();
    let flushed = tokio::task::spawn_blocking(move || match std::fs::File::open(&wal) {
        Ok(file) => file.sync_data(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    })
    .await;
    match flushed {
        Ok(Ok(())) => {}
        Ok(Err(err)) => tracing::error!(error = %err, "could not flush the WAL to disk"),
        Err(err) => tracing::error!(error = %err, "the WAL flush did not run"),
    }
}
