//! Web Push rows in both stores: people's browser subscriptions and the shared VAPID key
//! (see the migration's note).

use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::Conn;
use super::codec::micros;
use crate::store::{PushSubscriptionRow, StoreError};

/// Stores `row` (a browser re-subscribing, or another person signing in on it, replaces it).
pub async fn subscribe(
    conn: &mut Conn,
    row: &PushSubscriptionRow,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO push_subscriptions (endpoint, person, p256dh, auth, expires_at_ms, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (endpoint) DO UPDATE SET person = excluded.person, \
         p256dh = excluded.p256dh, auth = excluded.auth, \
         expires_at_ms = excluded.expires_at_ms, created_at = excluded.created_at",
    )
    .bind(&row.endpoint)
    .bind(&row.person)
    .bind(&row.p256dh)
    .bind(&row.auth)
    .bind(row.expires_at_ms)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes `person`'s subscription at `endpoint`; false when they hold none there.
pub async fn unsubscribe(
    conn: &mut Conn,
    person: &str,
    endpoint: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1 AND person = $2")
        .bind(endpoint)
        .bind(person)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Drops the subscription at `endpoint`, whoever holds it (the push service said it is gone).
pub async fn gone(conn: &mut Conn, endpoint: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1")
        .bind(endpoint)
        .execute(conn)
        .await?;
    Ok(())
}

/// `person`'s subscriptions, oldest first.
pub async fn of_person(
    conn: &mut Conn,
    person: &str,
) -> Result<Vec<PushSubscriptionRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT endpoint, person, p256dh, auth, expires_at_ms FROM push_subscriptions \
         WHERE person = $1 ORDER BY created_at, endpoint",
    )
    .bind(person)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(PushSubscriptionRow {
                endpoint: row.try_get("endpoint")?,
                person: row.try_get("person")?,
                p256dh: row.try_get("p256dh")?,
                auth: row.try_get("auth")?,
                expires_at_ms: row.try_get("expires_at_ms")?,
            })
        })
        .collect()
}

/// The key kept here: `candidate` when there was none (it is stored), else the one stored.
pub async fn key(conn: &mut Conn, candidate: &str) -> Result<String, StoreError> {
    sqlx::query("INSERT INTO push_key (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING")
        .bind(candidate)
        .execute(&mut *conn)
        .await?;
    let row = sqlx::query("SELECT secret FROM push_key WHERE id = 1")
        .fetch_one(conn)
        .await?;
    Ok(row.try_get("secret")?)
}
