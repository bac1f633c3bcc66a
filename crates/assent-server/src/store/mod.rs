//! Durable state behind one trait, so a second backend (Postgres) is a second implementation.
//!
//! A backend is storage: rows in transactions ([`rows::Tx`]) and an event bus
//! ([`rows::EventBus`]); the workflow's rules are in `assent_core::workflow`, sequenced by
//! `crate::workflow`. See `README-rows.md` in this folder.

mod error;
mod pg;
pub mod rows;
mod sqlite;

use assent_core::{ActionRequest, ApprovalAuditEvent, ApprovalStatus, Evaluation};
use assent_core::{FallbackOnTimeout, GrantStatus, Identity, IdentityKind, Role, Vote};
use assent_protocol::{
    Approval, Event, Grant, IdentityInfo, Metrics, Resolution, RunState, RunStatus, SubmitResponse,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

pub use error::StoreError;
pub use pg::PgStore;
pub use rows::{ApprovalRecord, EventBus, NewGrant, Tx};
pub use sqlite::SqliteStore;

/// One evaluated request, ready to be recorded.
#[derive(Debug, Clone)]
pub struct Submission {
    pub action_id: String,
    /// Who submitted it (the token's identity); idempotency keys are per requester.
    pub requester: String,
    /// Hash of the request body, to tell a resubmit from a reused key (empty without a key).
    pub body_hash: String,
    pub request: ActionRequest,
    pub eval: Evaluation,
    pub now: DateTime<Utc>,
    /// When a prompt opened now would expire.
    pub approval_expires_at: DateTime<Utc>,
    pub fallback_on_timeout: FallbackOnTimeout,
    /// How many distinct people a prompt opened now needs.
    pub required_approvals: u32,
    /// Denials of this run decided at or after this time answer an equivalent request at
    /// once (`None`: the policy's `deny_memory` is off).
    pub denials_since: Option<DateTime<Utc>>,
    /// Screening only (`POST /v1/actions/screen`): an ask opens no prompt, uses no grant and
    /// records nothing; plain decisions and remembered denials are recorded as usual.
    pub screen: bool,
    /// Whether the policy routes prompts (`[routing] escalate_after` is set): a prompt opened
    /// now asks the people present first (see `crate::routing`).
    pub routed: bool,
    /// The model reviewer is expected to approve the prompt it may open alone (`decide` mode,
    /// eligible): recording it is an automated decision, committed as durably as the policy's
    /// own (see `workflow::batch`).
    pub reviewer_takes: bool,
}

/// What recording a submission came to.
#[derive(Debug, Clone)]
pub enum Submitted {
    /// Newly recorded.
    Recorded(SubmitResponse),
    /// Newly recorded, pending in a prompt it opened or joined: the prompt as this
    /// transaction left it (what the model reviewer starts from, with nothing read again).
    Prompted(SubmitResponse, Box<ApprovalRecord>),
    /// The same key and body came before: its first answer.
    Replayed(SubmitResponse),
    /// The same key came before with another body.
    KeyReused,
}

/// A person's (or the timeout's) answer to a pending approval.
#[derive(Debug, Clone)]
pub struct Settlement {
    pub approval_id: String,
    pub status: ApprovalStatus,
    pub resolution: Resolution,
    /// The person (or `timeout`, `run-end`).
    pub decided_by: String,
    /// The role the person acted in.
    pub decided_role: Option<Role>,
    /// Everyone who approved, where the policy asked for more than one person.
    pub votes: Vec<Vote>,
    pub reason: Option<String>,
    pub grant: Option<NewGrant>,
    pub now: DateTime<Utc>,
}

/// A settled approval and the grant it created.
#[derive(Debug, Clone)]
pub struct Settled {
    pub approval: Approval,
    pub grant: Option<Grant>,
}

/// What ending a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunEnd {
    pub grants_expired: u32,
    pub approvals_cancelled: u32,
}

/// A recorded action, as far as deciding on it matters.
#[derive(Debug, Clone)]
pub struct ActionSummary {
    pub action_id: String,
    pub status: assent_protocol::SubmitStatus,
    pub approval_id: Option<String>,
}

/// An executed-action report, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executed {
    pub action_id: String,
    /// Whether an auto decision, a grant or an approval allowed what ran.
    pub covered: bool,
}

