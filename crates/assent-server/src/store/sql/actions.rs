//! Rows of `actions` in both stores: recorded submissions and their first answers.

use sqlx::{QueryBuilder, Row};

use super::backend::{Conn, Db};
use super::codec::{json_col, micros, name_of};
use crate::store::rows::{ActionRow, KeyedAnswer};
use crate::store::StoreError;

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
    let mut insert = QueryBuilder::<Db>::new(
        "INSERT INTO actions (id, requester, idempotency_key, body_hash, run_id, task_id, \
         action_hash, decision, status, approval_id, batch_position, grant_id, command_line, \
         response, created_at, action_kind, policy_version) ",
    );
    insert.push_values(&encoded, |mut v, e| {
        let r = e.row;
        v.push_bind(r.id.as_str())
            .push_bind(r.requester.as_str())
            .push_bind(r.idempotency_key.as_deref())
            .push_bind(r.body_hash.as_str())
            .push_bind(r.run_id.as_str())
            .push_bind(r.task_id.as_str())
            .push_bind(r.action_hash.as_str())
            .push_bind(e.decision.as_str())
            .push_bind(e.status.as_str())
            .push_bind(r.approval_id.as_deref())
            .push_bind(r.batch_position)
            .push_bind(r.grant_id.as_deref())
            .push_bind(r.command_line.as_deref())
            .push_bind(e.response.as_str())
            .push_bind(micros(r.created_at))
            .push_bind(e.action_kind.as_str())
            .push_bind(r.policy_version.as_str());
    });
    match insert.build().execute(conn).await {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(err)) if err.is_unique_violation() => Err(StoreError::Conflict(
            "this idempotency key was recorded concurrently".to_owned(),
        )),
        Err(err) => Err(err.into()),
    }
}

/// What `requester` was first answered under `key`.
pub async fn keyed(
    conn: &mut Conn,
    requester: &str,
    key: &str,
) -> Result<Option<KeyedAnswer>, StoreError> {
    let row = sqlx::query(
        "SELECT body_hash, response FROM actions WHERE requester = $1 AND idempotency_key = $2",
    )
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

/// An action row with its enums and first answer encoded, ready to bind.
pub struct EncodedAction<'a> {
    pub row: &'a ActionRow,
    pub decision: String,
    pub status: String,
    pub response: String,
    pub action_kind: String,
}

impl<'a> EncodedAction<'a> {
    pub fn of(row: &'a ActionRow) -> Result<EncodedAction<'a>, StoreError> {
        Ok(EncodedAction {
            row,
            decision: name_of(&row.decision)?,
            status: name_of(&row.status)?,
            response: serde_json::to_string(&row.response)?,
            action_kind: name_of(&row.action_kind)?,
        })
    }
}
