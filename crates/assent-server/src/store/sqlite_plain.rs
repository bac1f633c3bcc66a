//! The policy's plain record on SQLite, written in place: what a batch of auto and block
//! decisions writes (`crate::workflow::batch`) runs on a plain SQLite connection of its own,
//! on the calling thread, under the writers' lock.
//!
//! Through sqlx every statement is a hand-off to the connection's thread and back; an auto
//! decision's record is five (`BEGIN`, the batch's first read, the action row, the audit row,
//! `COMMIT`), and at an agent's pace each one wakes an idle core twice. That record was ≈ 85 %
//! of the service's answer to a gate (docs/benchmarks.md, "The service's share"). Here it is a
//! few µs of SQLite per statement and no hand-off at all.
//!
//! Only that record: [`PlainTx`] runs the batch's first read, the idempotency lookup, and the
//! action and audit inserts — the statements sqlx runs, built by the same functions of `sql/`
//! ([`Build`]) with the same values. Anything else a batch meets (an expired prompt, a held
//! run's prompt, a checkpoint of the audit chain due, a lock taken by another process, any
//! error of SQLite's, a connection that cannot be opened) is [`StoreError::NotPlain`], from any
//! statement or from the `BEGIN` itself: the transaction rolls back and the batch is
//! written again through sqlx, fsynced, as before. Nothing is lost, and the full path gives the
//! error if it persists.
//!
//! **One writer.** The connection lives inside the writers' lock ([`Writers`]) that every sqlx
//! write transaction holds too, so the two never wait on each other inside SQLite (whose busy
//! handler sleeps in milliseconds): the plain `BEGIN IMMEDIATE` does not wait at all
//! (`busy_timeout` 0), a lock held elsewhere sends the batch the full way.
//!
//! **Durability** is the relaxed one of `Store::begin_relaxed`: `synchronous=NORMAL`, committed
//! before anyone is answered, flushed by the checkpointer ≤ 250 ms later (and once more as the
//! store shuts). SQLite's automatic checkpoint stays the backstop, as on the sqlx writer
//! (`sqlite_checkpoint.rs`): in a burst that outruns the checkpointer it runs inside a plain
//! `COMMIT`, on the caller's thread (under `wrk`, decisions/s and the p99 still improved:
//! docs/benchmarks.md, "The policy's record in place").
//!
//! **Out of service.** A rollback that fails closes the connection (closing rolls back) rather
//! than leave it holding SQLite's write lock; the next plain transaction opens it again.

use std::sync::Arc;

use assent_core::ApprovalAuditEvent;
use chrono::{DateTime, Utc};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags, ToSql};
use sqlx::sqlite::SqliteArgumentValue;
use sqlx::{Encode, Sqlite};
use tokio::sync::OwnedMutexGuard;

use super::codec::EncodedAction;
use super::rows::KeyedAnswer;
use super::sqlite_checkpoint::Writes;
use super::sqlite_sql::{actions, db_rows, runs};
use super::{StoreError, Tx};

/// The writers' lock: held by every write transaction, sqlx's and the plain one, and with it
/// the plain connection.
#[derive(Debug)]
pub struct Writers {
    /// `None` while out of service: never opened again once the store is shut (`path` `None`),
    /// else opened again by the next plain transaction.
    plain: Option<Connection>,
    /// The database, while the store is open.
    path: Option<std::path::PathBuf>,
}

impl Writers {
    /// The writers' lock over the (existing, migrated, WAL) database at `path`, with the plain
    /// connection open.
    pub fn open(path: &std::path::Path) -> Result<Writers, StoreError> {
        Ok(Writers {
            plain: Some(open(path)?),
            path: Some(path.to_owned()),
        })
    }

    /// Closes the plain connection for good (the store shuts).
    pub fn shut(&mut self) {
        self.path = None;
        self.plain = None;
    }

