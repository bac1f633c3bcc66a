//! The one workflow, for every backend: each operation sequences the core's pure rules
//! (`assent_core::workflow`) over the storage interface (`crate::store::Tx`), one file per
//! operation. Routes and the expiry sweeper call [`Workflow`]; a store only keeps rows.

pub mod ask_steps;
mod asked;
mod batch;
pub mod campaign;
mod decide;
mod decide_error;
mod end_run;
pub mod executed;
mod expire;
mod expired_grants;
mod forget;
mod invalidate;
mod pr_gate;
mod publish;
mod release;
mod resume;
mod revoke;
mod settle;
pub mod start;
mod submit;
mod vote;
mod waited;

use std::sync::Arc;

use assent_core::Identity;
use assent_protocol::{Approval, DecisionRequest, DecisionResponse, Grant, RunState};
use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};

pub use decide::{ByReviewer, Ground};
pub use decide_error::DecideError;
pub use release::{ReleaseAsk, ReleaseRefused};

use crate::store::{
    Actor, ApprovalRecord, Executed, Revocation, RunEnd, Store, StoreError, Submission, Submitted,
};

/// The workflow over one store, with its submission queue (group commit); cheap to clone.
#[derive(Debug, Clone)]
pub struct Workflow {
    store: Arc<dyn Store>,
    submissions: mpsc::Sender<batch::Queued>,
    commits: Arc<batch::Commits>,
    /// How durable the automated decisions are when answered: the policy's own, and the
    /// model reviewer's approvals (`--sync-policy-decisions` fsyncs both).
    durability: batch::Durability,
}

impl Workflow {
    /// The workflow over `store`; starts the group-commit writer, which ends when the last
    /// clone is dropped. Needs a Tokio runtime. `sync_policy_decisions`: the policy's own
    /// decisions are fsynced before they are answered too (see [`crate::Config`]).
    pub fn new(store: Arc<dyn Store>, sync_policy_decisions: bool) -> Workflow {
        let (submissions, queue) = mpsc::channel(batch::QUEUE_DEPTH);
        let commits = Arc::new(batch::Commits::default());
        let durability = batch::Durability::of(sync_policy_decisions);
        tokio::spawn(batch::group_commit(
            store.clone(),
            queue,
            durability,
            commits.clone(),
        ));
        Workflow {
            store,
            submissions,
            commits,
            durability,
        }
    }

    /// How many of the submissions' commits were fsynced before their answers, and how many
    /// only committed (the policy's own decisions), since the service started.
    pub fn commit_counts(&self) -> (u64, u64) {
        self.commits.counts()
    }

    /// Records a submission: idempotency, run hold, grant use, remembered denial or prompt,
    /// action and audit. Answered after the commit of the batch that holds it.
    pub async fn submit(&self, submission: Box<Submission>) -> Result<Submitted, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.submissions
            .send(batch::Queued { submission, reply })
            .await
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// `who` decides the prompt `record`: a deny or an approval meeting the threshold settles
    /// it (with the grant the approval issues), an approval short of it is a vote.
    pub async fn decide(
        &self,
        record: &ApprovalRecord,
        who: &Identity,
        request: DecisionRequest,
        ground: Ground<'_>,
    ) -> Result<DecisionResponse, DecideError> {
        decide::decide(self.store.as_ref(), record, who, request, ground).await
    }

    /// The model reviewer `by` approves `record` alone, when the policy lets it, and its call
    /// is audited in the same transaction (see `decide::reviewer_approves`). An automated
    /// decision like the policy's own: committed as durably as those are (relaxed, unless
    /// `--sync-policy-decisions`).
    pub async fn reviewer_approves(
        &self,
        record: &ApprovalRecord,
        by: ByReviewer<'_>,
        eval: &assent_core::Evaluation,
        ground: Ground<'_>,
    ) -> Result<DecisionResponse, DecideError> {
        let relaxed = self.durability == batch::Durability::Committed;
        let store = self.store.as_ref();
        decide::reviewer_approves(store, record, by, eval, ground, relaxed).await
    }

