//! Rows of `actions` in both stores: recorded submissions and their first answers.

use sqlx::{QueryBuilder, Row};

use super::backend::{Conn, Db};
use super::codec::EncodedAction;
use super::db_rows::{json_col, micros, push_rows, Build};
use super::rows::{ActionRow, KeyedAnswer};
use super::StoreError;

/// Rows per multi-row INSERT (17 columns × 128 stays far below SQLite's variable limit).
pub const ROWS_PER_INSERT: usize = 128;

/// Writes `rows`, up to [`ROWS_PER_INSERT`] per statement. A reused idempotency key is a
/// `Conflict`.
pub async fn insert(conn: &mut Conn, rows: &[ActionRow]) -> Result<(), StoreError> {
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        insert_chunk(conn, chunk).await?;
    }
    Ok(())
}

async fn insert_chunk(conn: &mut Conn, rows: &[ActionRow]) -> Result<(), StoreError> {
    if rows.is_empty() {
        return Ok(());
    }
    let encoded = rows
        .iter()
        .map(EncodedAction::of)
        .collect::<Result<Vec<_>, _>>()?;
    let mut insert = QueryBuilder::<Db>::new("");
    push_insert(&mut insert, &encoded);
    match insert.build().execute(conn).await {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(err)) if err.is_unique_violation() => Err(StoreError::Conflict(
            "this idempotency key was recorded concurrently".to_owned(),
        )),
        Err(err) => Err(err.into()),
    }
}

/// The multi-row INSERT of `rows` (at most [`ROWS_PER_INSERT`]), for either builder.
pub fn push_insert<'args>(b: &mut impl Build<'args>, rows: &'args [EncodedAction<'_>]) {
    b.sql(
        "INSERT INTO actions (id, requester, idempotency_key, body_hash, run_id, task_id, \
         action_hash, decision, status, approval_id, batch_position, grant_id, command_line, \
         response, created_at, action_kind, policy_version) VALUES ",
    );
    push_rows(b, rows, |v, e| {
        let r = e.row;
        v.bind(r.id.as_str())
            .bind(r.requester.as_str())
            .bind(r.idempotency_key.as_deref())
            .bind(r.body_hash.as_str())
            .bind(r.run_id.as_str())
            .bind(r.task_id.as_str())
            .bind(r.action_hash.as_str())
            .bind(e.decision.as_str())
            .bind(e.status.as_str())
            .bind(r.approval_id.as_deref())
            .bind(r.batch_position)
            .bind(r.grant_id.as_deref())
            .bind(r.command_line.as_deref())
            .bind(e.response.as_str())
            .bind(micros(r.created_at))
            .bind(e.action_kind.as_str())
            .bind(r.policy_version.as_str());
    });
}

/// What `requester` was first answered under `key` ([`keyed`]): the body hash and response.
pub const KEYED: &str =
    "SELECT body_hash, response FROM actions WHERE requester = $1 AND idempotency_key = $2";

/// What `requester` was first answered under `key`.
pub async fn keyed(
    conn: &mut Conn,
    requester: &str,
    key: &str,
) -> Result<Option<KeyedAnswer>, StoreError> {
    let row = sqlx::query(KEYED)
    .bind(requester)
    .bind(key)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(KeyedAnswer {
            body_hash: row.try_get("body_hash")?,
            response: json_col(&row, "response")?,
        })
    })
    .transpose()
}