    /// Takes the plain connection out of service (tests): the next plain transaction opens
    /// the database at `reopen_at` (`None`: the store's own).
    #[cfg(test)]
    pub fn out_of_service(&mut self, reopen_at: Option<std::path::PathBuf>) {
        self.plain = None;
        if let Some(path) = reopen_at {
            self.path = Some(path);
        }
    }

    /// The plain connection: `Closed` once shut; opened again when out of service, and
    /// `NotPlain` when that fails (the full way writes meanwhile).
    fn connection(&mut self) -> Result<&Connection, StoreError> {
        let Some(path) = &self.path else {
            return Err(StoreError::Closed);
        };
        if self.plain.is_none() {
            match open(path) {
                Ok(conn) => self.plain = Some(conn),
                Err(err) => {
                    tracing::warn!(%err, "the plain writer cannot open its connection");
                    return Err(StoreError::NotPlain);
                }
            }
        }
        self.plain.as_ref().ok_or(StoreError::NotPlain)
    }
}

/// Opens the plain writer's connection to the (existing, migrated, WAL) database at `path`.
fn open(path: &std::path::Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(opening)?;
    // Never wait inside SQLite: a lock held by anyone else sends the batch the full way.
    conn.busy_timeout(std::time::Duration::ZERO)
        .map_err(opening)?;
    // A batch's statements differ by how many rows and runs it has: keep more than the
    // default 16 prepared, so a burst of mixed batch sizes does not prepare them again.
    conn.set_prepared_statement_cache_capacity(64);
    conn.execute_batch(&format!(
        "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
         PRAGMA journal_size_limit = {};",
        super::sqlite::JOURNAL_SIZE_LIMIT
    ))
    .map_err(opening)?;
    Ok(conn)
}

fn opening(err: rusqlite::Error) -> StoreError {
    StoreError::Corrupt(format!("the plain writer's connection: {err}"))
}

/// A statement built by the functions of `sql/` ([`Build`]) for the plain connection: the
/// text (with `?` placeholders, as sqlx's SQLite builder writes them) and its values, encoded
/// by sqlx's own encoders.
#[derive(Default)]
pub struct PlainSql<'args> {
    text: String,
    values: Vec<SqliteArgumentValue<'args>>,
    /// The first value that could not be encoded.
    failed: Option<String>,
}

impl<'args> db_rows::Build<'args> for PlainSql<'args> {
    fn sql(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn bind<T>(&mut self, value: T)
    where
        T: 'args + Encode<'args, Sqlite> + sqlx::Type<Sqlite> + Send,
    {
        self.text.push('?');
        let before = self.values.len();
        match value.encode(&mut self.values) {
            Ok(sqlx::encode::IsNull::Yes) => {
                self.values.truncate(before);
                self.values.push(SqliteArgumentValue::Null);
            }
            Ok(sqlx::encode::IsNull::No) => {}
            Err(err) => {
                self.values.truncate(before);
                self.values.push(SqliteArgumentValue::Null);
                self.failed.get_or_insert_with(|| err.to_string());
            }
        }
    }
}

/// A value sqlx encoded, as rusqlite binds it.
struct Arg<'a>(&'a SqliteArgumentValue<'a>);

impl ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            SqliteArgumentValue::Null => ValueRef::Null,
            SqliteArgumentValue::Text(text) => ValueRef::Text(text.as_bytes()),
            SqliteArgumentValue::Blob(blob) => ValueRef::Blob(blob),
            SqliteArgumentValue::Double(x) => ValueRef::Real(*x),
            SqliteArgumentValue::Int(i) => ValueRef::Integer(i64::from(*i)),
            SqliteArgumentValue::Int64(i) => ValueRef::Integer(*i),
        }))
    }
}

