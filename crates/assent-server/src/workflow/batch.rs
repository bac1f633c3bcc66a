//! Group commit, for any backend: submissions queue up and are recorded many to one
//! transaction (plain decisions as multi-row inserts), so one commit (one fsync on SQLite)
//! covers a burst of decisions. Every caller is answered only after the commit that holds
//! its decision.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::{expire, submit};
use assent_core::Decision;

use crate::store::{Store, StoreError, Submission, Submitted, Tx};

/// How many submissions may wait for the writer.
pub const QUEUE_DEPTH: usize = 4096;
/// The most submissions written in one transaction.
const BATCH: usize = 256;

/// A submission waiting for its commit. Boxed: a `Submission` is large, and held by value it
/// was carried in every future between the handler and this queue, which made the handler's
/// future several times larger, copied into its box on every request.
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

/// When a batch that only the policy decided (auto and block records) is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Once committed: a crash of the service loses none of it; the disk has it a moment
    /// later ([`crate::store::Store::begin_relaxed`]). The default: the agent's tool call waits
    /// for no fsync, and what that call then changes is no more durable than this.
    Committed,
    /// Once fsynced, like everything a person decides (`--sync-policy-decisions`).
    Synced,
}

impl Durability {
    pub fn of(sync_policy_decisions: bool) -> Durability {
        if sync_policy_decisions {
            Durability::Synced
        } else {
            Durability::Committed
        }
    }
}

/// The submissions' commits so far, by how durable each was when its callers were answered
/// (`/metrics`: `assent_submission_commits_total`).
#[derive(Debug, Default)]
pub struct Commits {
    fsynced: AtomicU64,
    committed: AtomicU64,
}

impl Commits {
    /// (fsynced, committed only).
    pub fn counts(&self) -> (u64, u64) {
        (
            self.fsynced.load(Ordering::Relaxed),
            self.committed.load(Ordering::Relaxed),
        )
    }

