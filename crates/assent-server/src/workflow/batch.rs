//! Group commit, for any backend: submissions queue up and are recorded many to one
//! transaction (plain decisions as multi-row inserts), so one commit (one fsync on SQLite)
//! covers a burst of decisions. Every caller is answered only after the commit that holds
//! its decision.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::{expire, submit};
use crate::store::{Store, StoreError, Submission, Submitted};

/// How many submissions may wait for the writer.
pub const QUEUE_DEPTH: usize = 4096;
/// The most submissions written in one transaction.
const BATCH: usize = 256;

/// A submission waiting for its commit. Boxed: a `Submission` is nearly 2 KB, and held by
/// value it was carried in every future between the handler and this queue, which made the
/// handler's future 9 KB, copied into its box on every request.
pub struct Queued {
    pub submission: Box<Submission>,
    pub reply: oneshot::Sender<Result<Submitted, StoreError>>,
}

impl std::fmt::Debug for Queued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queued")
            .field("action_id", &self.submission.action_id)
            .finish_non_exhaustive()
    }
}

/// Runs until every sender is gone: takes what is queued, writes it, answers.
pub async fn group_commit(store: Arc<dyn Store>, mut queue: mpsc::Receiver<Queued>) {
    let mut batch = Vec::with_capacity(BATCH);
    while queue.recv_many(&mut batch, BATCH).await > 0 {
        let queued: Vec<Queued> = std::mem::take(&mut batch);
        let (submissions, replies): (Vec<_>, Vec<_>) =
            queued.into_iter().map(|q| (*q.submission, q.reply)).unzip();
        match write_batch(store.as_ref(), &submissions).await {
            Ok(outcomes) => {
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
    store: &dyn Store,
    submissions: &[Submission],
) -> Result<Outcomes, StoreError> {
    match write_together(store, submissions).await {
        Ok(written) => Ok(written),
        Err(err) if submissions.len() <= 1 => write_alone_again(store, submissions, err).await,
        Err(err) => {
            tracing::warn!(error = %err, "batch failed; writing its submissions one by one");
            let mut outcomes = Vec::with_capacity(submissions.len());
            for submission in submissions {
                let one = std::slice::from_ref(submission);
                match write_together(store, one).await {
                    Ok(mut written) => outcomes.append(&mut written),
                    Err(err) => match write_alone_again(store, one, err).await {
                        Ok(mut written) => outcomes.append(&mut written),
                        Err(err) => outcomes.push(Err(err)),
                    },
                }
            }
            Ok(outcomes)
        }
    }
}

/// A lone submission that lost a race (`Conflict`: its idempotency key was recorded by
/// another writer meanwhile) is written once more, and then answers as a replay.
async fn write_alone_again(
    store: &dyn Store,
    one: &[Submission],
    err: StoreError,
) -> Result<Outcomes, StoreError> {
    match err {
        StoreError::Conflict(_) => write_together(store, one).await,
        other => Err(other),
    }
}

async fn write_together(
    store: &dyn Store,
    submissions: &[Submission],
) -> Result<Outcomes, StoreError> {
    let mut tx = store.begin().await?;
    // Expiry is checked on every match: a prompt past its time settles (and its fallback
    // holds its run) before anything of this batch could join it or slip past the hold.
    if let Some(now) = submissions.iter().map(|s| s.now).max() {
        if tx.next_deadline().await?.is_some_and(|at| at <= now) {
            expire::due_in(tx.as_mut(), now).await?;
        }
    }
    let mut run_ids: Vec<&str> = submissions
        .iter()
        .map(|s| s.request.run_id.as_str())
        .collect();
    run_ids.sort_unstable();
    run_ids.dedup();
    let holds = tx.run_holds(&run_ids).await?;
    let mut deferred = submit::Deferred::default();
    let mut outcomes = Vec::with_capacity(submissions.len());
    for submission in submissions {
        let hold = holds.get(&submission.request.run_id);
        let outcome = submit::record(tx.as_mut(), submission, hold, &mut deferred).await?;
        outcomes.push(Ok(outcome));
    }
    deferred.flush(tx.as_mut()).await?;
    tx.commit().await?;
    Ok(outcomes)
}