impl PlainSql<'_> {
    /// Prepares the statement (cached by its text) with its values bound.
    fn prepare<'c>(
        &self,
        conn: &'c Connection,
    ) -> Result<rusqlite::CachedStatement<'c>, StoreError> {
        if let Some(err) = &self.failed {
            // sqlx's builder fails the same value the same way: the full way reports it.
            tracing::debug!(%err, "a value could not be encoded for the plain record");
            return Err(StoreError::NotPlain);
        }
        let mut statement = conn.prepare_cached(&self.text).map_err(not_plain)?;
        for (i, value) in self.values.iter().enumerate() {
            statement
                .raw_bind_parameter(i + 1, Arg(value))
                .map_err(not_plain)?;
        }
        Ok(statement)
    }
}

/// Any SQLite error of the plain path: the batch is written again through sqlx, which reports
/// the error if it persists.
fn not_plain(err: rusqlite::Error) -> StoreError {
    tracing::debug!(error = %err, "the plain record gives way to the full write");
    StoreError::NotPlain
}

/// A unique constraint (a reused idempotency key) is the client's `Conflict`, as sqlx's
/// `is_unique_violation` tells it; any other error, [`not_plain`].
fn inserting(err: rusqlite::Error) -> StoreError {
    const UNIQUE: i32 = 2067; // SQLITE_CONSTRAINT_UNIQUE
    const PRIMARY_KEY: i32 = 1555; // SQLITE_CONSTRAINT_PRIMARYKEY
    match &err {
        rusqlite::Error::SqliteFailure(e, _)
            if e.code == ErrorCode::ConstraintViolation
                && (e.extended_code == UNIQUE || e.extended_code == PRIMARY_KEY) =>
        {
            StoreError::Conflict("this idempotency key was recorded concurrently".to_owned())
        }
        _ => not_plain(err),
    }
}

/// One plain write transaction (see the module's header).
pub struct PlainTx {
    writers: OwnedMutexGuard<Writers>,
    /// Told after the commit: the checkpointer flushes the WAL soon after.
    writes: Arc<Writes>,
    signer: Option<Arc<crate::audit_chain::CountSigner>>,
    /// The audit chain's head, read with the batch's first statement and moved by each append.
    chain_head: Option<(i64, String)>,
}

impl PlainTx {
    /// Begins: `BEGIN IMMEDIATE` on the plain connection, under the writers' lock `writers`.
    pub fn begin(
        writers: OwnedMutexGuard<Writers>,
        writes: Arc<Writes>,
        signer: Option<Arc<crate::audit_chain::CountSigner>>,
    ) -> Result<PlainTx, StoreError> {
        let mut tx = PlainTx {
            writers,
            writes,
            signer,
            chain_head: None,
        };
        tx.writers
            .connection()?
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(not_plain)?;
        Ok(tx)
    }

    /// A setting of the plain connection (`synchronous`, `busy_timeout`…), for tests.
    #[cfg(test)]
    pub fn pragma(&self, name: &str) -> Result<i64, StoreError> {
        self.conn()?
            .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
            .map_err(not_plain)
    }

    fn conn(&self) -> Result<&Connection, StoreError> {
        self.writers.plain.as_ref().ok_or(StoreError::NotPlain)
    }

    fn execute(
        &self,
        sql: &PlainSql<'_>,
        on_error: fn(rusqlite::Error) -> StoreError,
    ) -> Result<(), StoreError> {
        sql.prepare(self.conn()?)?.raw_execute().map_err(on_error)?;
        Ok(())
    }
}

impl Drop for PlainTx {
    /// Uncommitted (a batch that met more than the plain record, or an error): rolled back
    /// before the writers' lock is let go. Should the rollback fail, the connection is closed
    /// (which rolls back) rather than left holding SQLite's write lock; the next plain
    /// transaction opens another.
    fn drop(&mut self) {
        let open = |conn: &Connection| !conn.is_autocommit();
        let Some(conn) = self.writers.plain.as_ref().filter(|conn| open(conn)) else {
            return;
        };
        if let Err(err) = conn.execute_batch("ROLLBACK") {
            tracing::warn!(error = %err, "the plain writer's rollback failed");
        }
        if self.writers.plain.as_ref().is_some_and(open) {
            self.writers.plain = None;
        }
    }
}