/// A token as stored: its hash and where it lives.
#[derive(Debug, Clone, Copy)]
pub struct TokenRecord<'a> {
    pub hash: &'a str,
    pub label: &'a str,
}

/// A person acting, and the role they act in.
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    pub name: &'a str,
    pub role: Option<Role>,
}

impl<'a> Actor<'a> {
    /// A person acting outside an approval's required role (revoke, resume, undo): in the role
    /// they hold closest to the task (`task_author` first).
    pub fn person(who: &'a Identity) -> Actor<'a> {
        Actor {
            name: &who.name,
            role: who.role_for(None),
        }
    }
}

/// Who revokes a grant, and why.
#[derive(Debug, Clone, Copy)]
pub struct Revocation<'a> {
    pub by: Actor<'a>,
    pub reason: &'a str,
}

/// Whether an enrolment invite may still be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InviteState {
    /// Open, for this person.
    Open(String),
    Used,
    Expired,
    Unknown,
}

/// A person's passkey as stored.
#[derive(Debug, Clone)]
pub struct PasskeyRow {
    /// The credential id, base64url (as the browser names it).
    pub credential_id: String,
    pub person: String,
    pub label: String,
    /// The verifier's state of the key (public key, counter), as JSON.
    pub passkey: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A browser session as stored (under its cookie's hash).
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub person: String,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

/// A browser's push subscription as stored (keys in base64url).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushSubscriptionRow {
    pub endpoint: String,
    pub person: String,
    pub p256dh: String,
    pub auth: String,
    pub expires_at_ms: Option<i64>,
}

/// A registered webhook as stored, its signing secret included (never answered after its
/// creation; `Debug` leaves it out).
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookRow {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub agent: Option<String>,
    pub allow_private: bool,
    /// `whsec_…`.
    pub secret: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

impl std::fmt::Debug for WebhookRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookRow")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("events", &self.events)
            .field("agent", &self.agent)
            .field("allow_private", &self.allow_private)
            .finish_non_exhaustive()
    }
}

/// A delivery claimed for one attempt, with what sending it needs.
#[derive(Debug, Clone)]
pub struct ClaimedDelivery {
    /// The `webhook-id`.
    pub id: String,
    pub webhook: WebhookRow,
    /// The exact body, the same on every attempt.
    pub body: String,
    /// Attempts made before this one.
    pub attempts: u32,
    pub created_at: DateTime<Utc>,
}

/// What one attempt came to, and what happens next.
#[derive(Debug, Clone)]
pub struct AttemptRow {
    pub delivery_id: String,
    pub at: DateTime<Utc>,
    pub status: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    pub outcome: assent_protocol::DeliveryState,
    /// When the next attempt is due (`Pending` only).
    pub next_at: Option<DateTime<Utc>>,
}

/// A WebAuthn ceremony between its start and its finish.
#[derive(Debug, Clone)]
pub struct CeremonyRow {
    pub id: String,
    /// `register`, `sign_in` or `step_up`.
    pub kind: String,
    pub person: Option<String>,
    /// What it is bound to: an invite's code hash, or `approval_id:action_hash`.
    pub bound: Option<String>,
    /// The origin it started from, where it must finish.
    pub origin: String,
    /// The verifier's state, as JSON.
    pub state: String,
    pub expires_at: DateTime<Utc>,
}

