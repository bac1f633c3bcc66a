//! [`Store`] over either backend: reads from the backend's reading pool, write transactions
//! ([`Tx`], `tx.rs`) and the raw transactions of the identity rows. What differs is the
//! backend's own (`pg/mod.rs`, `sqlite/mod.rs`): its pools, how a transaction begins and
//! commits, how the identity version is read, how it closes.

use assent_core::{ApprovalAuditEvent, GrantStatus, Identity, IdentityKind, Role};
use assent_protocol::{Approval, Grant, IdentityInfo, Metrics, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Db, StoreImpl};
use super::codec::{json_col, micros, parse_name};
use crate::store::{ActionSummary, ApprovalRecord, EventBus, Store, StoreError, TokenRecord, Tx};
use crate::store::{AttemptRow, ClaimedDelivery, WebhookRow};
use crate::store::{CeremonyRow, InviteState, PasskeyRow, PushSubscriptionRow, SessionRow};

#[async_trait]
impl Store for StoreImpl {
    async fn begin(&self) -> Result<Box<dyn Tx>, StoreError> {
        Ok(Box::new(self.begin_tx().await?))
    }

    async fn begin_relaxed(&self) -> Result<Box<dyn Tx>, StoreError> {
        Ok(Box::new(self.begin_relaxed_tx().await?))
    }

    fn events(&self) -> &dyn EventBus {
        &self.events
    }

    async fn action(&self, action_id: &str) -> Result<Option<ActionSummary>, StoreError> {
        let row = sqlx::query("SELECT id, status, approval_id FROM actions WHERE id = $1")
            .bind(action_id)
            .fetch_optional(self.reads())
            .await?;
        row.map(|row| {
            Ok(ActionSummary {
                action_id: row.try_get("id")?,
                status: parse_name(&row.try_get::<String, _>("status")?)?,
                approval_id: row.try_get("approval_id")?,
            })
        })
        .transpose()
    }

    async fn approval(&self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::approvals::load(&mut conn, approval_id).await
    }

