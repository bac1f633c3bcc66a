//! One write transaction of either store as a [`Tx`]: each method is a statement or two from
//! the statement files beside this one. How a transaction begins and commits is the
//! backend's own (`pg/tx.rs`: the writers' advisory lock and `pg_notify`; `sqlite/tx.rs`:
//! `BEGIN IMMEDIATE` and the checkpointer).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use assent_core::{ApprovalAuditEvent, ApprovalGrant, Vote};
use assent_protocol::{Event, Grant, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::backend::WriteTx;
use crate::store::rows::{
    ActionRow, ApprovalRow, AskProbe, AskReads, DenialProbe, ExecutedBy, ExecutedRow, HoldRow,
    KeyedAnswer, Pending, RememberedDenial, SettleRow,
};
use crate::store::{ApprovalRecord, NewGrant, StoreError, Tx};

#[async_trait]
impl Tx for WriteTx {
    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError> {
        super::actions::keyed(self.conn().await?, requester, key).await
    }

    async fn insert_actions(&mut self, rows: &[ActionRow]) -> Result<(), StoreError> {
        for stmt in super::actions::inserts(rows)? {
            self.write(stmt).await?;
        }
        Ok(())
    }

    async fn executed_candidate(
        &mut self,
        requester: &str,
        run_id: &str,
        by: ExecutedBy<'_>,
    ) -> Result<Option<ExecutedRow>, StoreError> {
        super::executed::candidate(self.conn().await?, requester, run_id, by).await
    }

    async fn mark_executed(
        &mut self,
        action_id: &str,
        key: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::executed::mark(self.conn().await?, action_id, key, now).await
    }

    async fn claim_execution(
        &mut self,
        action_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::executed::claim(self.conn().await?, action_id, now).await
    }

    async fn ask_reads(&mut self, probe: AskProbe<'_>) -> Result<AskReads, StoreError> {
        let AskProbe {
            run_id,
            requester,
            batch_key,
            now,
            denial,
        } = probe;
        let mut reads = vec![
            super::grants::candidates_read(run_id, now),
            super::approvals::joinable_read(requester, batch_key, now)?,
            super::routing::people_read()?,
        ];
        if let Some(denial) = denial {
            reads.push(super::approvals::remembered_denial_read(denial)?);
        }
        let mut answers = self.fetch(reads).await?.into_iter();
        let (Some(candidates), Some(joinable), Some(people)) =
            (answers.next(), answers.next(), answers.next())
        else {
            return Err(answered_short());
        };
        let denial = match answers.next() {
            Some(rows) => super::approvals::remembered_denial_from(&rows)?,
            None => None,
        };
        Ok(AskReads {
            candidates: super::grants::candidates_from(&candidates)?,
            denial,
            joinable: super::approvals::joinable_from(&joinable, requester, batch_key)?,
            people: super::routing::people_from(&people)?,
        })
    }

    async fn join_approval(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        super::approvals::join(self.conn().await?, approval_id, now).await
    }

    async fn insert_approval(&mut self, row: &ApprovalRow) -> Result<(), StoreError> {
        self.write(super::approvals::insert(row)?).await
    }

    async fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        let ids = [approval_id.to_owned()];
        let [members, votes] = super::approvals::record_reads(&ids);
        let reads = vec![super::approvals::row_read(approval_id), members, votes];
        let mut answers = self.fetch(reads).await?.into_iter();
        let (Some(row), Some(members), Some(votes)) =
            (answers.next(), answers.next(), answers.next())
        else {
            return Err(answered_short());
        };
        Ok(super::approvals::records_from(&row, &members, &votes)?.pop())
    }

    async fn settle_approval(
        &mut self,
        row: SettleRow<'_>,
        votes: &[Vote],
    ) -> Result<ApprovalRecord, StoreError> {
        let approval_id = row.approval_id.to_owned();
        let update = super::approvals::settle(row)?;
        let mut reads = Vec::new();
        let settled_first = if votes.is_empty() {
            reads.push(update);
            None
        } else {
            // The votes are written only once the update found the approval pending.
            let rows = self.fetch(vec![update]).await?.into_iter().flatten();
            let settled = super::approvals::settled(rows.collect())?;
            for vote in votes {
                super::identities::insert_vote(self.conn().await?, &approval_id, vote).await?;
            }
            Some(settled)
        };
        reads.extend(super::approvals::record_reads(&[approval_id]));
        // The audit records of the settlement follow: the chain's head is read with it.
        reads.extend(self.chain_head.is_none().then(super::chain::head_read));
        let mut answers = self.fetch(reads).await?.into_iter();
        let settled = match settled_first {
            Some(settled) => settled,
            None => super::approvals::settled(answers.next().ok_or_else(answered_short)?)?,
        };
        let (Some(members), Some(voted)) = (answers.next(), answers.next()) else {
            return Err(answered_short());
        };
        if let Some(head) = answers.next() {
            self.chain_head = Some(super::chain::head_answered(&head)?);
        }
        super::approvals::records_from(std::slice::from_ref(&settled), &members, &voted)?
            .pop()
            .ok_or_else(|| StoreError::Corrupt("a settled approval has no record".to_owned()))
    }

    async fn touch_pending(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::approvals::touch(self.conn().await?, approval_id, now).await
    }

    async fn insert_vote(&mut self, approval_id: &str, vote: &Vote) -> Result<(), StoreError> {
        super::identities::insert_vote(self.conn().await?, approval_id, vote).await
    }

    async fn people(&mut self) -> Result<Vec<assent_core::Identity>, StoreError> {
        super::routing::people(self.conn().await?).await
    }

    async fn present(
        &mut self,
        streams_since: DateTime<Utc>,
        sessions_since: DateTime<Utc>,
    ) -> Result<std::collections::BTreeSet<String>, StoreError> {
        super::routing::present(self.conn().await?, streams_since, sessions_since).await
    }

    async fn record_asked(
        &mut self,
        approval_id: &str,
        asked: &assent_protocol::AskedSteps,
    ) -> Result<bool, StoreError> {
        super::routing::record_asked(self.conn().await?, approval_id, asked).await
    }

    async fn escalation_due(
        &mut self,
        opened_by: DateTime<Utc>,
    ) -> Result<Vec<String>, StoreError> {
        super::routing::escalation_due(self.conn().await?, opened_by).await
    }

    async fn pending_approvals(&mut self, which: Pending<'_>) -> Result<Vec<String>, StoreError> {
        super::approvals::pending_ids(self.conn().await?, which).await
    }

    async fn remembered_denial(
        &mut self,
        probe: DenialProbe<'_>,
    ) -> Result<Option<RememberedDenial>, StoreError> {
        super::approvals::remembered_denial(self.conn().await?, probe).await
    }

    async fn run_diff_approvals(
        &mut self,
        run_id: &str,
    ) -> Result<Vec<assent_protocol::Approval>, StoreError> {
        super::approvals::run_diffs(self.conn().await?, run_id).await
    }

    async fn forget_denial(
        &mut self,
        approval_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::approvals::forget(self.conn().await?, approval_id, now).await
    }

    async fn grant_candidates(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ApprovalGrant>, StoreError> {
        super::grants::candidates(self.conn().await?, run_id, now).await
    }

    async fn use_grant(&mut self, grant_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        super::grants::use_one(self.conn().await?, grant_id, now).await
    }

    async fn grant(
        &mut self,
        grant_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        super::grants::load(self.conn().await?, grant_id, now).await
    }

    async fn insert_grant(&mut self, new: &NewGrant) -> Result<(), StoreError> {
        self.write(super::grants::insert(new)?).await
    }

    async fn revoke_grant(
        &mut self,
        grant_id: &str,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::grants::revoke(self.conn().await?, grant_id, by, reason, now).await
    }

    async fn invalidate_grant(
        &mut self,
        grant_id: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        super::grants::invalidate(self.conn().await?, grant_id, reason, now).await
    }

    async fn end_run_grants(
        &mut self,
        run_id: &str,
        requester: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        super::grants::end_run(self.conn().await?, run_id, requester, now).await
    }

    async fn unannounced_expired_grants(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        super::grants::unannounced_expired(self.conn().await?, now).await
    }

    async fn mark_grant_announced(&mut self, grant_id: &str) -> Result<bool, StoreError> {
        super::grants::mark_announced(self.conn().await?, grant_id).await
    }

    async fn run_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<HashMap<String, RunState>, StoreError> {
        super::runs::holds(self.conn().await?, run_ids).await
    }

    async fn hold_run(&mut self, hold: HoldRow<'_>) -> Result<RunState, StoreError> {
        super::runs::hold(self.conn().await?, hold).await
    }

    async fn campaign_runs(
        &mut self,
        campaign: &str,
        status: RunStatus,
    ) -> Result<Vec<RunState>, StoreError> {
        super::runs::of_campaign(self.conn().await?, campaign, status).await
    }

    async fn resume_run(
        &mut self,
        run_id: &str,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        super::runs::resume(self.conn().await?, run_id, now).await
    }

    async fn campaign(
        &mut self,
        campaign_id: &str,
    ) -> Result<Option<assent_core::campaign::Campaign>, StoreError> {
        super::campaigns::get(self.conn().await?, campaign_id).await
    }

    async fn campaigns(&mut self) -> Result<Vec<assent_core::campaign::Campaign>, StoreError> {
        super::campaigns::list(self.conn().await?).await
    }

    async fn insert_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::campaigns::insert(self.conn().await?, campaign).await
    }

    async fn update_campaign(
        &mut self,
        campaign: &assent_core::campaign::Campaign,
    ) -> Result<(), StoreError> {
        super::campaigns::update(self.conn().await?, campaign).await
    }

    async fn deadline_and_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<(Option<DateTime<Utc>>, HashMap<String, RunState>), StoreError> {
        let read = super::runs::deadline_and_holds(run_ids)?;
        let rows = self.fetch(vec![read]).await?.into_iter().next();
        let (deadline, holds, head) =
            super::runs::deadline_and_holds_from(&rows.ok_or_else(answered_short)?)?;
        // Under the writers' lock the head moves only with this transaction's own appends,
        // which keep it (`insert_audits`): one read fewer at the batch's first append.
        self.chain_head = Some(head);
        Ok((deadline, holds))
    }

    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError> {
        let head = match self.chain_head.take() {
            Some(head) => head,
            None => super::chain::head(self.conn().await?).await?,
        };
        let before = head.0;
        let (inserts, head) = super::chain::audit_inserts(head, audits)?;
        for stmt in inserts {
            self.write(stmt).await?;
        }
        let after = head.0;
        self.chain_head = Some(head);
        if let Some(signer) = self.signer.clone().filter(|s| s.due(before, after)) {
            // Every N events: the new head is signed before the decision commits.
            super::chain::checkpoint(self.conn().await?, &signer.key, signer.clock.now()).await?;
        }
        Ok(())
    }

    async fn insert_event(&mut self, at: DateTime<Utc>, event: &Event) -> Result<(), StoreError> {
        self.write(super::events::insert(at, event)?).await?;
        // The webhooks' outbox rows commit with the event they carry (none without webhooks).
        let any = self
            .webhooks
            .as_ref()
            .is_none_or(|any| any.load(Ordering::Acquire));
        if any {
            // Sent now: the outbox rows name the event's id, the transaction's newest.
            self.conn().await?;
            let id = self.newest_event.ok_or_else(|| {
                StoreError::Corrupt("an appended event answered no id".to_owned())
            })?;
            super::webhooks::enqueue(self.conn().await?, id, at, event).await?;
        }
        Ok(())
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        (*self).finish().await
    }
}

/// Fewer answers came back than statements were sent.
fn answered_short() -> StoreError {
    StoreError::Corrupt("a read sent with others answered nothing".to_owned())
}
