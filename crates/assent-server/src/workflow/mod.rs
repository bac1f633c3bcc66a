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
mod executed;
mod expire;
mod expired_grants;
mod forget;
mod intake;
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
pub use intake::{Answered, Context, Prompted, RecentRead, SubmitError, RECENT_AUDIT};
pub use release::{ReleaseAsk, ReleaseRefused};

use crate::store::{
    Actor, ApprovalRecord, Executed, Revocation, RunEnd, Store, StoreError, Submission, Submitted,
};

/// The workflow over one store, with its submission queue (group commit); cheap to clone.
#[derive(Debug, Clone)]
pub struct Workflow {
    store: Arc<dyn Store>,
    /// What requests are decided against (the policy in force, the machine, the clock).
    context: Context,
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
    pub fn new(store: Arc<dyn Store>, context: Context, sync_policy_decisions: bool) -> Workflow {
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
            context,
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

    /// `requester` asks to act: the request is checked, evaluated under the policy in force
    /// and recorded — idempotency, run hold, grant use, remembered denial or prompt, action
    /// and audit. Answered after the commit of the batch that holds it; a prompt it opened or
    /// joined comes back as recorded (see [`Prompted`]). `screen`: an ask only answers
    /// `would_ask` (hooks that can deny but not wait, such as Codex's PreToolUse).
    pub async fn submit(
        &self,
        requester: &str,
        request: assent_core::ActionRequest,
        screen: bool,
    ) -> Result<Answered, SubmitError> {
        let intake::Intake {
            submission,
            expected,
            evaluation,
            policy,
        } = intake::submission(&self.context, requester, request, screen)?;
        // What the reviewer reads of the run, read while the submission is written.
        let recent = expected
            .as_ref()
            .filter(|e| e.takes)
            .map(|_| intake::read_recent(&self.store, &submission.request.run_id));
        let answered = match self.record(submission).await {
            Ok(submitted) => intake::answered(submitted, evaluation, policy, recent),
            Err(err) => Err(err.into()),
        };
        let opened = matches!(&answered, Ok(a) if a.prompt.is_some());
        if let Some(expected) = expected.filter(|_| !opened) {
            self.context.reviews.unexpect(&expected.batch_key);
        }
        answered
    }

    /// `record`'s first request evaluated under the policy in force now: the evaluation given
    /// (made under `policy`) when that policy is still in force, otherwise evaluated again —
    /// the policy was reloaded meanwhile, or there was none. The policy in force comes with it.
    pub fn evaluated_now(
        &self,
        record: &ApprovalRecord,
        policy: Arc<assent_core::Policy>,
        evaluation: Option<assent_core::Evaluation>,
    ) -> (
        Arc<assent_core::Policy>,
        Result<assent_core::Evaluation, assent_core::EvaluateError>,
    ) {
        let today = self.context.policy.current();
        if let Some(evaluation) = evaluation.filter(|_| Arc::ptr_eq(&today, &policy)) {
            return (policy, Ok(evaluation));
        }
        let evaluation = assent_core::evaluate(&today, &record.first_request, &self.context.env);
        (today, evaluation)
    }

    /// Queues a submission for the group commit; answered after the commit that holds it.
    async fn record(&self, submission: Box<Submission>) -> Result<Submitted, StoreError> {
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

    /// `requester` reports it ran an action (`POST /v1/actions/executed`): the action it
    /// submitted under the report's key, else one like the report's action in the run, is
    /// marked executed and audited once; an action never submitted is recorded as uncovered
    /// unless the policy allows it. `None`: nothing to mark (see `executed::reported`).
    pub async fn executed(
        &self,
        requester: &str,
        report: &assent_protocol::ExecutedRequest,
    ) -> Result<Option<Executed>, SubmitError> {
        let now = self.context.clock.now();
        executed::reported(self.store.as_ref(), &self.context, requester, report, now).await
    }

    /// Hands an approved capability request its secret, once (see `release`).
    pub async fn release_credential(
        &self,
        ask: ReleaseAsk<'_>,
    ) -> Result<assent_protocol::CredentialRelease, ReleaseRefused> {
        release::release(self.store.as_ref(), ask).await
    }
}
