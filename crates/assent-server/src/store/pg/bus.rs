//! The event bus over PostgreSQL: events are rows of `events` (ids from the database, the same
//! on every replica); a commit that wrote events notifies `assent_events`, and each replica's
//! listener moves its watch to the newest id. Losing the listening connection costs nothing:
//! it reconnects by itself and re-reads the newest id, so no commit goes unannounced.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use sqlx::{PgConnection, PgPool};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use super::sql::events::{newest_id, Events as PgEvents};
use crate::store::StoreError;

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
