//! One write transaction of either store as a [`Tx`]: each method is a statement or two from
//! the statement files beside this one. How a transaction begins and commits is the
//! backend's own (`pg/tx.rs`: the writers' advisory lock and `pg_notify`; `sqlite/tx.rs`:
//! `BEGIN IMMEDIATE` and the checkpointer).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use assent_core::workflow::PendingPrompt;
use assent_core::{ApprovalAuditEvent, ApprovalGrant, Vote};
use assent_protocol::{Event, Grant, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::backend::WriteTx;
use super::chain::insert_audits;
use crate::store::rows::{
    ActionRow, ApprovalRow, DenialProbe, ExecutedBy, ExecutedRow, HoldRow, KeyedAnswer, Pending,
    RememberedDenial, SettleRow,
};
use crate::store::{ApprovalRecord, NewGrant, StoreError, Tx};

#[async_trait]
impl Tx for WriteTx {
    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError> {
        super::actions::keyed(&mut self.tx, requester, key).await
    }

    async fn insert_actions(&mut self, rows: &[ActionRow]) -> Result<(), StoreError> {
        super::actions::insert(&mut self.tx, rows).await
    }

    async fn executed_candidate(
        &mut self,
        requester: &str,
        run_id: &str,
        by: ExecutedBy<'_>,
    ) -> Result<Option<ExecutedRow>, StoreError> {
        super::executed::candidate(&mut self.tx, requester, run_id, by).await
    }

    async fn mark_executed(
        &mut self,
        action_id: &str,
        key: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::executed::mark(&mut self.tx, action_id, key, now).await
    }

    async fn claim_execution(
        &mut self,
        action_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::executed::claim(&mut self.tx, action_id, now).await
    }

    async fn joinable_approvals(
        &mut self,
        requester: &str,
        batch_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<PendingPrompt>, StoreError> {
        super::approvals::joinable(&mut self.tx, requester, batch_key, now).await
    }

    async fn join_approval(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        super::approvals::join(&mut self.tx, approval_id, now).await
    }

    async fn insert_approval(&mut self, row: &ApprovalRow) -> Result<(), StoreError> {
        super::approvals::insert(&mut self.tx, row).await
    }

    async fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        super::approvals::load(&mut self.tx, approval_id).await
    }

    async fn settle_approval(
        &mut self,
        row: SettleRow<'_>,
        votes: &[Vote],
    ) -> Result<ApprovalRecord, StoreError> {
        let approval_id = row.approval_id;
        let settled = super::approvals::settle(&mut self.tx, row).await?;
        for vote in votes {
            super::identities::insert_vote(&mut self.tx, approval_id, vote).await?;
        }
        super::approvals::record(&mut self.tx, settled).await
    }

    async fn touch_pending(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::approvals::touch(&mut self.tx, approval_id, now).await
    }

    async fn insert_vote(&mut self, approval_id: &str, vote: &Vote) -> Result<(), StoreError> {
        super::identities::insert_vote(&mut self.tx, approval_id, vote).await
    }

    async fn people(&mut self) -> Result<Vec<assent_core::Identity>, StoreError> {
        super::routing::people(&mut self.tx).await
    }

    async fn present(
        &mut self,
        streams_since: DateTime<Utc>,
        sessions_since: DateTime<Utc>,
    ) -> Result<std::collections::BTreeSet<String>, StoreError> {
        super::routing::present(&mut self.tx, streams_since, sessions_since).await
    }

    async fn record_asked(
        &mut self,
        approval_id: &str,
        asked: &assent_protocol::AskedSteps,
    ) -> Result<bool, StoreError> {
        super::routing::record_asked(&mut self.tx, approval_id, asked).await
    }

    async fn escalation_due(
        &mut self,
        opened_by: DateTime<Utc>,
    ) -> Result<Vec<String>, StoreError> {
        super::routing::escalation_due(&mut self.tx, opened_by).await
    }

    async fn pending_approvals(&mut self, which: Pending<'_>) -> Result<Vec<String>, StoreError> {
        super::approvals::pending_ids(&mut self.tx, which).await
    }

    async fn remembered_denial(
        &mut self,
        probe: DenialProbe<'_>,
    ) -> Result<Option<RememberedDenial>, StoreError> {
        super::approvals::remembered_denial(&mut self.tx, probe).await
    }

    async fn run_diff_approvals(
        &mut self,
        run_id: &str,
    ) -> Result<Vec<assent_protocol::Approval>, StoreError> {
        super::approvals::run_diffs(&mut self.tx, run_id).await
    }

    async fn forget_denial(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::approvals::forget(&mut self.tx, approval_id, now).await
    }

    async fn grant_candidates(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ApprovalGrant>, StoreError> {
        super::grants::candidates(&mut self.tx, run_id, now).await
    }

    async fn use_grant(&mut self, grant_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        super::grants::use_one(&mut self.tx, grant_id, now).await
    }

    async fn grant(
        &mut self,
        grant_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        super::grants::load(&mut self.tx, grant_id, now).await
    }

    async fn insert_grant(&mut self, new: &NewGrant) -> Result<(), StoreError> {
        super::grants::insert(&mut self.tx, new).await
    }

    async fn revoke_grant(
        &mut self,
        grant_id: &str,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::grants::revoke(&mut self.tx, grant_id, by, reason, now).await
    }

    async fn invalidate_grant(
        &mut self,
        grant_id: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::grants::invalidate(&mut self.tx, grant_id, reason, now).await
    }

    async fn end_run_grants(
        &mut self,
        run_id: &str,
        requester: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        super::grants::end_run(&mut self.tx, run_id, requester, now).await
    }

    async fn unannounced_expired_grants(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        super::grants::unannounced_expired(&mut self.tx, now).await
    }

    async fn mark_grant_announced(&mut self, grant_id: &str) -> Result<bool, StoreError> {
        super::grants::mark_announced(&mut self.tx, grant_id).await
    }

    async fn run_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<HashMap<String, RunState>, StoreError> {
        super::runs::holds(&mut self.tx, run_ids).await
    }

    async fn hold_run(&mut self, hold: HoldRow<'_>) -> Result<RunState, StoreError> {
        super::runs::hold(&mut self.tx, hold).await
    }

    async fn campaign_runs(
        &mut self,
        campaign: &str,
        status: RunStatus,
    ) -> Result<Vec<RunState>, StoreError> {
        super::runs::of_campaign(&mut self.tx, campaign, status).await
    }

    async fn resume_run(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        super::runs::resume(&mut self.tx, run_id, now).await
    }

    async fn campaign(
        &mut self,
        campaign_id: &str,
    ) -> Result<Option<assent_core::campaign::Campaign>, StoreError> {
        super::campaigns::get(&mut self.tx, campaign_id).await
    }

    async fn campaigns(&mut self) -> Result<Vec<assent_core::campaign::Campaign>, StoreError> {
        super::campaigns::list(&mut self.tx).await
    }

    async fn insert_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::campaigns::insert(&mut self.tx, campaign).await
    }

    async fn update_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::campaigns::update(&mut self.tx, campaign).await
    }

    async fn deadline_and_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<(Option<DateTime<Utc>>, HashMap<String, RunState>), StoreError> {
        let (deadline, holds, head) =
            super::runs::deadline_and_holds(&mut self.tx, run_ids).await?;
        // Under the writers' lock the head moves only with this transaction's own appends,
        // which keep it (`insert_audits`): one read fewer at the batch's first append.
        self.chain_head = Some(head);
        Ok((deadline, holds))
    }

    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError> {
        let known = self.chain_head.take();
        let (before, after, head) = insert_audits(&mut self.tx, known, audits).await?;
        self.chain_head = Some(head);
        if let Some(signer) = self.signer.as_ref().filter(|s| s.due(before, after)) {
            // Every N events: the new head is signed before the decision commits.
            super::chain::checkpoint(&mut self.tx, &signer.key, signer.clock.now()).await?;
        }
        Ok(())
    }

    async fn insert_event(&mut self, at: DateTime<Utc>, event: &Event) -> Result<i64, StoreError> {
        let id = super::events::insert_event(&mut self.tx, at, event).await?;
        // The webhooks' outbox rows commit with the event they carry (none without webhooks).
        let any = self
            .webhooks
            .as_ref()
            .is_none_or(|any| any.load(Ordering::Acquire));
        if any {
            super::webhooks::enqueue(&mut self.tx, id, at, event).await?;
        }
        self.newest_event = Some(self.newest_event.map_or(id, |newest| newest.max(id)));
        Ok(id)
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        (*self).finish().await
    }
}
