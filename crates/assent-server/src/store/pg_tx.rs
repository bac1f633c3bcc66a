//! One PostgreSQL write transaction as a [`Tx`]: each method is a statement or two from the
//! `pg_*` row modules. It starts by taking the writers' advisory lock (see [`WRITE_LOCK`]);
//! at its commit it notifies the other replicas of the newest event it wrote, and moves this
//! replica's watch at once.

use std::collections::HashMap;

use assent_core::workflow::PendingPrompt;
use assent_core::{ApprovalAuditEvent, ApprovalGrant, Vote};
use assent_protocol::{Event, Grant, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{Postgres, Transaction};

use super::pg_bus::{self, PgEvents};
use super::pg_rows::insert_audits;
use super::rows::{
    ActionRow, ApprovalRow, DenialProbe, ExecutedBy, ExecutedRow, HoldRow, KeyedAnswer, Pending,
    RememberedDenial, SettleRow,
};
use super::{pg_actions, pg_approvals, pg_executed, pg_expiry, pg_grants};
use super::{pg_identities, pg_runs, ApprovalRecord, NewGrant, StoreError, Tx};

/// Key of the transaction-level advisory lock every write transaction takes first, on every
/// replica. Writers commit one after the other, so
/// - event ids become visible in id order (a stream reading `id > last` never skips an id
///   that commits later), and
/// - no two transactions wait on each other's row locks in opposite orders (no deadlocks).
///
/// The group commit batches up to 256 submissions per transaction, so one writer at a time
/// still carries thousands of decisions a second. Reads take no lock.
pub const WRITE_LOCK: i64 = 0x6173_7365_6e74_0002;

/// An open write transaction.
pub struct PgTx {
    pub tx: Transaction<'static, Postgres>,
    /// The newest event id this transaction wrote.
    pub newest_event: Option<i64>,
    pub events: PgEvents,
}

impl PgTx {
    /// Begins a write transaction holding [`WRITE_LOCK`].
    pub async fn begin(events: &PgEvents) -> Result<PgTx, StoreError> {
        let mut tx = events.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(WRITE_LOCK)
            .execute(&mut *tx)
            .await?;
        Ok(PgTx {
            tx,
            newest_event: None,
            events: events.clone(),
        })
    }
}

#[async_trait]
impl Tx for PgTx {
    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError> {
        pg_actions::keyed(&mut self.tx, requester, key).await
    }

    async fn insert_actions(&mut self, rows: &[ActionRow]) -> Result<(), StoreError> {
        pg_actions::insert(&mut self.tx, rows).await
    }

    async fn executed_candidate(
        &mut self,
        requester: &str,
        run_id: &str,
        by: ExecutedBy<'_>,
    ) -> Result<Option<ExecutedRow>, StoreError> {
        pg_executed::candidate(&mut self.tx, requester, run_id, by).await
    }

    async fn mark_executed(
        &mut self,
        action_id: &str,
        key: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        pg_executed::mark(&mut self.tx, action_id, key, now).await
    }

    async fn claim_execution(
        &mut self,
        action_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        pg_executed::claim(&mut self.tx, action_id, now).await
    }

    async fn joinable_approvals(
        &mut self,
        requester: &str,
        batch_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<PendingPrompt>, StoreError> {
        pg_approvals::joinable(&mut self.tx, requester, batch_key, now).await
    }

    async fn join_approval(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        pg_approvals::join(&mut self.tx, approval_id, now).await
    }

    async fn insert_approval(&mut self, row: &ApprovalRow) -> Result<(), StoreError> {
        pg_approvals::insert(&mut self.tx, row).await
    }

    async fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        pg_approvals::load(&mut self.tx, approval_id).await
    }

    async fn settle_approval(&mut self, row: SettleRow<'_>) -> Result<(), StoreError> {
        pg_approvals::settle(&mut self.tx, row).await
    }

    async fn touch_pending(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        pg_approvals::touch(&mut self.tx, approval_id, now).await
    }

    async fn insert_vote(&mut self, approval_id: &str, vote: &Vote) -> Result<(), StoreError> {
        pg_identities::insert_vote(&mut self.tx, approval_id, vote).await
    }

    async fn pending_approvals(&mut self, which: Pending<'_>) -> Result<Vec<String>, StoreError> {
        pg_approvals::pending_ids(&mut self.tx, which).await
    }

    async fn remembered_denial(
        &mut self,
        probe: DenialProbe<'_>,
    ) -> Result<Option<RememberedDenial>, StoreError> {
        pg_approvals::remembered_denial(&mut self.tx, probe).await
    }

    async fn run_diff_approvals(
        &mut self,
        run_id: &str,
    ) -> Result<Vec<assent_protocol::Approval>, StoreError> {
        pg_approvals::run_diffs(&mut self.tx, run_id).await
    }

    async fn forget_denial(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        pg_approvals::forget(&mut self.tx, approval_id, now).await
    }

    async fn grant_candidates(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ApprovalGrant>, StoreError> {
        pg_grants::candidates(&mut self.tx, run_id, now).await
    }

    async fn use_grant(&mut self, grant_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        pg_grants::use_one(&mut self.tx, grant_id, now).await
    }

    async fn grant(
        &mut self,
        grant_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        pg_grants::load(&mut self.tx, grant_id, now).await
    }

    async fn insert_grant(&mut self, new: &NewGrant) -> Result<(), StoreError> {
        pg_grants::insert(&mut self.tx, new).await
    }

    async fn revoke_grant(
        &mut self,
        grant_id: &str,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        pg_grants::revoke(&mut self.tx, grant_id, by, reason, now).await
    }

    async fn invalidate_grant(
        &mut self,
        grant_id: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        pg_grants::invalidate(&mut self.tx, grant_id, reason, now).await
    }

    async fn end_run_grants(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        pg_grants::end_run(&mut self.tx, run_id, now).await
    }

    async fn unannounced_expired_grants(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        pg_grants::unannounced_expired(&mut self.tx, now).await
    }

    async fn mark_grant_announced(&mut self, grant_id: &str) -> Result<bool, StoreError> {
        pg_grants::mark_announced(&mut self.tx, grant_id).await
    }

    async fn run_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<HashMap<String, RunState>, StoreError> {
        pg_runs::holds(&mut self.tx, run_ids).await
    }

    async fn hold_run(&mut self, hold: HoldRow<'_>) -> Result<RunState, StoreError> {
        pg_runs::hold(&mut self.tx, hold).await
    }

    async fn campaign_runs(
        &mut self,
        campaign: &str,
        status: RunStatus,
    ) -> Result<Vec<RunState>, StoreError> {
        pg_runs::of_campaign(&mut self.tx, campaign, status).await
    }

    async fn resume_run(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        pg_runs::resume(&mut self.tx, run_id, now).await
    }

    async fn campaign(
        &mut self,
        campaign_id: &str,
    ) -> Result<Option<assent_core::campaign::Campaign>, StoreError> {
        super::pg_campaigns::get(&mut self.tx, campaign_id).await
    }

    async fn campaigns(&mut self) -> Result<Vec<assent_core::campaign::Campaign>, StoreError> {
        super::pg_campaigns::list(&mut self.tx).await
    }

    async fn insert_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::pg_campaigns::insert(&mut self.tx, campaign).await
    }

    async fn update_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::pg_campaigns::update(&mut self.tx, campaign).await
    }

    async fn next_deadline(&mut self) -> Result<Option<DateTime<Utc>>, StoreError> {
        pg_expiry::next_deadline(&mut self.tx).await
    }

    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError> {
        insert_audits(&mut self.tx, audits).await
    }

    async fn insert_event(&mut self, at: DateTime<Utc>, event: &Event) -> Result<i64, StoreError> {
        let id = pg_bus::insert_event(&mut self.tx, at, event).await?;
        self.newest_event = Some(self.newest_event.map_or(id, |newest| newest.max(id)));
        Ok(id)
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        let PgTx {
            mut tx,
            newest_event,
            events,
        } = *self;
        if let Some(newest) = newest_event {
            // Delivered to every replica's listener when (and only if) this commits.
            pg_bus::notify(&mut tx, newest).await?;
        }
        tx.commit().await?;
        if let Some(newest) = newest_event {
            pg_bus::advance(&events.newest, newest);
        }
        Ok(())
    }
}