    fn count(&self, relaxed: bool) {
        let counter = if relaxed {
            &self.committed
        } else {
            &self.fsynced
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// How a batch is written: the durability the policy's own decisions get, and where commits
/// are counted.
#[derive(Clone, Copy)]
struct Writing<'a> {
    durability: Durability,
    commits: &'a Commits,
}

/// Runs until every sender is gone: takes what is queued, writes it, answers.
pub async fn group_commit(
    store: Arc<dyn Store>,
    mut queue: mpsc::Receiver<Queued>,
    durability: Durability,
    commits: Arc<Commits>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while queue.recv_many(&mut batch, BATCH).await > 0 {
        let queued: Vec<Queued> = std::mem::take(&mut batch);
        let (submissions, replies): (Vec<_>, Vec<_>) =
            queued.into_iter().map(|q| (*q.submission, q.reply)).unzip();
        match write_batch(
            store.as_ref(),
            &submissions,
            Writing {
                durability,
                commits: &commits,
            },
        )
        .await
        {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    let _ = reply.send(outcome);
                }
            }
            Err(err) => {
                tracing::error!(error = %err, "a batch of submissions failed to commit");
                let full = err.is_disk_full();
                for reply in replies {
                    let failed = if full {
                        StoreError::DiskFull(err.to_string())
                    } else {
                        StoreError::Batch(err.to_string())
                    };
                    let _ = reply.send(Err(failed));
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
    how: Writing<'_>,
) -> Result<Outcomes, StoreError> {
    match write_together(store, submissions, how).await {
        Ok(written) => Ok(written),
        Err(err) if submissions.len() <= 1 => write_alone_again(store, submissions, err, how).await,
        Err(err) => {
            tracing::warn!(error = %err, "batch failed; writing its submissions one by one");
            let mut outcomes = Vec::with_capacity(submissions.len());
            for submission in submissions {
                let one = std::slice::from_ref(submission);
                match write_together(store, one, how).await {
                    Ok(mut written) => outcomes.append(&mut written),
                    Err(err) => match write_alone_again(store, one, err, how).await {
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
    how: Writing<'_>,
) -> Result<Outcomes, StoreError> {
    match err {
        StoreError::Conflict(_) => write_together(store, one, how).await,
        other => Err(other),
    }
}

/// Writes `submissions` in one transaction. When each is decided without a person — by the
/// policy alone, or by the model reviewer expected to approve the prompt it opens — and
/// `durability` allows, the transaction is a relaxed one (`Store::begin_relaxed`): committed
/// before anyone is answered, not waited on to reach the disk. Should recording them write
/// more than that (a held run's prompt, an expiry, a grant's use), it is rolled back and
/// written again, fsynced, as everything a person decides is.
async fn write_together(
    store: &dyn Store,
    submissions: &[Submission],
    how: Writing<'_>,
) -> Result<Outcomes, StoreError> {
    let Writing {
        durability,
        commits,
    } = how;
    if durability == Durability::Committed && submissions.iter().all(automated) {
        let mut tx = store.begin_relaxed().await?;
        let recorded = record_all(tx.as_mut(), submissions).await?;
        if recorded.automated {
            tx.commit().await?;
            commits.count(true);
            return Ok(recorded.outcomes);
        }
        // More than the policy's own record: dropped, rolled back, written again below.
        drop(tx);
    }
    write_full(store, submissions, commits).await
}

/// Writes `submissions` in one fsynced transaction.
async fn write_full(
    store: &dyn Store,
    submissions: &[Submission],
    commits: &Commits,
) -> Result<Outcomes, StoreError> {
    let mut tx = store.begin().await?;
    let recorded = record_all(tx.as_mut(), submissions).await?;
    tx.commit().await?;
    commits.count(false);
    Ok(recorded.outcomes)
}

/// No person decides `s`: the policy alone (auto, or a block no exception can set aside), or
/// the model reviewer, expected to approve the prompt it opens alone. The prompt is then
/// lost or kept with the reviewer's approval, itself committed relaxed: a power loss may lose
/// both, never leave a prompt a person decides that was not written to disk first.
fn automated(s: &Submission) -> bool {
    match s.eval.decision.decision {
        Decision::Auto => true,
        Decision::Block => !s.eval.exceptionable,
        Decision::Ask | Decision::Escalate => s.reviewer_takes && !s.screen,
    }
}

/// What recording a batch gave: each submission's outcome, and whether every row written was
/// an automated one — a plain (auto or block) record of the policy's, or a prompt the reviewer
/// is expected to take — the rest being replays.
struct Recorded {
    outcomes: Outcomes,
    automated: bool,
}

async fn record_all(tx: &mut dyn Tx, submissions: &[Submission]) -> Result<Recorded, StoreError> {
    let mut run_ids: Vec<&str> = submissions
        .iter()
        .map(|s| s.request.run_id.as_str())
        .collect();
    run_ids.sort_unstable();
    run_ids.dedup();
    // Expiry is checked on every match: a prompt past its time settles (and its fallback
    // holds its run) before anything of this batch could join it or slip past the hold. The
    // deadline and the holds are one read; when something expired, the holds are read again,
    // after the fallbacks that may have held a run.
    let (deadline, mut holds) = tx.deadline_and_holds(&run_ids).await?;
    let mut expired = false;
    if let Some(now) = submissions.iter().map(|s| s.now).max() {
        if deadline.is_some_and(|at| at <= now) {
            expire::due_in(tx, now).await?;
            expired = true;
            holds = tx.run_holds(&run_ids).await?;
        }
    }
    let mut deferred = submit::Deferred::default();
    let mut outcomes = Vec::with_capacity(submissions.len());
    for submission in submissions {
        let hold = holds.get(&submission.request.run_id);
        let outcome = submit::record(tx, submission, hold, &mut deferred).await?;
        outcomes.push(Ok(outcome));
    }
    let replays = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Submitted::Replayed(_))))
        .count();
    // A prompt the reviewer is expected to take, as it was expected (no run's hold decided
    // it otherwise); not a grant's use or a remembered denial.
    let reviewer_prompts = outcomes
        .iter()
        .zip(submissions)
        .filter(|(o, s)| {
            s.reviewer_takes
                && matches!(o, Ok(Submitted::Prompted(_, prompt))
                    if prompt.approval.facts.rule == s.eval.decision.rule)
        })
        .count();
    let automated = !expired && deferred.len() + replays + reviewer_prompts == submissions.len();
    deferred.flush(tx).await?;
    Ok(Recorded {
        outcomes,
        automated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use assent_core::{Environment, FallbackOnTimeout, Policy};
    use assent_protocol::{SubmitResponse, SubmitStatus};
    use chrono::{DateTime, Duration, Utc};

    use crate::store::{Store, Submission};
    use crate::SqliteStore;

    /// An ask (`mvn -B test` in an unknown repository) of run `run`, submitted at `now`;
    /// unanswered, it pauses its run at its expiry, ten minutes on.
    fn ask(id: &str, run: &str, now: DateTime<Utc>) -> Submission {
        shell(id, run, "mvn -B test", now)
    }

    /// `command` run in /work/shop by run `run`, submitted at `now`.
    fn shell(id: &str, run: &str, command: &str, now: DateTime<Utc>) -> Submission {
        let request: assent_core::ActionRequest = serde_json::from_value(serde_json::json!({
            "run_id": run, "task_id": run, "requested_by": "agent",
            "action": {"kind": "shell", "command": command, "cwd": "/work/shop"},
            "context": {"repo": "/work/shop"}
        }))
        .unwrap();
        let eval =
            assent_core::evaluate(&Policy::default(), &request, &Environment::new("/home/dev"))
                .unwrap();
        Submission {
            action_id: id.to_owned(),
            requester: "agent".to_owned(),
            body_hash: String::new(),
            request,
            eval,
            now,
            approval_expires_at: now + Duration::minutes(10),
            fallback_on_timeout: FallbackOnTimeout::Pause,
            required_approvals: 1,
            denials_since: None,
            screen: false,
            routed: false,
            reviewer_takes: false,
        }
    }

    async fn write_one(store: &SqliteStore, submission: Submission) -> SubmitResponse {
        write_counted(store, submission, &Commits::default()).await
    }

    async fn write_counted(
        store: &SqliteStore,
        submission: Submission,
        commits: &Commits,
    ) -> SubmitResponse {
        let how = Writing {
            durability: Durability::Committed,
            commits,
        };
        let mut outcomes = write_batch(store, &[submission], how).await.unwrap();
        match outcomes.pop() {
            Some(Ok(Submitted::Recorded(answer) | Submitted::Prompted(answer, _))) => answer,
            other => unreachable!("one submission, recorded: {other:?}"),
        }
    }

    fn noon() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-04T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    /// The batch reads the deadline and its runs' holds in one statement, before expiry runs:
    /// when the prompt that expires pauses this very run, the holds must be read again after
    /// it, or the ask would slip past the pause it arrived after (no sweep ran in between).
    #[tokio::test]
    async fn an_ask_after_its_runs_prompt_paused_it_is_blocked_before_any_sweep() {
        let (_dir, store) = SqliteStore::temporary().await;
        let start = noon();
        let first = write_one(&store, ask("a1", "r1", start)).await;
        assert_eq!(
            first.status,
            SubmitStatus::Pending,
            "the ask opens a prompt: {first:?}"
        );

        let after = start + Duration::minutes(11);
        let second = write_one(&store, ask("a2", "r1", after)).await;
        assert_eq!(
            (second.status, second.facts.rule.as_str()),
            (SubmitStatus::Blocked, "run.paused"),
            "the first prompt expired unanswered and paused r1 in this batch: {second:?}"
        );
        store.close().await;
    }

    /// An auto decision is the policy's own record, committed without an fsync; one arriving
    /// after a prompt expired is more (the expiry settles the prompt in the same batch): it is
    /// rolled back and written the full way, fsynced, the expiry with it.
    #[tokio::test]
    async fn an_auto_decision_after_an_expiry_is_written_the_full_way() {
        let (_dir, store) = SqliteStore::temporary().await;
        let start = noon();
        let commits = Commits::default();
        let asked = write_counted(&store, ask("a1", "r1", start), &commits).await;
        assert_eq!(asked.status, SubmitStatus::Pending, "{asked:?}");
        let auto = write_counted(&store, shell("a2", "r2", "ls", start), &commits).await;
        assert_eq!(auto.status, SubmitStatus::Allowed, "ls is auto: {auto:?}");
        assert_eq!(
            commits.counts(),
            (1, 1),
            "the prompt fsynced, the auto decision only committed"
        );

        let later = start + Duration::minutes(11);
        let auto = write_counted(&store, shell("a3", "r2", "ls", later), &commits).await;
        assert_eq!(auto.status, SubmitStatus::Allowed, "{auto:?}");
        assert_eq!(
            commits.counts(),
            (2, 1),
            "after the prompt's expiry the auto decision was written the full way, fsynced"
        );
        assert!(
            store.approvals(true).await.unwrap().is_empty(),
            "and the expired prompt was settled in that batch"
        );
        store.close().await;
    }
}
