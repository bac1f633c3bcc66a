//! The storage interface: rows in one transaction ([`Tx`]) and the event bus ([`EventBus`]).
//!
//! A backend stores and finds rows; it decides nothing. Which prompt a request joins, whether
//! a run's hold answers it, what a timeout does, which grant an approval issues and what the
//! audit says are rules (`assent_core::workflow`), sequenced by `crate::workflow` over these
//! methods. See `README-rows.md` next to this file for the contract a backend keeps.

use std::collections::HashMap;

use assent_core::workflow::PendingPrompt;
use assent_core::{
    ActionKind, ActionRequest, ApprovalAuditEvent, ApprovalGrant, ApprovalStatus, Decision,
    RiskLevel, Role, ScopeKind, Vote,
};
use assent_protocol::{
    Approval, Event, EventEnvelope, Grant, Recommendation, Resolution, RunState, RunStatus,
    SubmitResponse, SubmitStatus,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::error::StoreError;

/// One row of `actions`: a recorded submission and its first answer.
#[derive(Debug, Clone)]
pub struct ActionRow {
    pub id: String,
    pub requester: String,
    pub idempotency_key: Option<String>,
    /// Hash of the request body, to tell a resubmit from a reused key.
    pub body_hash: String,
    pub run_id: String,
    pub task_id: String,
    pub action_hash: String,
    pub decision: Decision,
    pub status: SubmitStatus,
    pub approval_id: Option<String>,
    /// Its place in the prompt it joined (1 for the opener); `None` when it joined none.
    pub batch_position: Option<i64>,
    pub grant_id: Option<String>,
    pub command_line: Option<String>,
    /// The answer replayed for the same idempotency key and body.
    pub response: SubmitResponse,
    pub created_at: DateTime<Utc>,
    pub action_kind: ActionKind,
    pub policy_version: String,
}

/// What `requester` was first answered under an idempotency key.
#[derive(Debug, Clone)]
pub struct KeyedAnswer {
    pub body_hash: String,
    pub response: SubmitResponse,
}

/// Which submitted action an executed report names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutedBy<'a> {
    /// The one submitted under this idempotency key.
    Key(&'a str),
    /// The latest not yet executed one with this action hash: for an agent whose permission
    /// step carries no call id (Codex's PermissionRequest). It takes the report's `key` if it
    /// has none, so a repeated report finds it by that key.
    ActionHash { hash: &'a str, key: &'a str },
}

/// A submitted action, as an executed-report needs it.
#[derive(Debug, Clone)]
pub struct ExecutedRow {
    pub action_id: String,
    pub task_id: String,
    pub action_hash: String,
    pub status: SubmitStatus,
    pub approval_id: Option<String>,
    /// The status of the approval it joined, if any.
    pub approval_status: Option<ApprovalStatus>,
    pub grant_id: Option<String>,
    pub action_kind: ActionKind,
    pub policy_version: String,
    pub command_line: Option<String>,
    /// When it was first reported executed.
    pub executed_at: Option<DateTime<Utc>>,
}

/// A new row of `approval_requests`: a prompt, pending, with one member.
#[derive(Debug, Clone)]
pub struct ApprovalRow {
    pub id: String,
    pub run_id: String,
    pub task_id: String,
    pub requester: String,
    pub batch_key: String,
    pub action_kind: ActionKind,
    pub risk: RiskLevel,
    pub requested_scope: Vec<ScopeKind>,
    pub required_role: Option<Role>,
    pub action_hash: String,
    pub first_request: ActionRequest,
    /// The parts fixed when it opens (stored as one JSON document).
    pub detail: PromptDetail,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    /// Who its first step asks (see `crate::routing`).
    pub asked: Option<assent_protocol::AskedSteps>,
}

/// The columns a settlement writes.
#[derive(Debug, Clone, Copy)]
pub struct SettleRow<'a> {
    pub approval_id: &'a str,
    pub status: ApprovalStatus,
    pub resolution: Resolution,
    pub decided_by: &'a str,
    pub decided_role: Option<Role>,
    pub reason: Option<&'a str>,
    pub grant_id: Option<&'a str>,
    pub now: DateTime<Utc>,
}

/// Which pending approvals to list.
#[derive(Debug, Clone, Copy)]
pub enum Pending<'a> {
    /// Those with `expires_at <= now`. A backend shared by replicas locks what it returns
    /// (`FOR UPDATE SKIP LOCKED`), so each timeout happens once.
    DueAt(DateTime<Utc>),
    /// Those of a run.
    OfRun(&'a str),
    /// Those of a run asked by one agent identity (`run`, `requester`).
    OfRunBy(&'a str, &'a str),
}

