//! The SQLite backend: WAL, `synchronous=FULL`, one writer connection taking
//! `BEGIN IMMEDIATE` transactions, a small pool of readers.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use assent_core::{ApprovalAuditEvent, GrantStatus, Identity, IdentityKind, Role, Vote};
use assent_protocol::{
    Approval, Event, EventEnvelope, Grant, IdentityInfo, Metrics, RunState, RunStatus,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, Sqlite, SqlitePool, Transaction};

use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::task::JoinHandle;

use super::sqlite_commit::{group_commit, Publisher, Queued, QUEUE_DEPTH};
use super::sqlite_rows::{
    event_from_row, insert_audit, insert_event, json_col, micros, parse_name,
};
use super::{sqlite_approvals, sqlite_executed, sqlite_expiry, sqlite_grants, sqlite_metrics};
use super::{sqlite_checkpoint, sqlite_identities, sqlite_runs};
use super::{
    ActionSummary, Actor, ApprovalRecord, Executed, Revocation, RunEnd, Settled, Settlement, Store,
    StoreError, Submission, Submitted, TokenRecord,
};
use crate::records::resume_audit;

/// The WAL file is cut back to this size (bytes) after a checkpoint resets it.
const JOURNAL_SIZE_LIMIT: &str = "33554432";

/// The default store.
#[derive(Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    /// The checkpointer's own connection, and the task.
    checkpoint: SqlitePool,
    checkpointer: JoinHandle<()>,
    newest_event: Arc<watch::Sender<i64>>,
    /// Told after every commit, so the checkpointer runs soon after writes.
    writes: Arc<Notify>,
    /// Submissions wait here for the group-commit writer.
    submissions: mpsc::Sender<Queued>,
}

impl SqliteStore {
    /// Opens (creating and migrating) the database at `path`.
    pub async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                options
                    .clone()
                    .pragma("journal_size_limit", JOURNAL_SIZE_LIMIT),
            )
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.clone())
            .await?;
        let checkpoint = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.pragma("journal_size_limit", JOURNAL_SIZE_LIMIT))
            .await?;
        let writes = Arc::new(Notify::new());
        let checkpointer = sqlite_checkpoint::spawn(checkpoint.clone(), writes.clone());
        let (_, newest) = bounds(&reader).await?;
        let newest_event = Arc::new(watch::channel(newest).0);
        let (submissions, queue) = mpsc::channel(QUEUE_DEPTH);
        let publisher = Publisher {
            reader: reader.clone(),
            newest_event: newest_event.clone(),
            writes: writes.clone(),
        };
        tokio::spawn(group_commit(writer.clone(), queue, publisher));
        Ok(SqliteStore {
            writer,
            reader,
            checkpoint,
            checkpointer,
            newest_event,
            writes,
            submissions,
        })
    }

    async fn begin(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Commits `tx` and schedules a checkpoint.
    async fn commit(&self, tx: Transaction<'static, Sqlite>) -> Result<(), StoreError> {
        tx.commit().await?;
        self.writes.notify_one();
        Ok(())
    }

    /// Tells waiting streams about events committed just now.
    async fn publish(&self) -> Result<(), StoreError> {
        Publisher {
            reader: self.reader.clone(),
            newest_event: self.newest_event.clone(),
            writes: self.writes.clone(),
        }
        .publish()
        .await
    }
}

