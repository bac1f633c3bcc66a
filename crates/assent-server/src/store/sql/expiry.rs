//! The next deadline in both stores: the earliest expiry of a pending approval or of a grant
//! whose expiry is not announced yet.

use assent_core::ApprovalStatus;
use chrono::{DateTime, Utc};

use super::backend::Conn;
use super::db_rows::{from_micros, name_of};
use super::StoreError;

/// The earliest time something expires: a pending approval, or a grant whose expiry is not
/// announced yet. Two index seeks in one statement: every submission's transaction asks this
/// first, and on SQLite each statement is a round trip to the connection's thread.
pub async fn next_deadline(conn: &mut Conn) -> Result<Option<DateTime<Utc>>, StoreError> {
    let (approval, grant): (Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT (SELECT expires_at FROM approval_requests WHERE status = $1 \
                 ORDER BY expires_at LIMIT 1), \
                (SELECT expires_at FROM approval_grants \
                 WHERE expiry_announced = 0 AND revoked_at IS NULL ORDER BY expires_at LIMIT 1)",
    )
    .bind(name_of(&ApprovalStatus::Requested)?)
    .fetch_one(&mut *conn)
    .await?;
    let earliest = match (approval, grant) {
        (Some(a), Some(g)) => Some(a.min(g)),
        (one, other) => one.or(other),
    };
    earliest.map(from_micros).transpose()
}
