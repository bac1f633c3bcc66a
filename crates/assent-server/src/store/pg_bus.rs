//! The event bus over PostgreSQL: events are rows of `events` (ids from the database, the same
//! on every replica); a commit that wrote events notifies `assent_events`, and each replica's
//! listener moves its watch to the newest id. Losing the listening connection costs nothing:
//! it reconnects by itself and re-reads the newest id, so no commit goes unannounced.

use std::sync::Arc;
use std::time::Duration;

use assent_protocol::EventEnvelope;
use sqlx::postgres::PgListener;
use sqlx::{PgConnection, PgPool};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::pg_sql::db_rows::event_from_row;
use super::{EventBus, StoreError};
use async_trait::async_trait;

/// The NOTIFY channel; the payload is the newest event id of the commit.
pub const CHANNEL: &str = "assent_events";

/// How long the listener waits before reconnecting after a failure.
const RECONNECT_AFTER: Duration = Duration::from_millis(250);

/// Moves `newest` forward to `id` (never back).
pub fn advance(newest: &watch::Sender<i64>, id: i64) {
    newest.send_if_modified(|current| {
        if id > *current {
            *current = id;
            true
        } else {
            false
        }
    });
}

/// The newest event id (0 when there is none).
pub async fn newest_id(pool: &PgPool) -> Result<i64, StoreError> {
    let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok(newest.unwrap_or(0))
}

/// Follows the other replicas' commits until aborted.
pub fn follow(pool: PgPool, newest: Arc<watch::Sender<i64>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if let Err(err) = listen(&pool, &newest).await {
                tracing::warn!(error = %err, "event listener lost the database; reconnecting");
            }
            tokio::time::sleep(RECONNECT_AFTER).await;
        }
    })
}

/// One listening session: catches up after (re)connecting, then follows notifications.
async fn listen(pool: &PgPool, newest: &watch::Sender<i64>) -> Result<(), StoreError> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    loop {
        // Listening first, then reading: a commit between the two is seen by one or the other.
        advance(newest, newest_id(pool).await?);
        // `None`: the connection was lost (notifications in between are gone); the next call
        // reconnects, and the loop re-reads the newest id.
        while let Some(note) = listener.try_recv().await? {
            match note.payload().parse::<i64>() {
                Ok(id) => advance(newest, id),
                Err(_) => advance(newest, newest_id(pool).await?),
            }
        }
    }
}

/// Tells every replica, at the caller's commit, that events up to `newest` exist.
pub async fn notify(conn: &mut PgConnection, newest: i64) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(newest.to_string())
        .execute(conn)
        .await?;
    Ok(())
}

/// The event log as this replica's streams read it.
#[derive(Debug, Clone)]
pub struct PgEvents {
    pub pool: PgPool,
    pub newest: Arc<watch::Sender<i64>>,
}

#[async_trait]
impl EventBus for PgEvents {
    fn watch(&self) -> watch::Receiver<i64> {
        self.newest.subscribe()
    }

    async fn after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError> {
        events_after(&self.pool, after, limit).await
    }

    async fn bounds(&self) -> Result<(i64, i64), StoreError> {
        bounds(&self.pool).await
    }
}

/// Events with an id above `after`, oldest first.
pub async fn events_after(
    pool: &PgPool,
    after: i64,
    limit: i64,
) -> Result<Vec<EventEnvelope>, StoreError> {
    let rows =
        sqlx::query("SELECT id, occurred_at, body FROM events WHERE id > $1 ORDER BY id LIMIT $2")
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await?;
    rows.iter().map(event_from_row).collect()
}

/// The oldest and newest event ids (0 when there are none).
pub async fn bounds(pool: &PgPool) -> Result<(i64, i64), StoreError> {
    let oldest: Option<i64> = sqlx::query_scalar("SELECT MIN(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok((oldest.unwrap_or(0), newest_id(pool).await?))
}
