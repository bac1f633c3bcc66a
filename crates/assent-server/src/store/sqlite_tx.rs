//! One SQLite write transaction (`BEGIN IMMEDIATE` on the one writer connection) as a
//! [`Tx`]: each method is a statement or two from the `sqlite_*` row modules. After the
//! commit the checkpointer is told, and the event watch moves to the newest event written.

use std::collections::HashMap;
use std::sync::Arc;

use assent_core::workflow::PendingPrompt;
use assent_core::{ApprovalAuditEvent, ApprovalGrant, Vote};
use assent_protocol::{Event, Grant, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{Sqlite, Transaction};
use tokio::sync::Notify;

use super::rows::{
    ActionRow, ApprovalRow, DenialProbe, ExecutedBy, ExecutedRow, HoldRow, KeyedAnswer, Pending,
    RememberedDenial, SettleRow,
};
use super::sqlite_events::SqliteEvents;
use super::sqlite_rows::{insert_audits, insert_event};
use super::{sqlite_actions, sqlite_approvals, sqlite_executed, sqlite_expiry, sqlite_grants};
use super::{sqlite_identities, sqlite_runs, ApprovalRecord, NewGrant, StoreError, Tx};

/// An open write transaction.
pub struct SqliteTx {
    pub tx: Transaction<'static, Sqlite>,
    /// The newest event id this transaction wrote.
    pub newest_event: Option<i64>,
    pub events: SqliteEvents,
    /// Told after every commit (the checkpointer).
    pub writes: Arc<Notify>,
}

#[async_trait]
impl Tx for SqliteTx {
    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError> {
        sqlite_actions::keyed(&mut self.tx, requester, key).await
    }

    async fn insert_actions(&mut self, rows: &[ActionRow]) -> Result<(), StoreError> {
        sqlite_actions::insert(&mut self.tx, rows).await
    }

    async fn executed_candidate(
        &mut self,
        requester: &str,
        run_id: &str,
        by: ExecutedBy<'_>,
    ) -> Result<Option<ExecutedRow>, StoreError> {
        sqlite_executed::candidate(&mut self.tx, requester, run_id, by).await
    }

    async fn mark_executed(
        &mut self,
        action_id: &str,
        key: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlite_executed::mark(&mut self.tx, action_id, key, now).await
    }

    async fn claim_execution(
        &mut self,
        action_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        sqlite_executed::claim(&mut self.tx, action_id, now).await
    }

    async fn joinable_approvals(
        &mut self,
        requester: &str,
        batch_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<PendingPrompt>, StoreError> {
        sqlite_approvals::joinable(&mut self.tx, requester, batch_key, now).await
    }

    async fn join_approval(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        sqlite_approvals::join(&mut self.tx, approval_id, now).await
    }

    async fn insert_approval(&mut self, row: &ApprovalRow) -> Result<(), StoreError> {
        sqlite_approvals::insert(&mut self.tx, row).await
    }

    async fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        sqlite_approvals::load(&mut self.tx, approval_id).await
    }

    async fn settle_approval(&mut self, row: SettleRow<'_>) -> Result<(), StoreError> {
        sqlite_approvals::settle(&mut self.tx, row).await
    }

    async fn touch_pending(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlite_approvals::touch(&mut self.tx, approval_id, now).await
    }

    async fn insert_vote(&mut self, approval_id: &str, vote: &Vote) -> Result<(), StoreError> {
        sqlite_identities::insert_vote(&mut self.tx, approval_id, vote).await
    }

    async fn pending_approvals(&mut self, which: Pending<'_>) -> Result<Vec<String>, StoreError> {
        sqlite_approvals::pending_ids(&mut self.tx, which).await
    }

    async fn remembered_denial(
        &mut self,
        probe: DenialProbe<'_>,
    ) -> Result<Option<RememberedDenial>, StoreError> {
        sqlite_approvals::remembered_denial(&mut self.tx, probe).await
    }

    async fn run_diff_approvals(
        &mut self,
        run_id: &str,
    ) -> Result<Vec<assent_protocol::Approval>, StoreError> {
        sqlite_approvals::run_diffs(&mut self.tx, run_id).await
    }

    async fn forget_denial(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        sqlite_approvals::forget(&mut self.tx, approval_id, now).await
    }

    async fn grant_candidates(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ApprovalGrant>, StoreError> {
        sqlite_grants::candidates(&mut self.tx, run_id, now).await
    }

    async fn use_grant(&mut self, grant_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        sqlite_grants::use_one(&mut self.tx, grant_id, now).await
    }

    async fn grant(
        &mut self,
        grant_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        sqlite_grants::load(&mut self.tx, grant_id, now).await
    }

    async fn insert_grant(&mut self, new: &NewGrant) -> Result<(), StoreError> {
        sqlite_grants::insert(&mut self.tx, new).await
    }

    async fn revoke_grant(
        &mut self,
        grant_id: &str,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        sqlite_grants::revoke(&mut self.tx, grant_id, by, reason, now).await
    }

    async fn invalidate_grant(
        &mut self,
        grant_id: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        sqlite_grants::invalidate(&mut self.tx, grant_id, reason, now).await
    }

    async fn end_run_grants(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        sqlite_grants::end_run(&mut self.tx, run_id, now).await
    }

    async fn unannounced_expired_grants(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        sqlite_grants::unannounced_expired(&mut self.tx, now).await
    }

    async fn mark_grant_announced(&mut self, grant_id: &str) -> Result<bool, StoreError> {
        sqlite_grants::mark_announced(&mut self.tx, grant_id).await
    }

    async fn run_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<HashMap<String, RunState>, StoreError> {
        sqlite_runs::holds(&mut self.tx, run_ids).await
    }

    async fn hold_run(&mut self, hold: HoldRow<'_>) -> Result<RunState, StoreError> {
        sqlite_runs::hold(&mut self.tx, hold).await
    }

    async fn campaign_runs(
        &mut self,
        campaign: &str,
        status: RunStatus,
    ) -> Result<Vec<RunState>, StoreError> {
        sqlite_runs::of_campaign(&mut self.tx, campaign, status).await
    }

    async fn resume_run(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        sqlite_runs::resume(&mut self.tx, run_id, now).await
    }

    async fn campaign(
        &mut self,
        campaign_id: &str,
    ) -> Result<Option<assent_core::campaign::Campaign>, StoreError> {
        super::sqlite_campaigns::get(&mut self.tx, campaign_id).await
    }

    async fn campaigns(&mut self) -> Result<Vec<assent_core::campaign::Campaign>, StoreError> {
        super::sqlite_campaigns::list(&mut self.tx).await
    }

    async fn insert_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::sqlite_campaigns::insert(&mut self.tx, campaign).await
    }

    async fn update_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::sqlite_campaigns::update(&mut self.tx, campaign).await
    }

    async fn next_deadline(&mut self) -> Result<Option<DateTime<Utc>>, StoreError> {
        sqlite_expiry::next_deadline(&mut self.tx).await
    }

    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError> {
        insert_audits(&mut self.tx, audits).await
    }

    async fn insert_event(&mut self, at: DateTime<Utc>, event: &Event) -> Result<i64, StoreError> {
        let id = insert_event(&mut self.tx, at, event).await?;
        self.newest_event = Some(self.newest_event.map_or(id, |newest| newest.max(id)));
        Ok(id)
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        let SqliteTx {
            tx,
            newest_event,
            events,
            writes,
        } = *self;
        tx.commit().await?;
        writes.notify_one();
        if let Some(newest) = newest_event {
            // One writer: the newest id this transaction wrote is the newest committed.
            events.newest.send_if_modified(|current| {
                let newer = newest > *current;
                if newer {
                    *current = newest;
                }
                newer
            });
        }
        Ok(())
    }
}
