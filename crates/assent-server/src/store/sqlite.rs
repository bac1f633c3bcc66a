//! The SQLite backend: WAL, `synchronous=FULL`, one writer connection taking
//! `BEGIN IMMEDIATE` transactions, a small pool of readers.

use std::path::Path;
use std::time::Duration;

use assent_core::{ApprovalAuditEvent, ApprovalStatus, AuditDecision, Decision, GrantStatus};
use assent_protocol::{Approval, Event, EventEnvelope, Grant, Metrics, Resolution, SubmitStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, Sqlite, SqliteConnection, SqlitePool, Transaction};
use tokio::sync::watch;

use super::sqlite_rows::{
    event_from_row, insert_audit, insert_event, json_col, micros, parse_name,
};
use super::{sqlite_approvals, sqlite_grants, sqlite_metrics};
use super::{
    ActionSummary, ApprovalRecord, RunEnd, Settled, Settlement, Store, StoreError, Submission,
    Submitted,
};
use crate::records::{response, submission_audit};

/// The default store.
#[derive(Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    newest_event: watch::Sender<i64>,
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
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        let (_, newest) = bounds(&reader).await?;
        let (newest_event, _) = watch::channel(newest);
        Ok(SqliteStore {
            writer,
            reader,
            newest_event,
        })
    }

    async fn begin(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Tells waiting streams about events committed just now.
    async fn publish(&self) -> Result<(), StoreError> {
        let (_, newest) = bounds(&self.reader).await?;
        self.newest_event.send_if_modified(|current| {
            let newer = newest > *current;
            if newer {
                *current = newest;
            }
            newer
        });
        Ok(())
    }

    async fn replayed(
        conn: &mut SqliteConnection,
        s: &Submission,
    ) -> Result<Option<Submitted>, StoreError> {
        let Some(key) = &s.request.idempotency_key else {
            return Ok(None);
        };
        let row = sqlx::query(
            "SELECT body_hash, response FROM actions WHERE requester = ? AND idempotency_key = ?",
        )
        .bind(&s.requester)
        .bind(key)
        .fetch_optional(conn)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let body_hash: String = row.try_get("body_hash")?;
        if body_hash == s.body_hash {
            Ok(Some(Submitted::Replayed(json_col(&row, "response")?)))
        } else {
            Ok(Some(Submitted::KeyReused))
        }
    }
}

async fn bounds(pool: &SqlitePool) -> Result<(i64, i64), StoreError> {
    let row =
        sqlx::query("SELECT COALESCE(MIN(id), 0) AS lo, COALESCE(MAX(id), 0) AS hi FROM events")
            .fetch_one(pool)
            .await?;
    Ok((row.try_get("lo")?, row.try_get("hi")?))
}