impl db_rows::Columns for rusqlite::Row<'_> {
    fn int(&self, col: &str) -> Result<Option<i64>, StoreError> {
        self.get(col).map_err(not_plain)
    }

    fn text(&self, col: &str) -> Result<Option<String>, StoreError> {
        self.get(col).map_err(not_plain)
    }
}

/// The [`Tx`] of [`PlainTx`]: the plain record's methods as written, and every other one
/// [`StoreError::NotPlain`] (the batch goes the full way). One `impl` (made here, so
/// `async_trait` sees every method).
macro_rules! plain_tx {
    ({ $($plain:tt)* } $($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        #[async_trait::async_trait]
        impl Tx for PlainTx {
            $($plain)*
            $(
                async fn $name(&mut self, $($arg: $ty),*) -> Result<$out, StoreError> {
                    let _ = ($($arg,)*);
                    Err(StoreError::NotPlain)
                }
            )*
        }
    };
}

plain_tx! {{
    async fn deadline_and_holds(
        &mut self,
        run_ids: &[&str],
    ) -> Result<
        (
            Option<DateTime<Utc>>,
            std::collections::HashMap<String, assent_protocol::RunState>,
        ),
        StoreError,
    > {
        let mut sql = PlainSql::default();
        runs::push_deadline_and_holds(&mut sql, run_ids)?;
        let mut read = runs::FirstRead::default();
        {
            let mut statement = sql.prepare(self.conn()?)?;
            let mut rows = statement.raw_query();
            while let Some(row) = rows.next().map_err(not_plain)? {
                read.add(row)?;
            }
        }
        let (deadline, held, head) = read.finish()?;
        self.chain_head = Some(head);
        Ok((deadline, held))
    }

    async fn keyed_action(
        &mut self,
        requester: &str,
        key: &str,
    ) -> Result<Option<KeyedAnswer>, StoreError> {
        let conn = self.conn()?;
        let mut statement = conn.prepare_cached(actions::KEYED).map_err(not_plain)?;
        // By name: `$1` and `$2` are the statement's own numbers, whatever their order.
        let mut rows = statement
            .query(rusqlite::named_params! {"$1": requester, "$2": key})
            .map_err(not_plain)?;
        let Some(row) = rows.next().map_err(not_plain)? else {
            return Ok(None);
        };
        let body_hash: String = row.get("body_hash").map_err(not_plain)?;
        let response: String = row.get("response").map_err(not_plain)?;
        Ok(Some(KeyedAnswer {
            body_hash,
            response: serde_json::from_str(&response)?,
        }))
    }

    async fn insert_actions(&mut self, rows: &[super::rows::ActionRow]) -> Result<(), StoreError> {
        for chunk in rows.chunks(actions::ROWS_PER_INSERT) {
            let encoded = chunk
                .iter()
                .map(EncodedAction::of)
                .collect::<Result<Vec<_>, _>>()?;
            let mut sql = PlainSql::default();
            actions::push_insert(&mut sql, &encoded);
            self.execute(&sql, inserting)?;
        }
        Ok(())
    }

    async fn insert_audits(&mut self, audits: &[ApprovalAuditEvent]) -> Result<(), StoreError> {
        // The head comes with the batch's first read; without it, the full way reads it.
        let head = self.chain_head.take().ok_or(StoreError::NotPlain)?;
        let before = head.0;
        let (rows, head) = db_rows::audit_rows(head, audits)?;
        if self.signer.as_ref().is_some_and(|s| s.due(before, head.0)) {
            // A signed checkpoint of the chain is due: the full way writes it with these.
            return Err(StoreError::NotPlain);
        }
        for chunk in rows.chunks(db_rows::AUDITS_PER_INSERT) {
            let mut sql = PlainSql::default();
            db_rows::push_audit_insert(&mut sql, chunk);
            self.execute(&sql, not_plain)?;
        }
        self.chain_head = Some(head);
        Ok(())
    }

    async fn commit(self: Box<Self>) -> Result<(), StoreError> {
        self.conn()?.execute_batch("COMMIT").map_err(not_plain)?;
        self.writes.committed(true);
        Ok(())
    }
}
        executed_candidate(requester: &str, run_id: &str, by: super::rows::ExecutedBy<'_>) -> Option<super::rows::ExecutedRow>;
        mark_executed(action_id: &str, key: Option<&str>, now: DateTime<Utc>) -> ();
        claim_execution(action_id: &str, now: DateTime<Utc>) -> bool;
        joinable_approvals(requester: &str, batch_key: &str, now: DateTime<Utc>) -> Vec<assent_core::workflow::PendingPrompt>;
        join_approval(approval_id: &str, now: DateTime<Utc>) -> Option<i64>;
        insert_approval(row: &super::rows::ApprovalRow) -> ();
        approval(approval_id: &str) -> Option<super::ApprovalRecord>;
        settle_approval(row: super::rows::SettleRow<'_>) -> ();
        touch_pending(approval_id: &str, now: DateTime<Utc>) -> ();
        insert_vote(approval_id: &str, vote: &assent_core::Vote) -> ();
        pending_approvals(which: super::rows::Pending<'_>) -> Vec<String>;
        remembered_denial(probe: super::rows::DenialProbe<'_>) -> Option<super::rows::RememberedDenial>;
        run_diff_approvals(run_id: &str) -> Vec<assent_protocol::Approval>;
        forget_denial(approval_id: &str, now: DateTime<Utc>) -> bool;
        grant_candidates(run_id: &str, now: DateTime<Utc>) -> Vec<assent_core::ApprovalGrant>;
        use_grant(grant_id: &str, now: DateTime<Utc>) -> bool;
        grant(grant_id: &str, now: DateTime<Utc>) -> Option<assent_protocol::Grant>;
        insert_grant(new: &super::NewGrant) -> ();
        revoke_grant(grant_id: &str, by: &str, reason: &str, now: DateTime<Utc>) -> bool;
        invalidate_grant(grant_id: &str, reason: &str, now: DateTime<Utc>) -> bool;
        end_run_grants(run_id: &str, requester: Option<&str>, now: DateTime<Utc>) -> u32;
        unannounced_expired_grants(now: DateTime<Utc>) -> Vec<assent_protocol::Grant>;
        mark_grant_announced(grant_id: &str) -> bool;
        run_holds(run_ids: &[&str]) -> std::collections::HashMap<String, assent_protocol::RunState>;
        hold_run(hold: super::rows::HoldRow<'_>) -> assent_protocol::RunState;
        campaign_runs(campaign: &str, status: assent_protocol::RunStatus) -> Vec<assent_protocol::RunState>;
        resume_run(run_id: &str, now: DateTime<Utc>) -> assent_protocol::RunState;
        people() -> Vec<assent_core::Identity>;
        present(streams_since: DateTime<Utc>, sessions_since: DateTime<Utc>) -> std::collections::BTreeSet<String>;
        record_asked(approval_id: &str, asked: &assent_protocol::AskedSteps) -> bool;
        escalation_due(opened_by: DateTime<Utc>) -> Vec<String>;
        campaign(campaign_id: &str) -> Option<assent_core::campaign::Campaign>;
        campaigns() -> Vec<assent_core::campaign::Campaign>;
        insert_campaign(campaign: &assent_core::campaign::Campaign) -> ();
        update_campaign(campaign: &assent_core::campaign::Campaign) -> ();
    insert_event(at: DateTime<Utc>, event: &assent_protocol::Event) -> i64;
}

#[cfg(test)]
#[path = "sqlite_plain_tests.rs"]
mod tests;
