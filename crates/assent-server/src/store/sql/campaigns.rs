//! Fleet campaigns: one row each, the campaign as a JSON document (see
//! `migrations/postgres/0004_campaigns.sql`). The workflow reads, changes (core's rules) and
//! writes it back in one transaction.

use assent_core::campaign::Campaign;
use sqlx::Row;

use super::backend::Conn;
use super::codec::{micros, name_of};
use crate::store::StoreError;

/// The campaign `campaign_id`.
pub async fn get(conn: &mut Conn, campaign_id: &str) -> Result<Option<Campaign>, StoreError> {
    let row = sqlx::query("SELECT document FROM campaigns WHERE campaign_id = $1")
        .bind(campaign_id)
        .fetch_optional(conn)
        .await?;
    row.map(|row| {
        Ok(serde_json::from_str(
            &row.try_get::<String, _>("document")?,
        )?)
    })
    .transpose()
}

/// Every campaign, most recently changed first.
pub async fn list(conn: &mut Conn) -> Result<Vec<Campaign>, StoreError> {
    let rows = sqlx::query("SELECT document FROM campaigns ORDER BY updated_at DESC, campaign_id")
        .fetch_all(conn)
        .await?;
    rows.iter()
        .map(|row| {
            Ok(serde_json::from_str(
                &row.try_get::<String, _>("document")?,
            )?)
        })
        .collect()
}

/// Inserts a new campaign; `Conflict` when its id is taken.
pub async fn insert(conn: &mut Conn, c: &Campaign) -> Result<(), StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO campaigns (campaign_id, status, document, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (campaign_id) DO NOTHING",
    )
    .bind(&c.campaign_id)
    .bind(name_of(&c.status)?)
    .bind(serde_json::to_string(c)?)
    .bind(micros(c.created_at))
    .bind(micros(c.updated_at))
    .execute(conn)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(StoreError::Conflict(format!(
            "a campaign named {} exists",
            c.campaign_id
        )));
    }
    Ok(())
}

/// Writes a changed campaign back.
pub async fn update(conn: &mut Conn, c: &Campaign) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE campaigns SET status = $1, document = $2, updated_at = $3 WHERE campaign_id = $4",
    )
    .bind(name_of(&c.status)?)
    .bind(serde_json::to_string(c)?)
    .bind(micros(c.updated_at))
    .bind(&c.campaign_id)
    .execute(conn)
    .await?;
    Ok(())
}