/// What a request's remembered denial is looked up by.
#[derive(Debug, Clone, Copy)]
pub struct DenialProbe<'a> {
    pub run_id: &'a str,
    pub requester: &'a str,
    pub action_hash: &'a str,
    pub batch_key: &'a str,
    /// Only denials decided at or after this count.
    pub since: DateTime<Utc>,
}

/// What an ask's reads ([`Tx::ask_reads`]) are made for.
#[derive(Debug, Clone, Copy)]
pub struct AskProbe<'a> {
    pub run_id: &'a str,
    pub requester: &'a str,
    pub batch_key: &'a str,
    pub now: DateTime<Utc>,
    /// Its remembered denial is looked up when the policy remembers denials.
    pub denial: Option<DenialProbe<'a>>,
}

/// What recording an ask reads, each as its own method reads it: the live grants that may
/// cover it ([`Tx::grant_candidates`]), the denial of an equivalent request its run remembers
/// ([`Tx::remembered_denial`]), the pending prompts of its batch key it could join (at most 8,
/// oldest first; `assent_core::workflow::joinable` picks one), and the people, who may decide
/// a prompt it opens ([`Tx::people`]). None depends on another: they are read together,
/// before the first write.
#[derive(Debug, Clone)]
pub struct AskReads {
    pub candidates: Vec<ApprovalGrant>,
    pub denial: Option<RememberedDenial>,
    pub joinable: Vec<PendingPrompt>,
    pub people: Vec<assent_core::Identity>,
}

/// A person's denial that answers an equivalent request of its run.
#[derive(Debug, Clone)]
pub struct RememberedDenial {
    pub approval_id: String,
    pub decided_by: String,
    pub decided_role: Option<Role>,
    pub reason: String,
}

/// A hold on a run, as written.
#[derive(Debug, Clone, Copy)]
pub struct HoldRow<'a> {
    pub run_id: &'a str,
    /// `Paused` or `Cancelled`.
    pub status: RunStatus,
    pub reason: &'a str,
    /// The unanswered approval that holds it.
    pub approval_id: &'a str,
    pub now: DateTime<Utc>,
    /// The fleet campaign it belongs to; `None` keeps what the row says.
    pub campaign: Option<&'a str>,
}

/// An approval with what the service needs to decide it.
#[derive(Debug, Clone)]
pub struct ApprovalRecord {
    pub approval: Approval,
    pub requester: String,
    /// The request that opened the prompt.
    pub first_request: ActionRequest,
    /// The policy version the prompt was opened under.
    pub policy_version: String,
}

/// A grant to create with a settlement.
#[derive(Debug, Clone)]
pub struct NewGrant {
    pub grant: ApprovalGrant,
    pub summary: String,
    /// The role the granting person acted in.
    pub created_by_role: Option<Role>,
}

