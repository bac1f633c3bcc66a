//! Routing in both stores: the people who may be asked, who is present (a desk's event
//! stream on any replica, a web desk session used recently), what each prompt asked, and the
//! open prompts due to escalate.

use std::collections::BTreeSet;

use assent_core::{ApprovalStatus, Identity, IdentityKind};
use assent_protocol::AskedSteps;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, json_col, micros, name_of, parse_name};
use super::stmt::Stmt;
use crate::store::StoreError;

/// Every person, by name.
pub async fn people(conn: &mut Conn) -> Result<Vec<Identity>, StoreError> {
    people_from(&people_read()?.fetch_all(conn).await?)
}

/// The read of [`people`], for [`people_from`].
pub fn people_read() -> Result<Stmt, StoreError> {
    Ok(
        Stmt::new("SELECT name, kind, roles FROM identities WHERE kind = $1 ORDER BY name")
            .bind(name_of(&IdentityKind::Person)?),
    )
}

/// The people [`people_read`] answered.
pub fn people_from(rows: &[DbRow]) -> Result<Vec<Identity>, StoreError> {
    rows.iter()
        .map(|row| {
            Ok(Identity {
                name: row.try_get("name")?,
                kind: parse_name(&row.try_get::<String, _>("kind")?)?,
                roles: json_col(row, "roles")?,
            })
        })
        .collect()
}

/// The people with a desk stream seen at or after `streams_since` (on any replica) or an open
/// web desk session used at or after `sessions_since`.
pub async fn present(
    conn: &mut Conn,
    streams_since: DateTime<Utc>,
    sessions_since: DateTime<Utc>,
) -> Result<BTreeSet<String>, StoreError> {
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT person FROM desk_presence WHERE seen_at >= $1 \
         UNION SELECT person FROM desk_sessions WHERE ended_at IS NULL AND last_seen_at >= $2",
    )
    .bind(micros(streams_since))
    .bind(micros(sessions_since))
    .fetch_all(conn)
    .await?;
    Ok(names.into_iter().collect())
}

/// Records what a still pending prompt asked (and when it escalated); false when it is no
/// longer pending or, for an escalation, escalated already (another sweep or replica did).
pub async fn record_asked(
    conn: &mut Conn,
    approval_id: &str,
    asked: &AskedSteps,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE approval_requests SET asked = $1, escalated_at = $2 \
         WHERE id = $3 AND status = $4 AND escalated_at IS NULL",
    )
    .bind(serde_json::to_string(asked)?)
    .bind(asked.escalated_at.map(micros))
    .bind(approval_id)
    .bind(name_of(&ApprovalStatus::Requested)?)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Pending prompts opened at or before `opened_by` that have not escalated, oldest first. A
/// backend shared by replicas locks what it returns, so each escalates once.
pub async fn escalation_due(
    conn: &mut Conn,
    opened_by: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let ids = sqlx::query_scalar(concat!(
        "SELECT id FROM approval_requests \
         WHERE status = $1 AND escalated_at IS NULL AND created_at <= $2 \
         ORDER BY created_at, id",
        skip_locked!()
    ))
    .bind(name_of(&ApprovalStatus::Requested)?)
    .bind(micros(opened_by))
    .fetch_all(conn)
    .await?;
    Ok(ids)
}

/// When the oldest pending prompt that has not escalated opened.
pub async fn oldest_unescalated(conn: &mut Conn) -> Result<Option<DateTime<Utc>>, StoreError> {
    let at: Option<i64> = sqlx::query_scalar(
        "SELECT created_at FROM approval_requests WHERE status = $1 AND escalated_at IS NULL \
         ORDER BY created_at LIMIT 1",
    )
    .bind(name_of(&ApprovalStatus::Requested)?)
    .fetch_optional(conn)
    .await?;
    at.map(from_micros).transpose()
}

/// Marks `people` present on `replica` at `now`.
pub async fn presence_touch(
    conn: &mut Conn,
    people: &[String],
    replica: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    for person in people {
        sqlx::query(
            "INSERT INTO desk_presence (person, replica, seen_at) \
             SELECT name, $2, $3 FROM identities WHERE name = $1 \
             ON CONFLICT (person, replica) DO UPDATE SET seen_at = excluded.seen_at",
        )
        .bind(person)
        .bind(replica)
        .bind(micros(now))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// `person` has no desk stream open on `replica` any more.
pub async fn presence_drop(conn: &mut Conn, person: &str, replica: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM desk_presence WHERE person = $1 AND replica = $2")
        .bind(person)
        .bind(replica)
        .execute(conn)
        .await?;
    Ok(())
}
