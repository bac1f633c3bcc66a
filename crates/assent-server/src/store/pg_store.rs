//! `Store` over PostgreSQL.

use assent_core::{ApprovalAuditEvent, GrantStatus, Identity, IdentityKind, Role, Vote};
use assent_protocol::{Approval, EventEnvelope, Grant, IdentityInfo, Metrics, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::sync::watch;

use super::pg::PgStore;
use super::{pg_bus, pg_identities};
use super::{
    ActionSummary, Actor, ApprovalRecord, Executed, Revocation, RunEnd, Settled, Settlement, Store,
    StoreError, Submission, Submitted, TokenRecord,
};

/// The workflow operations arrive with the backend-independent workflow layer.
fn not_yet() -> StoreError {
    StoreError::Batch("this operation is not available on PostgreSQL yet".to_owned())
}

#[async_trait]
impl Store for PgStore {
    async fn submit(&self, _submission: Submission) -> Result<Submitted, StoreError> {
        Err(not_yet())
    }

    async fn record_executed(
        &self,
        _requester: &str,
        _run_id: &str,
        _idempotency_key: &str,
        _now: DateTime<Utc>,
    ) -> Result<Option<Executed>, StoreError> {
        Err(not_yet())
    }

    async fn action(&self, _action_id: &str) -> Result<Option<ActionSummary>, StoreError> {
        Err(not_yet())
    }

    async fn approval(&self, _approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        Err(not_yet())
    }

    async fn approvals(&self, _pending_only: bool) -> Result<Vec<Approval>, StoreError> {
        Err(not_yet())
    }

    async fn settle(&self, _settlement: Settlement) -> Result<Settled, StoreError> {
        Err(not_yet())
    }

    async fn vote(
        &self,
        _approval_id: &str,
        _vote: Vote,
        _now: DateTime<Utc>,
    ) -> Result<Approval, StoreError> {
        Err(not_yet())
    }

    async fn grants(
        &self,
        _status: Option<GrantStatus>,
        _now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        Err(not_yet())
    }

    async fn revoke_grant(
        &self,
        _grant_id: &str,
        _revoke: Revocation<'_>,
        _now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        Err(not_yet())
    }

    async fn end_run(&self, _run_id: &str, _now: DateTime<Utc>) -> Result<RunEnd, StoreError> {
        Err(not_yet())
    }

    async fn expire_due(&self, _now: DateTime<Utc>) -> Result<(), StoreError> {
        Ok(())
    }

    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(None)
    }

    async fn run_state(&self, _run_id: &str) -> Result<RunState, StoreError> {
        Err(not_yet())
    }

    async fn held_runs(&self, _status: RunStatus) -> Result<Vec<RunState>, StoreError> {
        Err(not_yet())
    }

    async fn resume_run(
        &self,
        _run_id: &str,
        _by: Actor<'_>,
        _now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        Err(not_yet())
    }

    async fn events_after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError> {
        pg_bus::after(&self.pool, after, limit).await
    }

    async fn event_bounds(&self) -> Result<(i64, i64), StoreError> {
        pg_bus::bounds(&self.pool).await
    }

    fn event_watch(&self) -> watch::Receiver<i64> {
        self.newest_event.subscribe()
    }

    async fn audit(
        &self,
        _since: Option<DateTime<Utc>>,
        _run_id: Option<&str>,
        _limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        Err(not_yet())
    }

    async fn metrics(&self, _now: DateTime<Utc>) -> Result<Metrics, StoreError> {
        Err(not_yet())
    }

    async fn audit_record(&self, _event: &ApprovalAuditEvent) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn remembered_denials(
        &self,
        _run_id: &str,
        _since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError> {
        Err(not_yet())
    }

    async fn forget_denial(
        &self,
        _approval_id: &str,
        _by: Actor<'_>,
        _now: DateTime<Utc>,
    ) -> Result<Option<Approval>, StoreError> {
        Err(not_yet())
    }

    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_identities::by_token(&mut conn, token_hash).await
    }

    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_identities::get(&mut conn, name).await
    }

    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_identities::list(&mut conn, kind).await
    }

    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        pg_identities::add(&mut tx, identity, token.hash, token.label, now).await?;
        Ok(tx.commit().await?)
    }

    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let removed = pg_identities::remove(&mut tx, name, kind).await?;
        tx.commit().await?;
        Ok(removed)
    }

    async fn person_roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Option<Identity>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let person = pg_identities::update_roles(&mut tx, name, add, remove).await?;
        tx.commit().await?;
        Ok(person)
    }

    async fn token_set(
        &self,
        name: &str,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let set = pg_identities::set_token(&mut tx, name, token.label, token.hash, now).await?;
        tx.commit().await?;
        Ok(set)
    }

    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        pg_identities::drop_token(&mut tx, name, label).await?;
        Ok(tx.commit().await?)
    }

    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let seeded = pg_identities::seed_once(
            &mut tx,
            crate::identities::OWNER,
            crate::identities::DEFAULT_AGENT,
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(seeded)
    }

    async fn close(&self) {
        self.shut().await;
    }
}
