//! Rows of `actions` in both stores: recorded submissions and their first answers.

use sqlx::Row;

use super::backend::Conn;
use super::codec::{json_col, micros, name_of};
use super::stmt::Stmt;
use crate::store::rows::{ActionRow, KeyedAnswer};
use crate::store::StoreError;

/// Rows per multi-row INSERT (17 columns × 128 stays far below SQLite's variable limit).
pub const ROWS_PER_INSERT: usize = 128;

/// The statements that write `rows`, up to [`ROWS_PER_INSERT`] per statement. A reused
/// idempotency key is a `Conflict`.
pub fn inserts(rows: &[ActionRow]) -> Result<Vec<Stmt>, StoreError> {
    rows.chunks(ROWS_PER_INSERT).map(insert_chunk).collect()
}

fn insert_chunk(rows: &[ActionRow]) -> Result<Stmt, StoreError> {
    let mut insert = Stmt::new(
        "INSERT INTO actions (id, requester, idempotency_key, body_hash, run_id, task_id, \
         action_hash, decision, status, approval_id, batch_position, grant_id, command_line, \
         response, created_at, action_kind, policy_version) VALUES ",
    );
    for (i, r) in rows.iter().enumerate() {
        let e = EncodedAction::of(r)?;
        insert.push_row(i == 0, |row| {
            row.bind(r.id.clone())
                .bind(r.requester.clone())
                .bind(r.idempotency_key.clone())
                .bind(r.body_hash.clone())
                .bind(r.run_id.clone())
                .bind(r.task_id.clone())
                .bind(r.action_hash.clone())
                .bind(e.decision)
                .bind(e.status)
                .bind(r.approval_id.clone())
                .bind(r.batch_position)
                .bind(r.grant_id.clone())
                .bind(r.command_line.clone())
                .bind(e.response)
                .bind(micros(r.created_at))
                .bind(e.action_kind)
                .bind(r.policy_version.clone());
        });
    }
    insert.conflict = Some("this idempotency key was recorded concurrently");
    Ok(insert)
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

/// An action row's enums and first answer, encoded to bind.
pub struct EncodedAction {
    pub decision: String,
    pub status: String,
    pub response: String,
    pub action_kind: String,
}

impl EncodedAction {
    pub fn of(row: &ActionRow) -> Result<EncodedAction, StoreError> {
        Ok(EncodedAction {
            decision: name_of(&row.decision)?,
            status: name_of(&row.status)?,
            response: serde_json::to_string(&row.response)?,
            action_kind: name_of(&row.action_kind)?,
        })
    }
}
