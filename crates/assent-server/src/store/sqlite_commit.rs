//! Group commit: submissions queue up and are written many to one `BEGIN IMMEDIATE`
//! transaction (plain decisions as multi-row inserts), so one fsync covers a burst of decisions. Every
//! caller is answered only after the commit that holds its decision.

use std::sync::Arc;

use sqlx::SqlitePool;
use tokio::sync::{mpsc, oneshot, watch, Notify};

use super::sqlite::newest_id;
use super::sqlite_actions::{record_submission, Deferred};
use super::sqlite_expiry::{anything_due, expire_due};
use super::sqlite_runs;
use super::{StoreError, Submission, Submitted};

/// How many submissions may wait for the writer.
pub const QUEUE_DEPTH: usize = 4096;
/// The most submissions written in one transaction.
const BATCH: usize = 256;

/// A submission waiting for its commit.
pub struct Queued {
    pub submission: Submission,
    pub reply: oneshot::Sender<Result<Submitted, StoreError>>,
}

/// Moves the event watch to the newest committed event.
#[derive(Debug, Clone)]
pub struct Publisher {
    pub reader: SqlitePool,
    pub newest_event: Arc<watch::Sender<i64>>,
    /// Told after every commit (the checkpointer).
    pub writes: Arc<Notify>,
}

impl Publisher {
    pub async fn publish(&self) -> Result<(), StoreError> {
        let newest = newest_id(&self.reader).await?;
        self.newest_event.send_if_modified(|current| {
            let newer = newest > *current;
            if newer {
                *current = newest;
            }
            newer
        });
        Ok(())
    }
}

/// Runs until every sender is gone: takes what is queued, writes it, answers.
pub async fn group_commit(
    writer: SqlitePool,
    mut queue: mpsc::Receiver<Queued>,
    publisher: Publisher,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while queue.recv_many(&mut batch, BATCH).await > 0 {
        let queued: Vec<Queued> = std::mem::take(&mut batch);
        let (submissions, replies): (Vec<_>, Vec<_>) =
            queued.into_iter().map(|q| (q.submission, q.reply)).unzip();
        match write_batch(&writer, &submissions).await {
            Ok((outcomes, evented)) => {
                publisher.writes.notify_one();
                if evented {
                    if let Err(err) = publisher.publish().await {
                        tracing::warn!(error = %err, "cannot announce new events");
                    }
                }
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    let _ = reply.send(outcome);
                }
            }
            Err(err) => {
                tracing::error!(error = %err, "a batch of submissions failed to commit");
                for reply in replies {
                    let _ = reply.send(Err(StoreError::Batch(err.to_string())));
                }
            }
        }
    }
}

type Outcomes = Vec<Result<Submitted, StoreError>>;

/// Writes a batch in one transaction. When that fails, each submission is retried alone, so
/// one bad submission never fails its neighbours.
async fn write_batch(
    writer: &SqlitePool,
    submissions: &[Submission],
) -> Result<(Outcomes, bool), StoreError> {
    match write_together(writer, submissions).await {
        Ok(written) => Ok(written),
        Err(err) if submissions.len() <= 1 => Err(err),
        Err(err) => {
            tracing::warn!(error = %err, "batch failed; writing its submissions one by one");
            let mut outcomes = Vec::with_capacity(submissions.len());
            let mut evented = false;
            for submission in submissions {
                match write_together(writer, std::slice::from_ref(submission)).await {
                    Ok((mut one, wrote_events)) => {
                        evented |= wrote_events;
                        outcomes.append(&mut one);
                    }
                    Err(err) => outcomes.push(Err(err)),
                }
            }
            Ok((outcomes, evented))
        }
    }
}

async fn write_together(
    writer: &SqlitePool,
    submissions: &[Submission],
) -> Result<(Outcomes, bool), StoreError> {
    let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
    // Expiry is checked on every match: a prompt past its time settles (and its fallback
    // holds its run) before anything of this batch could join it or slip past the hold.
    let mut evented = match submissions.iter().map(|s| s.now).max() {
        Some(now) if anything_due(&mut tx, now).await? => expire_due(&mut tx, now).await?,
        _ => false,
    };
    let mut run_ids: Vec<&str> = submissions
        .iter()
        .map(|s| s.request.run_id.as_str())
        .collect();
    run_ids.sort_unstable();
    run_ids.dedup();
    let holds = sqlite_runs::holds(&mut tx, &run_ids).await?;
    let mut deferred = Deferred::default();
    let mut outcomes = Vec::with_capacity(submissions.len());
    for submission in submissions {
        let hold = holds.get(&submission.request.run_id);
        let (outcome, wrote_events) =
            record_submission(&mut tx, submission, hold, &mut deferred).await?;
        evented |= wrote_events;
        outcomes.push(Ok(outcome));
    }
    deferred.flush(&mut tx).await?;
    tx.commit().await?;
    Ok((outcomes, evented))
}
