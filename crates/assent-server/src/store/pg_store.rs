//! The PostgreSQL side of [`Store`] (shared in `sql/store.rs`): reads from the pool (any
//! replica, any connection), write transactions holding the writers' lock ([`PgTx`]), plain
//! transactions for the identity rows.

use sqlx::{Postgres, Row, Transaction};

use super::pg::PgStore;
use super::pg_tx::PgTx;
use super::StoreError;

impl PgStore {
    /// The pool reads use.
    pub(super) fn reads(&self) -> &sqlx::PgPool {
        &self.pool
    }

    pub(super) async fn begin_tx(&self) -> Result<PgTx, StoreError> {
        PgTx::begin(&self.events, self.signer.get(), false).await
    }

    pub(super) async fn begin_relaxed_tx(&self) -> Result<PgTx, StoreError> {
        PgTx::begin(&self.events, self.signer.get(), true).await
    }

    /// A plain write transaction, for the identity rows (their locks are the rows').
    pub(super) async fn write(&self) -> Result<Transaction<'static, Postgres>, StoreError> {
        Ok(self.pool.begin().await?)
    }

    pub(super) async fn done(&self, tx: Transaction<'static, Postgres>) -> Result<(), StoreError> {
        Ok(tx.commit().await?)
    }

    /// The identity version, read from its row: every replica sees a change at once.
    pub(super) async fn current_identity_version(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT version FROM identity_version WHERE id = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("version")?)
    }
}
