//! `Store` over PostgreSQL: write transactions ([`PgTx`]), the event bus, and reads from the
//! pool (any replica, any connection).

use assent_core::{ApprovalAuditEvent, GrantStatus, Identity, IdentityKind, Role};
use assent_protocol::{Approval, Grant, IdentityInfo, Metrics, RunState, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::pg::PgStore;
use super::pg_rows::{json_col, micros, parse_name};
use super::pg_sql;
use super::pg_tx::PgTx;
use super::{ActionSummary, ApprovalRecord, EventBus, Store, StoreError, TokenRecord, Tx};

#[async_trait]
impl Store for PgStore {
    async fn begin(&self) -> Result<Box<dyn Tx>, StoreError> {
        Ok(Box::new(PgTx::begin(&self.events).await?))
    }

    fn events(&self) -> &dyn EventBus {
        &self.events
    }

    async fn action(&self, action_id: &str) -> Result<Option<ActionSummary>, StoreError> {
        let row = sqlx::query("SELECT id, status, approval_id FROM actions WHERE id = $1")
            .bind(action_id)
            .fetch_optional(&self.pool)
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
        let mut conn = self.pool.acquire().await?;
        pg_sql::approvals::load(&mut conn, approval_id).await
    }

    async fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::approvals::list(&mut conn, pending_only).await
    }

    async fn grants(
        &self,
        status: Option<GrantStatus>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::grants::list(&mut conn, status, now).await
    }

    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::expiry::next_deadline(&mut conn).await
    }

    async fn run_state(&self, run_id: &str) -> Result<RunState, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::runs::get(&mut conn, run_id).await
    }

    async fn held_runs(&self, status: RunStatus) -> Result<Vec<RunState>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::runs::list(&mut conn, status).await
    }

    async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        let mut query =
            sqlx::QueryBuilder::<sqlx::Postgres>::new("SELECT body FROM audit_events WHERE 1 = 1");
        if let Some(since) = since {
            query.push(" AND occurred_at >= ").push_bind(micros(since));
        }
        if let Some(run_id) = run_id {
            query.push(" AND run_id = ").push_bind(run_id);
        }
        query.push(" ORDER BY seq LIMIT ").push_bind(limit);
        let rows = query.build().fetch_all(&self.pool).await?;
        rows.iter().map(|row| json_col(row, "body")).collect()
    }

    async fn metrics(&self, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
        pg_sql::metrics::metrics(&self.pool, now).await
    }

    async fn remembered_denials(
        &self,
        run_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::approvals::remembered_denials(&mut conn, run_id, since).await
    }

    async fn identity_version(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT version FROM identity_version WHERE id = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("version")?)
    }

    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::identities::by_token(&mut conn, token_hash).await
    }

    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::identities::get(&mut conn, name).await
    }

    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        pg_sql::identities::list(&mut conn, kind).await
    }

    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        pg_sql::identities::add(&mut tx, identity, token.hash, token.label, now).await?;
        Ok(tx.commit().await?)
    }

    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let removed = pg_sql::identities::remove(&mut tx, name, kind).await?;
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
        let person = pg_sql::identities::update_roles(&mut tx, name, add, remove).await?;
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
        let set =
            pg_sql::identities::set_token(&mut tx, name, token.label, token.hash, now).await?;
        tx.commit().await?;
        Ok(set)
    }

    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        pg_sql::identities::drop_token(&mut tx, name, label).await?;
        Ok(tx.commit().await?)
    }

    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let seeded = pg_sql::identities::seed_once(
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