async fn insert_action(
    conn: &mut SqliteConnection,
    s: &Submission,
    answer: &assent_protocol::SubmitResponse,
    batch_position: Option<i64>,
) -> Result<(), StoreError> {
    let action = &s.request.action;
    let command_line = action
        .command
        .clone()
        .or_else(|| action.argv.as_ref().map(|a| a.join(" ")));
    sqlx::query(
        "INSERT INTO actions (id, requester, idempotency_key, body_hash, run_id, task_id, \
         action_hash, decision, status, approval_id, batch_position, grant_id, command_line, \
         response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&s.action_id)
    .bind(&s.requester)
    .bind(&s.request.idempotency_key)
    .bind(&s.body_hash)
    .bind(&s.request.run_id)
    .bind(&s.request.task_id)
    .bind(&s.eval.action_hash)
    .bind(super::sqlite_rows::name_of(&s.eval.decision.decision)?)
    .bind(super::sqlite_rows::name_of(&answer.status)?)
    .bind(&answer.approval_id)
    .bind(batch_position)
    .bind(&answer.grant_id)
    .bind(command_line)
    .bind(serde_json::to_string(answer)?)
    .bind(micros(s.now))
    .execute(conn)
    .await?;
    Ok(())
}

/// Records an ask/escalate: a covering grant is used, else the request joins or opens a prompt.
async fn record_guarded(
    conn: &mut SqliteConnection,
    s: &Submission,
) -> Result<assent_protocol::SubmitResponse, StoreError> {
    if let Some(grant) = sqlite_grants::use_covering(conn, &s.request, &s.eval, s.now).await? {
        let grant_id = grant.grant.grant_id.clone();
        let answer = response(s, SubmitStatus::Allowed, None, Some(grant_id.clone()));
        insert_action(conn, s, &answer, None).await?;
        let audit = submission_audit(
            s,
            AuditDecision::Used,
            Some(grant.grant.approval_id.clone()),
            Some(grant_id),
        );
        insert_audit(conn, &audit).await?;
        let event = Event::GrantUsed {
            grant,
            action_id: s.action_id.clone(),
        };
        insert_event(conn, s.now, &event).await?;
        return Ok(answer);
    }
    let seat = sqlite_approvals::join_or_open(conn, s).await?;
    let approval_id = seat.approval_id;
    let answer = response(s, SubmitStatus::Pending, Some(approval_id.clone()), None);
    insert_action(conn, s, &answer, Some(seat.position)).await?;
    let record = sqlite_approvals::load(conn, &approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {approval_id} vanished")))?;
    let event = if seat.opened {
        Event::ApprovalRequested {
            approval: record.approval,
        }
    } else {
        Event::ApprovalUpdated {
            approval: record.approval,
        }
    };
    insert_event(conn, s.now, &event).await?;
    Ok(answer)
}

#[async_trait]
impl Store for SqliteStore {
    async fn submit(&self, s: Submission) -> Result<Submitted, StoreError> {
        let mut tx = self.begin().await?;
        if let Some(earlier) = Self::replayed(&mut tx, &s).await? {
            return Ok(earlier);
        }
        let (answer, evented) = match s.eval.decision.decision {
            Decision::Auto | Decision::Block => {
                let (status, audited) = if s.eval.decision.decision == Decision::Auto {
                    (SubmitStatus::Allowed, AuditDecision::Auto)
                } else {
                    (SubmitStatus::Blocked, AuditDecision::Blocked)
                };
                let answer = response(&s, status, None, None);
                insert_action(&mut tx, &s, &answer, None).await?;
                insert_audit(&mut tx, &submission_audit(&s, audited, None, None)).await?;
                (answer, false)
            }
            Decision::Ask | Decision::Escalate => (record_guarded(&mut tx, &s).await?, true),
        };
        tx.commit().await?;
        if evented {
            self.publish().await?;
        }
        Ok(Submitted::Recorded(answer))
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
        tx.commit().await?;
        self.publish().await?;
        Ok(settled)
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
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Grant>, StoreError> {
        let mut tx = self.begin().await?;
        let grant = sqlite_grants::revoke(&mut tx, grant_id, reason, now).await?;
        tx.commit().await?;
        self.publish().await?;
        Ok(grant)
    }

    async fn end_run(&self, run_id: &str, now: DateTime<Utc>) -> Result<RunEnd, StoreError> {
        let mut tx = self.begin().await?;
        let ids = sqlite_approvals::pending_ids(&mut tx, None, Some(run_id)).await?;
        let mut approvals_cancelled = 0_u32;
        for approval_id in ids {
            let settlement = closing(approval_id, Resolution::Cancelled, "its run ended", now);
            sqlite_approvals::settle(&mut tx, &settlement).await?;
            approvals_cancelled = approvals_cancelled.saturating_add(1);
        }
        let grants_expired = sqlite_grants::expire_run(&mut tx, run_id, now).await?;
        insert_event(
            &mut tx,
            now,
            &Event::RunEnded {
                run_id: run_id.to_owned(),
            },
        )
        .await?;
        tx.commit().await?;
        self.publish().await?;
        Ok(RunEnd {
            grants_expired,
            approvals_cancelled,
        })
    }

    async fn expire_due(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = self.reader.acquire().await?;
        let due = sqlite_approvals::pending_ids(&mut conn, Some(now), None).await?;
        let grants_due: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM approval_grants \
             WHERE expiry_announced = 0 AND revoked_at IS NULL AND expires_at <= ?",
        )
        .bind(micros(now))
        .fetch_one(&mut *conn)
        .await?;
        drop(conn);
        if due.is_empty() && grants_due == 0 {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        for approval_id in due {
            let reason = "nobody answered in time; the fallback applies (deny)";
            let settlement = closing(approval_id, Resolution::TimedOut, reason, now);
            match sqlite_approvals::settle(&mut tx, &settlement).await {
                Ok(_) | Err(StoreError::Conflict(_)) => {}
                Err(other) => return Err(other),
            }
        }
        sqlite_grants::announce_expired(&mut tx, now, "its time ran out").await?;
        tx.commit().await?;
        self.publish().await
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

    async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }
}

/// A settlement nobody decided: the timeout or the end of the run.
fn closing(
    approval_id: String,
    resolution: Resolution,
    reason: &str,
    now: DateTime<Utc>,
) -> Settlement {
    let by = if resolution == Resolution::TimedOut {
        "timeout"
    } else {
        "run-end"
    };
    Settlement {
        approval_id,
        status: ApprovalStatus::Expired,
        resolution,
        decided_by: by.to_owned(),
        reason: Some(reason.to_owned()),
        grant: None,
        now,
    }
}