    /// Audits one reviewer call (when given) and, while the prompt is pending, announces the
    /// prompt with the reviewer's part in it (`approval.updated`), in one transaction.
    pub async fn record_review(
        &self,
        audit: Option<&assent_core::ApprovalAuditEvent>,
        updated: Option<&Approval>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin().await?;
        if let Some(audit) = audit {
            tx.insert_audits(std::slice::from_ref(audit)).await?;
        }
        if let Some(approval) = updated {
            let event = assent_protocol::Event::ApprovalUpdated {
                approval: approval.clone(),
            };
            tx.insert_event(now, &event).await?;
        }
        tx.commit().await
    }

    /// A gate waiting on `approval` is answered with it: a "once" approval's one use is that
    /// gate's execution (see `waited`); true when this call spent it.
    pub async fn gate_answered(
        &self,
        approval: &Approval,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        waited::spend_once(self.store.as_ref(), approval, now).await
    }

    /// Revokes a grant; `None` when there is no such grant, `Conflict` when already revoked.
    pub async fn revoke_grant(
        &self,
        grant_id: &str,
        revocation: Revocation<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        revoke::revoke(self.store.as_ref(), grant_id, revocation, now).await
    }

    /// Ends a run: run grants expire, pending prompts are cancelled — with `by` (an agent),
    /// only its own.
    pub async fn end_run(
        &self,
        run_id: &str,
        by: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<RunEnd, StoreError> {
        end_run::end_run(self.store.as_ref(), run_id, by, now).await
    }

    /// Settles approvals past their time (with their fallbacks) and announces expired grants.
    pub async fn expire_due(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        expire::due(self.store.as_ref(), now).await
    }

    /// Escalates the pending prompts opened `after` or longer ago that have not escalated
    /// (see `ask_steps`); what escalated, with who each newly asked.
    pub async fn escalate_due(
        &self,
        after: assent_core::policy::routing::Span,
        now: DateTime<Utc>,
    ) -> Result<Vec<ask_steps::Escalated>, StoreError> {
        ask_steps::escalate_due(self.store.as_ref(), after, now).await
    }

    /// Lets a paused run ask again; `Conflict` when it is not paused.
    pub async fn resume_run(
        &self,
        run_id: &str,
        by: Actor<'_>,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        resume::resume(self.store.as_ref(), run_id, by, now).await
    }

    /// Forgets a remembered denial; `None` when there is no such approval, `Conflict` when it
    /// is not a remembered denial.
    pub async fn forget_denial(
        &self,
        approval_id: &str,
        by: Actor<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Approval>, StoreError> {
        forget::forget(self.store.as_ref(), approval_id, by, now).await
    }

    /// Records that the requester ran what it submitted under `idempotency_key` in `run_id`
    /// (audited once); `None` when it never submitted that.
    pub async fn record_executed(
        &self,
        requester: &str,
        run_id: &str,
        by: crate::store::rows::ExecutedBy<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Executed>, StoreError> {
        executed::executed(self.store.as_ref(), requester, run_id, by, now).await
    }

    /// Records and audits an execution nothing was submitted for as uncovered (see
    /// `unsubmitted`).
    pub async fn record_unsubmitted(
        &self,
        ran: executed::Unsubmitted<'_>,
        now: DateTime<Utc>,
    ) -> Result<Executed, StoreError> {
        executed::unsubmitted(self.store.as_ref(), ran, now).await
    }

    /// Hands an approved capability request its secret, once (see `release`).
    pub async fn release_credential(
        &self,
        ask: ReleaseAsk<'_>,
    ) -> Result<assent_protocol::CredentialRelease, ReleaseRefused> {
        release::release(self.store.as_ref(), ask).await
    }
}
