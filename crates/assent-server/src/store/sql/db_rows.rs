//! Row encoding of both stores' statements: microsecond times, serde names, JSON as text, so
//! a row means the same in both backends; events and audit rows.

use assent_core::ApprovalAuditEvent;
use assent_protocol::{Event, EventEnvelope};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use sqlx::{QueryBuilder, Row};

use super::backend::{Conn, Db, DbRow};

pub use super::codec::{from_micros, micros, name_of, opt_from_micros, parse_name};
use super::StoreError;

/// What a statement is built on: sqlx's [`QueryBuilder`], or on SQLite the plain writer's
/// (`sqlite_plain.rs`), so the statements both run are one text with one list of values.
pub trait Build<'args> {
    /// Appends SQL text.
    fn sql(&mut self, text: &str);
    /// Appends a placeholder and binds `value` to it.
    fn bind<T>(&mut self, value: T)
    where
        T: 'args + sqlx::Encode<'args, Db> + sqlx::Type<Db> + Send;
}

impl<'args> Build<'args> for QueryBuilder<'args, Db> {
    fn sql(&mut self, text: &str) {
        self.push(text);
    }

    fn bind<T>(&mut self, value: T)
    where
        T: 'args + sqlx::Encode<'args, Db> + sqlx::Type<Db> + Send,
    {
        self.push_bind(value);
    }
}

/// The values of one row, bound one after another with `, ` between them.
pub struct Values<'b, B> {
    b: &'b mut B,
    first: bool,
}

impl<B> Values<'_, B> {
    pub fn bind<'args, T>(&mut self, value: T) -> &mut Self
    where
        B: Build<'args>,
        T: 'args + sqlx::Encode<'args, Db> + sqlx::Type<Db> + Send,
    {
        if !std::mem::take(&mut self.first) {
            self.b.sql(", ");
        }
        self.b.bind(value);
        self
    }
}

/// Appends `(v, v, …), (…)`: one parenthesised list per row, bound by `row` (what sqlx's
/// `push_values` writes, for either builder).
pub fn push_rows<'args, B: Build<'args>, R>(
    b: &mut B,
    rows: impl IntoIterator<Item = R>,
    mut row: impl FnMut(&mut Values<'_, B>, R),
) {
    for (i, r) in rows.into_iter().enumerate() {
        b.sql(if i == 0 { "(" } else { ", (" });
        row(&mut Values { b, first: true }, r);
        b.sql(")");
    }
}

/// A row's columns by name, whichever driver read it: sqlx's rows, and on SQLite the plain
/// writer's (`sqlite_plain.rs`), so both decode a statement's answer one way.
pub trait Columns {
    fn int(&self, col: &str) -> Result<Option<i64>, StoreError>;
    fn text(&self, col: &str) -> Result<Option<String>, StoreError>;
}

impl Columns for DbRow {
    fn int(&self, col: &str) -> Result<Option<i64>, StoreError> {
        Ok(self.try_get(col)?)
    }

    fn text(&self, col: &str) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(col)?)
    }
}

pub fn json_col<T: DeserializeOwned>(row: &DbRow, col: &str) -> Result<T, StoreError> {
    let text: String = row.try_get(col)?;
    Ok(serde_json::from_str(&text)?)
}

/// Appends one event to the log; its id is the SSE id.
pub async fn insert_event(
    conn: &mut Conn,
    at: DateTime<Utc>,
    event: &Event,
) -> Result<i64, StoreError> {
    let body = serde_json::to_string(event)?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO events (occurred_at, kind, body) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(micros(at))
    .bind(event.name())
    .bind(body)
    .fetch_one(conn)
    .await?;
    Ok(id)
}

pub fn event_from_row(row: &DbRow) -> Result<EventEnvelope, StoreError> {
    Ok(EventEnvelope {
        id: row.try_get("id")?,
        at: from_micros(row.try_get("occurred_at")?)?,
        event: json_col(row, "body")?,
    })
}

/// Audit rows per multi-row INSERT.
pub const AUDITS_PER_INSERT: usize = 128;

/// An audit row ready to bind: the event, its decision's name, its body, its chain link
/// (`chain_seq`, `prev_hash`, `hash`).
pub type AuditInsert<'a> = (&'a ApprovalAuditEvent, String, String, super::chain::Link);

/// The audit rows, linked into the chain after `head`: the rows and the head they leave.
pub fn audit_rows(
    head: (i64, String),
    audits: &[ApprovalAuditEvent],
) -> Result<(Vec<AuditInsert<'_>>, (i64, String)), StoreError> {
    let bodies = audits
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    let (links, head) = super::chain::link_after(head, &bodies);
    let mut rows = Vec::with_capacity(audits.len());
    for ((audit, body), link) in audits.iter().zip(bodies).zip(links) {
        rows.push((audit, name_of(&audit.decision)?, body, link));
    }
    Ok((rows, head))
}

/// The multi-row INSERT of `rows` (at most [`AUDITS_PER_INSERT`]).
pub fn push_audit_insert<'args, B: Build<'args>>(b: &mut B, rows: &'args [AuditInsert<'_>]) {
    b.sql(
        "INSERT INTO audit_events \
         (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) VALUES ",
    );
    push_rows(b, rows, |v, (audit, decision, body, link)| {
        v.bind(audit.event_id.as_str())
            .bind(micros(audit.timestamp))
            .bind(audit.run_id.as_str())
            .bind(decision.as_str())
            .bind(body.as_str())
            .bind(link.0)
            .bind(link.1.as_str())
            .bind(link.2.as_str());
    });
}

/// Writes `audits`, up to [`AUDITS_PER_INSERT`] per statement, each linked into the audit
/// chain after the head: `known` when this transaction already holds it (read with its
/// batch's first statement, or left by its last append), else read here (under the writers'
/// lock either way). Returns the chain position before and after, and the new head.
pub async fn insert_audits(
    conn: &mut Conn,
    known: Option<(i64, String)>,
    audits: &[ApprovalAuditEvent],
) -> Result<(i64, i64, (i64, String)), StoreError> {
    let head = match known {
        Some(head) => head,
        None => super::chain::head(&mut *conn).await?,
    };
    let before = head.0;
    let (rows, head) = audit_rows(head, audits)?;
    let after = head.0;
    for chunk in rows.chunks(AUDITS_PER_INSERT) {
        let mut insert = QueryBuilder::<Db>::new("");
        push_audit_insert(&mut insert, chunk);
        insert.build().execute(&mut *conn).await?;
    }
    Ok((before, after, head))
}