    async fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::approvals::list(&mut conn, pending_only).await
    }

    async fn grants(
        &self,
        status: Option<GrantStatus>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::grants::list(&mut conn, status, now).await
    }

    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::expiry::next_deadline(&mut conn).await
    }

    async fn oldest_unescalated(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::routing::oldest_unescalated(&mut conn).await
    }

    async fn presence_touch(
        &self,
        people: &[String],
        replica: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::routing::presence_touch(&mut tx, people, replica, now).await?;
        self.done(tx).await
    }

    async fn presence_drop(&self, person: &str, replica: &str) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::routing::presence_drop(&mut tx, person, replica).await?;
        self.done(tx).await
    }

    async fn run_state(&self, run_id: &str) -> Result<RunState, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::runs::get(&mut conn, run_id).await
    }

    async fn held_runs(&self, status: RunStatus) -> Result<Vec<RunState>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::runs::list(&mut conn, status).await
    }

    async fn audit_chain_page(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, crate::audit_chain::ChainRow)>, StoreError> {
        super::chain::page(self.reads(), after, limit).await
    }

    fn sign_every(&self, signer: Option<crate::audit_chain::CountSigner>) {
        self.signer.set(signer);
    }

    async fn audit_checkpoints(&self) -> Result<Vec<crate::audit_chain::Checkpoint>, StoreError> {
        super::chain::checkpoints(self.reads()).await
    }

    async fn audit_checkpoint(
        &self,
        key: &crate::audit_chain::AuditKey,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::audit_chain::Checkpoint>, StoreError> {
        let mut tx = self.begin_tx().await?;
        let signed = super::chain::checkpoint(tx.conn().await?, key, now).await?;
        tx.finish().await?;
        Ok(signed)
    }

    async fn audit_chain_start(
        &self,
    ) -> Result<Option<crate::audit_chain::ChainStart>, StoreError> {
        super::chain_start::get(self.reads()).await
    }

    async fn audit_sign_chain_start(
        &self,
        key: &crate::audit_chain::AuditKey,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::audit_chain::ChainStart>, StoreError> {
        let mut tx = self.begin_tx().await?;
        let signed = super::chain_start::write(tx.conn().await?, key, now).await?;
        tx.finish().await?;
        Ok(signed)
    }

    async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        let mut query = sqlx::QueryBuilder::<Db>::new("SELECT body FROM audit_events WHERE 1 = 1");
        if let Some(since) = since {
            query.push(" AND occurred_at >= ").push_bind(micros(since));
        }
        if let Some(run_id) = run_id {
            query.push(" AND run_id = ").push_bind(run_id);
        }
        query.push(" ORDER BY seq LIMIT ").push_bind(limit);
        let rows = query.build().fetch_all(self.reads()).await?;
        rows.iter().map(|row| json_col(row, "body")).collect()
    }

    async fn recent_audit(
        &self,
        run_id: &str,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT body FROM (SELECT seq, body FROM audit_events WHERE run_id = $1 \
             ORDER BY seq DESC LIMIT $2) AS recent ORDER BY seq",
        )
        .bind(run_id)
        .bind(limit)
        .fetch_all(self.reads())
        .await?;
        rows.iter().map(|row| json_col(row, "body")).collect()
    }

    async fn metrics(&self, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
        super::metrics::metrics(self.reads(), now).await
    }

    async fn remembered_denials(
        &self,
        run_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::approvals::remembered_denials(&mut conn, run_id, since).await
    }

    async fn identity_version(&self) -> Result<i64, StoreError> {
        self.current_identity_version().await
    }

    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::identities::by_token(&mut conn, token_hash).await
    }

    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::identities::get(&mut conn, name).await
    }

    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::identities::list(&mut conn, kind).await
    }

    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::identities::add(&mut tx, identity, token.hash, token.label, now).await?;
        self.done(tx).await
    }

    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let removed = super::identities::remove(&mut tx, name, kind).await?;
        self.done(tx).await?;
        Ok(removed)
    }

    async fn person_roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Option<Identity>, StoreError> {
        let mut tx = self.write().await?;
        let person = super::identities::update_roles(&mut tx, name, add, remove).await?;
        self.done(tx).await?;
        Ok(person)
    }

    async fn token_set(
        &self,
        name: &str,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let set = super::identities::set_token(&mut tx, name, token.label, token.hash, now).await?;
        self.done(tx).await?;
        Ok(set)
    }

    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::identities::drop_token(&mut tx, name, label).await?;
        self.done(tx).await
    }

    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let seeded = super::identities::seed_once(
            &mut tx,
            crate::identities::OWNER,
            crate::identities::DEFAULT_AGENT,
            now,
        )
        .await?;
        self.done(tx).await?;
        Ok(seeded)
    }

    async fn invite_add(
        &self,
        code_hash: &str,
        person: &str,
        expires_at: DateTime<Utc>,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_tx().await?;
        super::signin::invite_add(
            tx.conn().await?,
            code_hash,
            person,
            audit.approver.as_deref().unwrap_or_default(),
            audit.timestamp,
            expires_at,
        )
        .await?;
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await
    }

    async fn invite_state(
        &self,
        code_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<InviteState, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::signin::invite_state(&mut conn, code_hash, now).await
    }

    async fn passkey_enrol(
        &self,
        key: &PasskeyRow,
        invite: Option<&str>,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_tx().await?;
        if let Some(code_hash) = invite {
            if !super::signin::invite_use(tx.conn().await?, code_hash, key.created_at).await? {
                return Err(StoreError::Conflict(
                    "this invite was used or has expired".to_owned(),
                ));
            }
        }
        super::signin::passkey_add(tx.conn().await?, key).await?;
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await
    }

    async fn passkeys_of(&self, person: &str) -> Result<Vec<PasskeyRow>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::signin::passkeys_of(&mut conn, person).await
    }

    async fn passkey(&self, credential_id: &str) -> Result<Option<PasskeyRow>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::signin::passkey(&mut conn, credential_id).await
    }

    async fn passkey_used(
        &self,
        credential_id: &str,
        passkey: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::signin::passkey_used(&mut tx, credential_id, passkey, now).await?;
        self.done(tx).await
    }

    async fn passkey_remove(
        &self,
        person: &str,
        credential_id: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin_tx().await?;
        if !super::signin::passkey_remove(tx.conn().await?, person, credential_id).await? {
            return Ok(false);
        }
        if super::signin::passkeys_of(tx.conn().await?, person)
            .await?
            .is_empty()
        {
            super::signin::sessions_end_of(tx.conn().await?, person, audit.timestamp).await?;
        }
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await?;
        Ok(true)
    }

    async fn session_add(
        &self,
        token_hash: &str,
        person: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_tx().await?;
        super::signin::session_add(tx.conn().await?, token_hash, person, audit.timestamp).await?;
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await
    }

    async fn session(&self, token_hash: &str) -> Result<Option<SessionRow>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::signin::session(&mut conn, token_hash).await
    }

    async fn session_seen(&self, token_hash: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::signin::session_seen(&mut tx, token_hash, now).await?;
        self.done(tx).await
    }

    async fn push_subscribe(
        &self,
        row: &PushSubscriptionRow,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::push::subscribe(&mut tx, row, now).await?;
        self.done(tx).await
    }

    async fn push_unsubscribe(&self, person: &str, endpoint: &str) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let removed = super::push::unsubscribe(&mut tx, person, endpoint).await?;
        self.done(tx).await?;
        Ok(removed)
    }

    async fn push_gone(&self, endpoint: &str) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::push::gone(&mut tx, endpoint).await?;
        self.done(tx).await
    }

    async fn push_subscriptions(
        &self,
        person: &str,
    ) -> Result<Vec<PushSubscriptionRow>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::push::of_person(&mut conn, person).await
    }

    async fn push_key(&self, candidate: &str) -> Result<String, StoreError> {
        let mut tx = self.write().await?;
        let key = super::push::key(&mut tx, candidate).await?;
        self.done(tx).await?;
        Ok(key)
    }

    async fn webhook_add(
        &self,
        row: &WebhookRow,
        audit: &ApprovalAuditEvent,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_tx().await?;
        super::webhooks::add(tx.conn().await?, row).await?;
        // Before the commit: no event committed after this webhook misses its outbox row.
        if let Some(any) = &tx.webhooks {
            any.store(true, std::sync::atomic::Ordering::Release);
        }
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await
    }

    async fn webhooks(&self) -> Result<Vec<WebhookRow>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::webhooks::list(&mut conn).await
    }

    async fn webhook_remove(
        &self,
        id: &str,
        audit: &ApprovalAuditEvent,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin_tx().await?;
        if !super::webhooks::remove(tx.conn().await?, id).await? {
            return Ok(false);
        }
        tx.insert_audits(std::slice::from_ref(audit)).await?;
        tx.finish().await?;
        Ok(true)
    }

    async fn webhook_deliveries(
        &self,
        webhook_id: &str,
        limit: i64,
    ) -> Result<Vec<assent_protocol::WebhookDelivery>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::webhooks::deliveries(&mut conn, webhook_id, limit).await
    }

    async fn webhook_claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut tx = self.write().await?;
        let claimed = super::webhooks::claim(&mut tx, now, lease_until, limit).await?;
        self.done(tx).await?;
        Ok(claimed)
    }

    async fn webhook_attempted(&self, attempt: &AttemptRow) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::webhooks::attempted(&mut tx, attempt).await?;
        self.done(tx).await
    }

    async fn webhook_next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.reads().acquire().await?;
        super::webhooks::next_due(&mut conn).await
    }

    async fn session_end(&self, token_hash: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.write().await?;
        let ended = super::signin::session_end(&mut tx, token_hash, now).await?;
        self.done(tx).await?;
        Ok(ended)
    }

    async fn ceremony_put(
        &self,
        ceremony: &CeremonyRow,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        super::signin::ceremony_put(&mut tx, ceremony, now).await?;
        self.done(tx).await
    }

    async fn ceremony_take(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<CeremonyRow>, StoreError> {
        let mut tx = self.write().await?;
        let ceremony = super::signin::ceremony_take(&mut tx, id, now).await?;
        self.done(tx).await?;
        Ok(ceremony)
    }

    async fn close(&self) {
        self.shut().await;
    }
}