/// One write transaction over the service's rows. What is written through it commits
/// together with [`Tx::commit`]; dropping it uncommitted rolls everything back.
///
/// Methods with a guard ("still pending", "not revoked", …) say so: they return `false`,
/// `None` or [`StoreError::Conflict`] when the row changed under them (another request or
/// replica got there first), and the workflow answers 409 or moves on.
#[async_trait]
pub trait Tx: Send {
    // Actions.
    /// What `requester` was first answered under idempotency key `key`.
    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError>;
    /// Inserts action rows; a backend may write them in few multi-row statements. A
    /// duplicate (requester, idempotency key) is [`StoreError::Conflict`].
    async fn insert_actions(&mut self, rows: &[ActionRow]) -> Result<(), StoreError>;
    /// The action `requester` submitted in `run_id` that `by` names.
    async fn executed_candidate(
        &mut self,
        requester: &str,
        run_id: &str,
        by: ExecutedBy<'_>,
    ) -> Result<Option<ExecutedRow>, StoreError>;
    /// Sets `executed_at` of an action, and its idempotency key to `key` when it has none
    /// (found by its action hash: a repeated report then finds it by the key).
    async fn mark_executed(
        &mut self,
        action_id: &str,
        key: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Sets `executed_at` of an action not executed yet; false when it already was (a
    /// capability's secret is released once per execution).
    async fn claim_execution(
        &mut self,
        action_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    // Approvals.
    /// What recording an ask reads before it writes anything, read at once (one round trip on
    /// SQLite): see [`AskReads`].
    async fn ask_reads(&mut self, probe: AskProbe<'_>) -> Result<AskReads, StoreError>;
    /// Adds one member to an approval that is still pending and unexpired at `now`; the new
    /// member's position, `None` when the guard failed.
    async fn join_approval(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError>;
    /// Inserts a pending approval with one member.
    async fn insert_approval(&mut self, row: &ApprovalRow) -> Result<(), StoreError>;
    /// An approval with its members (actions with a batch position) and votes.
    async fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError>;
    /// Settles an approval that is still pending, with the `votes` that settled it; `Conflict`
    /// when it is not. The approval as settled, with its members and votes (read with the
    /// update's own `RETURNING` and the member and vote queries: nothing read twice).
    async fn settle_approval(
        &mut self,
        row: SettleRow<'_>,
        votes: &[Vote],
    ) -> Result<ApprovalRecord, StoreError>;
    /// Touches (`updated_at`) an approval that is still pending; `Conflict` when it is not.
    async fn touch_pending(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Records a person's approval of a prompt (once per person; a repeat is ignored).
    async fn insert_vote(&mut self, approval_id: &str, vote: &Vote) -> Result<(), StoreError>;
    /// Ids of pending approvals.
    async fn pending_approvals(&mut self, which: Pending<'_>) -> Result<Vec<String>, StoreError>;
    /// The newest person's denial, not forgotten, of the run matching the probe's action hash
    /// or batch key and requester.
    async fn remembered_denial(
        &mut self,
        probe: DenialProbe<'_>,
    ) -> Result<Option<RememberedDenial>, StoreError>;
    /// The diff approvals (`evidence.type = diff`) of a run, oldest first: what a PR of the
    /// run depends on (`assent_core::workflow::pr_gate` judges them).
    async fn run_diff_approvals(
        &mut self,
        run_id: &str,
    ) -> Result<Vec<assent_protocol::Approval>, StoreError>;
    /// Marks a denied approval forgotten; false when it is not a remembered denial.
    async fn forget_denial(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    // Grants.
    /// Live grants (not revoked, not invalidated, unexpired, uses left) that may cover a
    /// request of `run_id`: the run's own and every grant not bound to a run (`once` and `run`
    /// are bound), oldest first. `ApprovalGrant::covers` decides.
    async fn grant_candidates(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ApprovalGrant>, StoreError>;
    /// Consumes one use of a grant still live at `now`; false when the guard failed.
    async fn use_grant(&mut self, grant_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError>;
    /// A grant as the wire shows it at `now`.
    async fn grant(
        &mut self,
        grant_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError>;
    async fn insert_grant(&mut self, new: &NewGrant) -> Result<(), StoreError>;
    /// Revokes a grant not revoked yet; false when it already was.
    async fn revoke_grant(
        &mut self,
        grant_id: &str,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Marks a grant still live at `now` invalidated with `reason`; false when it already
    /// stopped counting (another request or replica got there first).
    async fn invalidate_grant(
        &mut self,
        grant_id: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Ends the live `run` and `once` grants of a run at `now` (with `requester`, only those
    /// of the prompts that identity asked); how many.
    async fn end_run_grants(
        &mut self,
        run_id: &str,
        requester: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError>;
    /// Grants past their time (not revoked) whose expiry is not announced yet.
    async fn unannounced_expired_grants(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError>;
    /// Marks a grant's expiry announced; false when it already was (another sweep).
    async fn mark_grant_announced(&mut self, grant_id: &str) -> Result<bool, StoreError>;

    // Runs.
    /// The held (paused or cancelled) runs among `run_ids`, one query for a batch.
    async fn run_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<HashMap<String, RunState>, StoreError>;
    /// Holds a run; a cancelled run stays cancelled. The run's state after.
    async fn hold_run(&mut self, hold: HoldRow<'_>) -> Result<RunState, StoreError>;
    /// The runs started in `campaign` that are now in `status`.
    async fn campaign_runs(
        &mut self,
        campaign: &str,
        status: RunStatus,
    ) -> Result<Vec<RunState>, StoreError>;
    /// Lets a paused run ask again; `Conflict` (saying why) when it is not paused.
    async fn resume_run(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError>;

    /// The earliest `expires_at` of a pending approval or of a grant whose expiry is not
    /// announced yet, and [`Tx::run_holds`], in one statement (one round trip): what a batch
    /// of submissions reads first. The transaction also keeps the audit chain's head read
    /// with them, for its first append.
    async fn deadline_and_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<(Option<DateTime<Utc>>, HashMap<String, RunState>), StoreError>;

    // Routing (`crate::routing`).
    /// Every person.
    async fn people(&mut self) -> Result<Vec<assent_core::Identity>, StoreError>;
    /// The people with a desk stream seen since `streams_since` or a web desk session used
    /// since `sessions_since`.
    async fn present(
        &mut self,
        streams_since: DateTime<Utc>,
        sessions_since: DateTime<Utc>,
    ) -> Result<std::collections::BTreeSet<String>, StoreError>;
    /// Records what a pending prompt that has not escalated asked; false when it is no longer
    /// pending or escalated already.
    async fn record_asked(
        &mut self,
        approval_id: &str,
        asked: &assent_protocol::AskedSteps,
    ) -> Result<bool, StoreError>;
    /// Pending prompts opened at or before `opened_by` that have not escalated (locked on a
    /// shared backend, so each escalates once).
    async fn escalation_due(&mut self, opened_by: DateTime<Utc>)
        -> Result<Vec<String>, StoreError>;

    // Fleet campaigns (one document each; core's `campaign` rules change them):
    async fn campaign(
        &mut self,
        campaign_id: &str,
    ) -> Result<Option<assent_core::campaign::Campaign>, StoreError>;
    /// Every campaign, most recently changed first.
    async fn campaigns(&mut self) -> Result<Vec<assent_core::campaign::Campaign>, StoreError>;
    /// `Conflict` when a campaign of that id exists.
    async fn insert_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError>;
    async fn update_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError>;

    // Audit and events.
    /// Appends audit records (a backend may write them in few statements).
    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError>;
    /// Appends an event to the log; its id, from the database, is the SSE id on every replica.
    /// The transaction's newest id moves the event watch at its commit.
    async fn insert_event(&mut self, at: DateTime<Utc>, event: &Event) -> Result<(), StoreError>;

    /// Commits; then the event bus moves to the newest event this wrote. On disk (fsynced)
    /// before it returns, unless begun with [`super::Store::begin_relaxed`].
    async fn commit(self: Box<Self>) -> Result<(), StoreError>;
}

/// The event log as streams read it, and the signal that it grew.
#[async_trait]
pub trait EventBus: Send + Sync + std::fmt::Debug {
    /// Moves to the newest event id after every commit that wrote events (in-process for
    /// SQLite; for a database shared by replicas, e.g. `LISTEN/NOTIFY`, so it moves on every
    /// replica).
    fn watch(&self) -> watch::Receiver<i64>;
    /// Events with an id above `after`, oldest first.
    async fn after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError>;
    /// The oldest and newest stored event ids (0 when there are none).
    async fn bounds(&self) -> Result<(i64, i64), StoreError>;
}

/// The parts of a prompt fixed when it opens (stored as one JSON document).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PromptDetail {
    pub requested_by: assent_core::RequestedBy,
    pub action_kind: assent_core::ActionKind,
    pub repo: Option<String>,
    /// The policy's decision (stored flat, as it always was).
    #[serde(flatten)]
    pub facts: assent_core::RiskDecision,
    pub recommendation: Recommendation,
    pub evidence: assent_core::ApprovalEvidence,
    pub reason: String,
    pub fallback_on_timeout: assent_core::FallbackOnTimeout,
    pub policy_version: String,
    /// How many distinct people must approve (prompts from before thresholds need one).
    #[serde(default = "one")]
    pub required_approvals: u32,
    #[serde(default)]
    pub quick_decisions: Vec<assent_core::QuickDecision>,
}

fn one() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, reason = "tests")]

    use assent_core::{
        ActionKind, ApprovalEvidence, Decision, FallbackOnTimeout, RequestedBy, RiskDecision,
        RiskLevel, ScopeKind,
    };
    use serde_json::{json, Value};

    use super::*;

    #[test]
    fn a_prompt_stored_before_the_facts_were_one_type_still_reads() {
        let detail = PromptDetail {
            requested_by: RequestedBy::Agent,
            action_kind: ActionKind::Shell,
            repo: Some("shop".to_owned()),
            facts: RiskDecision {
                decision: Decision::Ask,
                risk: RiskLevel::Medium,
                reasons: vec!["runs the tests".to_owned()],
                rule: "profile.cargo-test".to_owned(),
                required_role: None,
                profile: None,
                offered_scopes: vec![ScopeKind::Once],
            },
            recommendation: Recommendation {
                decision: "approve".to_owned(),
                scope: Some(ScopeKind::Once),
                text: "Approve this action once".to_owned(),
            },
            evidence: ApprovalEvidence::default(),
            reason: "run the tests".to_owned(),
            fallback_on_timeout: FallbackOnTimeout::Deny,
            policy_version: "v1".to_owned(),
            required_approvals: 1,
            quick_decisions: Vec::new(),
        };
        let now = serde_json::to_value(&detail).expect("a detail serializes");
        assert_eq!(
            (&now["rule"], &now["decision"], &now["offered_scopes"]),
            (
                &json!("profile.cargo-test"),
                &json!("ask"),
                &json!(["once"])
            ),
            "the facts are stored at the document's top level, where they always were: {now}"
        );
        // The document as stored before: every fact at the top level, absent ones as null.
        let mut before = now.clone();
        let fields = before.as_object_mut().expect("an object");
        fields.insert("required_role".to_owned(), Value::Null);
        fields.insert("profile".to_owned(), Value::Null);
        let read: PromptDetail = serde_json::from_value(before).expect("an old row still reads");
        assert_eq!(
            serde_json::to_value(&read).expect("a detail serializes"),
            now,
            "a row stored before reads as the same prompt detail"
        );
    }
}