/// The storage of the service: write transactions over rows, the event bus, reads, and the
/// identities. It decides nothing; `crate::workflow` sequences the rules over it.
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug {
    /// A write transaction; what it writes commits together (see [`Tx`]).
    async fn begin(&self) -> Result<Box<dyn Tx>, StoreError>;
    /// A write transaction for what was decided automatically: the policy's own auto and block
    /// records (no person's decision, no grant used, no prompt, no expiry), and the model
    /// reviewer's approval with its grant and `reviewed` record. Its commit returns once
    /// committed, so the service's crash loses none of it, and reaches the disk a moment later
    /// (SQLite: the checkpointer's fsync, ≤ 250 ms after; PostgreSQL: `synchronous_commit =
    /// off`, ≤ 3 × `wal_writer_delay`). Power lost in that moment loses these records whole,
    /// never half of one, and with them the chain's tail: what remains still verifies.
    async fn begin_relaxed(&self) -> Result<Box<dyn Tx>, StoreError>;
    /// The event log and its signal that it grew.
    fn events(&self) -> &dyn EventBus;

    async fn action(&self, action_id: &str) -> Result<Option<ActionSummary>, StoreError>;
    async fn approval(&self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError>;
    /// Approvals, newest first; only pending ones when `pending_only`.
    async fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>, StoreError>;
    async fn grants(
        &self,
        status: Option<GrantStatus>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError>;
    /// The earliest `expires_at` of a pending approval or of a grant whose expiry is not
    /// announced yet; `None` when nothing will expire. Cheap: the sweep asks it often.
    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// When the oldest pending prompt that has not escalated opened.
    async fn oldest_unescalated(&self) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// Marks `people` present on `replica` at `now` (their desk streams are open there).
    async fn presence_touch(
        &self,
        people: &[String],
        replica: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// `person` has no desk stream open on `replica` any more.
    async fn presence_drop(&self, person: &str, replica: &str) -> Result<(), StoreError>;
    /// Whether a run is running, paused or cancelled.
    async fn run_state(&self, run_id: &str) -> Result<RunState, StoreError>;
    /// The runs held with `status` (paused or cancelled), most recently held first.
    async fn held_runs(&self, status: RunStatus) -> Result<Vec<RunState>, StoreError>;
    async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError>;
    /// The last `limit` audit events of run `run_id`, oldest first (what the model reviewer
    /// reads of the run).
    async fn recent_audit(
        &self,
        run_id: &str,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError>;
    async fn metrics(&self, now: DateTime<Utc>) -> Result<Metrics, StoreError>;
    /// The denials run `run_id` remembers (answered at once when asked again), newest first.
    /// Only denials decided at or after `since` count (the policy's `deny_memory`).
    async fn remembered_denials(
        &self,
        run_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError>;

    /// Up to `limit` audit rows after table row `after`, in append order (the chain's
    /// `verify` and `export` page through them, so a large audit never sits in memory).
    async fn audit_chain_page(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, crate::audit_chain::ChainRow)>, StoreError>;
    /// From now on, signs the chain's head with `signer`'s key inside every write transaction
    /// whose appends cross a multiple of `signer.every` events (`None`: by time only).
    fn sign_every(&self, signer: Option<crate::audit_chain::CountSigner>);
    /// Every signed checkpoint, in id order.
    async fn audit_checkpoints(&self) -> Result<Vec<crate::audit_chain::Checkpoint>, StoreError>;
    /// Signs the chain's head with `key` when it moved since the last checkpoint.
    async fn audit_checkpoint(
        &self,
        key: &crate::audit_chain::AuditKey,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::audit_chain::Checkpoint>, StoreError>;
    /// The signed record of the rows from before the chain (`None`: not written yet).
    async fn audit_chain_start(&self)
        -> Result<Option<crate::audit_chain::ChainStart>, StoreError>;
    /// Writes that record with `key` when there is none (the service's start): links the rows
    /// from before the chain among themselves and signs them. `None` when it was there.
    async fn audit_sign_chain_start(
        &self,
        key: &crate::audit_chain::AuditKey,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::audit_chain::ChainStart>, StoreError>;

    /// Appends one audit record written outside a request (e.g. a policy change).
    async fn audit_record(&self, event: &ApprovalAuditEvent) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        tx.insert_audits(std::slice::from_ref(event)).await?;
        tx.commit().await
    }

    /// Announces a change of the policy in force on the event stream, with its audit record
    /// when someone is known to have made it.
    async fn policy_changed(
        &self,
        audit: Option<&ApprovalAuditEvent>,
        event: &Event,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        if let Some(audit) = audit {
            tx.insert_audits(std::slice::from_ref(audit)).await?;
        }
        tx.insert_event(at, event).await?;
        tx.commit().await
    }

    /// A counter that grows with every committed change of the identities or their tokens,
    /// by anyone (triggers bump it). Cheap: it is read on every request, to know whether the
    /// service's token cache may still be trusted.
    async fn identity_version(&self) -> Result<i64, StoreError>;
    /// The identity holding the token whose SHA-256 is `token_hash`.
    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError>;
    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError>;
    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError>;
    /// Creates an identity holding one token; `Conflict` when the name is taken.
    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Removes an identity of `kind` and its tokens (they stop working at once); false when
    /// there is none.
    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError>;
    /// Adds and removes a person's roles; `None` when there is no such person.
    async fn person_roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Option<Identity>, StoreError>;
    /// Makes `token` the one token of `name` with its label; false when `name` does not exist.
    async fn token_set(
        &self,
        name: &str,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Forgets `name`'s token with `label`.
    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError>;
    /// Creates the person `owner` and the agent `default` the first time; true when it did.
    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError>;

    // The web desk's sign-in (`crate::web`).
    /// Stores an enrolment invite (its code hashed), with its audit record.
    async fn invite_add(
        &self,
        code_hash: &str,
        person: &str,
        expires_at: DateTime<Utc>,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError>;
    async fn invite_state(
        &self,
        code_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<InviteState, StoreError>;
    /// Adds a passkey, using up the invite it was enrolled with (if any) in the same
    /// transaction; `Conflict` when the invite was used or expired meanwhile, or the key is
    /// registered already.
    async fn passkey_enrol(
        &self,
        key: &PasskeyRow,
        invite: Option<&str>,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError>;
    async fn passkeys_of(&self, person: &str) -> Result<Vec<PasskeyRow>, StoreError>;
    async fn passkey(&self, credential_id: &str) -> Result<Option<PasskeyRow>, StoreError>;
    /// Keeps a passkey's new state (its counter) after a successful assertion.
    async fn passkey_used(
        &self,
        credential_id: &str,
        passkey: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Removes one of `person`'s passkeys; when it was their last, their sessions end too.
    async fn passkey_remove(
        &self,
        person: &str,
        credential_id: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<bool, StoreError>;
    /// Opens a session (its cookie hashed), with its audit record.
    async fn session_add(
        &self,
        token_hash: &str,
        person: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError>;
    async fn session(&self, token_hash: &str) -> Result<Option<SessionRow>, StoreError>;
    async fn session_seen(&self, token_hash: &str, now: DateTime<Utc>) -> Result<(), StoreError>;
    /// Ends a session; false when it was not open.
    async fn session_end(&self, token_hash: &str, now: DateTime<Utc>) -> Result<bool, StoreError>;
    async fn ceremony_put(
        &self,
        ceremony: &CeremonyRow,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Takes a ceremony away (it finishes once); `None` when unknown or expired.
    async fn ceremony_take(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<CeremonyRow>, StoreError>;

    /// Stores a person's push subscription (replacing any at the same endpoint).
    async fn push_subscribe(
        &self,
        row: &PushSubscriptionRow,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Removes `person`'s subscription at `endpoint`; false when there was none.
    async fn push_unsubscribe(&self, person: &str, endpoint: &str) -> Result<bool, StoreError>;
    /// Drops the subscription at `endpoint` (its push service says it is gone).
    async fn push_gone(&self, endpoint: &str) -> Result<(), StoreError>;
    /// `person`'s push subscriptions.
    async fn push_subscriptions(
        &self,
        person: &str,
    ) -> Result<Vec<PushSubscriptionRow>, StoreError>;
    /// The VAPID key shared by the replicas on this database: `candidate` (hex) is stored
    /// when there is none yet; the stored one is answered.
    async fn push_key(&self, candidate: &str) -> Result<String, StoreError>;

    /// Registers a webhook, with its audit record; `Conflict` when its id is taken.
    async fn webhook_add(
        &self,
        row: &WebhookRow,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError>;
    /// Every webhook, oldest first.
    async fn webhooks(&self) -> Result<Vec<WebhookRow>, StoreError>;
    /// Removes a webhook and its deliveries, with its audit record; false when unknown.
    async fn webhook_remove(
        &self,
        id: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<bool, StoreError>;
    /// A webhook's newest `limit` deliveries with their attempts.
    async fn webhook_deliveries(
        &self,
        webhook_id: &str,
        limit: i64,
    ) -> Result<Vec<assent_protocol::WebhookDelivery>, StoreError>;
    /// Claims up to `limit` deliveries due at `now` that no replica holds, until
    /// `lease_until` (each is attempted by one replica at a time).
    async fn webhook_claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError>;
    /// Records an attempt and the delivery's next state; releases its claim.
    async fn webhook_attempted(&self, attempt: &AttemptRow) -> Result<(), StoreError>;
    /// When the earliest pending delivery is due (or its claim ends).
    async fn webhook_next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError>;

    async fn close(&self);
}