/// The oldest and newest event ids; two single-aggregate queries, so each is one index seek.
pub(super) async fn bounds(pool: &SqlitePool) -> Result<(i64, i64), StoreError> {
    let oldest: Option<i64> = sqlx::query_scalar("SELECT MIN(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok((oldest.unwrap_or(0), newest_id(pool).await?))
}

/// The newest event id (0 when there is none).
pub(super) async fn newest_id(pool: &SqlitePool) -> Result<i64, StoreError> {
    let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM events")
        .fetch_one(pool)
        .await?;
    Ok(newest.unwrap_or(0))
}

#[async_trait]
impl Store for SqliteStore {
    async fn submit(&self, submission: Submission) -> Result<Submitted, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.submissions
            .send(Queued { submission, reply })
            .await
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    async fn record_executed(
        &self,
        requester: &str,
        run_id: &str,
        idempotency_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Executed>, StoreError> {
        let mut tx = self.begin().await?;
        let executed =
            sqlite_executed::record(&mut tx, requester, run_id, idempotency_key, now).await?;
        self.commit(tx).await?;
        Ok(executed)
    }

    async fn action(&self, action_id: &str) -> Result<Option<ActionSummary>, StoreError> {
        let row = sqlx::query("SELECT id, status, approval_id FROM actions WHERE id = ?")
            .bind(action_id)
            .fetch_optional(&self.reader)
            .await?;
        row.map(|row| {
            Ok(ActionSummary {
                action_id: row.try_get("id")?,
                status: parse_name(&row.try_get::<String, _>("status")?)?,
                approval_id: row.try_get("approval_id")?,
            })
        })
        .transpose()
    }

    async fn approval(&self, approval_id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_approvals::load(&mut conn, approval_id).await
    }

    async fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_approvals::list(&mut conn, pending_only).await
    }

    async fn settle(&self, settlement: Settlement) -> Result<Settled, StoreError> {
        let mut tx = self.begin().await?;
        let settled = sqlite_approvals::settle(&mut tx, &settlement).await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(settled)
    }

    async fn vote(
        &self,
        approval_id: &str,
        vote: Vote,
        now: DateTime<Utc>,
    ) -> Result<Approval, StoreError> {
        let mut tx = self.begin().await?;
        let approval = sqlite_approvals::vote(&mut tx, approval_id, &vote, now).await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(approval)
    }

    async fn grants(
        &self,
        status: Option<GrantStatus>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Grant>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_grants::list(&mut conn, status, now).await
    }

    async fn revoke_grant(
        &self,
        grant_id: &str,
        revoke: Revocation<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        let mut tx = self.begin().await?;
        let grant = sqlite_grants::revoke(&mut tx, grant_id, revoke, now).await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(grant)
    }

    async fn end_run(&self, run_id: &str, now: DateTime<Utc>) -> Result<RunEnd, StoreError> {
        let mut tx = self.begin().await?;
        let ended = sqlite_expiry::end_run(&mut tx, run_id, "its run ended", now).await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(ended)
    }

    async fn expire_due(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = self.reader.acquire().await?;
        let due = sqlite_expiry::anything_due(&mut conn, now).await?;
        drop(conn);
        if !due {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        let wrote = sqlite_expiry::expire_due(&mut tx, now).await?;
        self.commit(tx).await?;
        if wrote {
            self.publish().await?;
        }
        Ok(())
    }

    async fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_expiry::next_deadline(&mut conn).await
    }

    async fn run_state(&self, run_id: &str) -> Result<RunState, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_runs::get(&mut conn, run_id).await
    }

    async fn held_runs(&self, status: RunStatus) -> Result<Vec<RunState>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_runs::list(&mut conn, status).await
    }

    async fn resume_run(
        &self,
        run_id: &str,
        by: Actor<'_>,
        now: DateTime<Utc>,
    ) -> Result<RunState, StoreError> {
        let mut tx = self.begin().await?;
        let resumed = sqlite_runs::resume(&mut tx, run_id, now).await?;
        let pausing = match &resumed.approval_id {
            Some(id) => sqlite_approvals::load(&mut tx, id).await?,
            None => None,
        };
        let reason = resumed.reason.clone().unwrap_or_default();
        insert_audit(
            &mut tx,
            &resume_audit(run_id, pausing.as_ref(), by, &reason, now),
        )
        .await?;
        insert_event(
            &mut tx,
            now,
            &Event::RunResumed {
                run: resumed.clone(),
            },
        )
        .await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(resumed)
    }

    async fn events_after(&self, after: i64, limit: i64) -> Result<Vec<EventEnvelope>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, occurred_at, body FROM events WHERE id > ? ORDER BY id LIMIT ?",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn event_bounds(&self) -> Result<(i64, i64), StoreError> {
        bounds(&self.reader).await
    }

    fn event_watch(&self) -> watch::Receiver<i64> {
        self.newest_event.subscribe()
    }

    async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalAuditEvent>, StoreError> {
        let mut sql = String::from("SELECT body FROM audit_events WHERE 1 = 1");
        if since.is_some() {
            sql.push_str(" AND occurred_at >= ?");
        }
        if run_id.is_some() {
            sql.push_str(" AND run_id = ?");
        }
        sql.push_str(" ORDER BY seq LIMIT ?");
        let mut query = sqlx::query(&sql);
        if let Some(since) = since {
            query = query.bind(micros(since));
        }
        if let Some(run_id) = run_id {
            query = query.bind(run_id);
        }
        let rows = query.bind(limit).fetch_all(&self.reader).await?;
        rows.iter().map(|row| json_col(row, "body")).collect()
    }

    async fn metrics(&self, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
        sqlite_metrics::metrics(&self.reader, now).await
    }

    async fn audit_record(&self, event: &ApprovalAuditEvent) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        insert_audit(&mut tx, event).await?;
        self.commit(tx).await
    }

    async fn policy_changed(
        &self,
        audit: Option<&ApprovalAuditEvent>,
        event: &Event,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        if let Some(audit) = audit {
            insert_audit(&mut tx, audit).await?;
        }
        insert_event(&mut tx, at, event).await?;
        self.commit(tx).await?;
        self.publish().await
    }

    async fn remembered_denials(
        &self,
        run_id: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Approval>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_approvals::remembered_denials(&mut conn, run_id, since).await
    }

    async fn forget_denial(
        &self,
        approval_id: &str,
        by: Actor<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Approval>, StoreError> {
        let mut tx = self.begin().await?;
        let approval = sqlite_approvals::forget_denial(&mut tx, approval_id, by, now).await?;
        self.commit(tx).await?;
        self.publish().await?;
        Ok(approval)
    }

    async fn identity_by_token(&self, token_hash: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_identities::by_token(&mut conn, token_hash).await
    }

    async fn identity(&self, name: &str) -> Result<Option<Identity>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_identities::get(&mut conn, name).await
    }

    async fn identities(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
        let mut conn = self.reader.acquire().await?;
        sqlite_identities::list(&mut conn, kind).await
    }

    async fn identity_add(
        &self,
        identity: &Identity,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        sqlite_identities::add(&mut tx, identity, token.hash, token.label, now).await?;
        self.commit(tx).await
    }

    async fn identity_remove(&self, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let removed = sqlite_identities::remove(&mut tx, name, kind).await?;
        self.commit(tx).await?;
        Ok(removed)
    }

    async fn person_roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Option<Identity>, StoreError> {
        let mut tx = self.begin().await?;
        let person = sqlite_identities::update_roles(&mut tx, name, add, remove).await?;
        self.commit(tx).await?;
        Ok(person)
    }

    async fn token_set(
        &self,
        name: &str,
        token: TokenRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let set = sqlite_identities::set_token(&mut tx, name, token.label, token.hash, now).await?;
        self.commit(tx).await?;
        Ok(set)
    }

    async fn token_drop(&self, name: &str, label: &str) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        sqlite_identities::drop_token(&mut tx, name, label).await?;
        self.commit(tx).await
    }

    async fn seed_identities(&self, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let seeded = sqlite_identities::seed_once(
            &mut tx,
            crate::identities::OWNER,
            crate::identities::DEFAULT_AGENT,
            now,
        )
        .await?;
        self.commit(tx).await?;
        Ok(seeded)
    }

    async fn close(&self) {
        self.checkpointer.abort();
        self.writer.close().await;
        self.reader.close().await;
        self.checkpoint.close().await;
    }
}
