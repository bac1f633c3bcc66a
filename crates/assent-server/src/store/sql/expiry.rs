//! The next deadline in both stores: the earliest expiry of a pending approval or of a grant
//! whose expiry is not announced yet.

use assent_core::ApprovalStatus;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, name_of};
use super::stmt::Stmt;
use crate::store::StoreError;

/// The earliest time something expires: a pending approval, or a grant whose expiry is not
/// announced yet. Two index seeks in one statement: the sweep asks it often, and a batch of
/// submissions asks it with its runs' holds (`runs::deadline_and_holds`).
pub async fn next_deadline(conn: &mut Conn) -> Result<Option<DateTime<Utc>>, StoreError> {
    let mut query = Stmt::new("SELECT ");
    push_deadlines(&mut query)?;
    let rows = query.fetch_all(&mut *conn).await?;
    match rows.first() {
        Some(row) => earliest_of(row),
        None => Err(StoreError::Corrupt(
            "the deadline read answered no row".to_owned(),
        )),
    }
}

/// Pushes the two expiries a deadline is the earlier of, as the columns `approval_at` and
/// `grant_at` (two scalar subqueries: two index seeks).
pub fn push_deadlines(query: &mut Stmt) -> Result<(), StoreError> {
    query.push("(SELECT expires_at FROM approval_requests WHERE status = ");
    query.push_bind(name_of(&ApprovalStatus::Requested)?);
    query.push(
        " ORDER BY expires_at LIMIT 1) AS approval_at, \
         (SELECT expires_at FROM approval_grants \
         WHERE expiry_announced = 0 AND revoked_at IS NULL ORDER BY expires_at LIMIT 1) AS grant_at",
    );
    Ok(())
}

/// The earlier of a row's `approval_at` and `grant_at` ([`push_deadlines`]).
pub fn earliest_of(row: &DbRow) -> Result<Option<DateTime<Utc>>, StoreError> {
    let approval_at: Option<i64> = row.try_get("approval_at")?;
    let grant_at: Option<i64> = row.try_get("grant_at")?;
    let earliest = match (approval_at, grant_at) {
        (Some(a), Some(g)) => Some(a.min(g)),
        (one, other) => one.or(other),
    };
    earliest.map(from_micros).transpose()
}
