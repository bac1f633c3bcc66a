//! Rows of `approval_requests` (prompts) in both stores: candidates to join, join, open, load,
//! list, settle and touch with a "still pending" guard, remembered denials.

use assent_core::workflow::PendingPrompt;
use std::collections::HashMap;

use assent_core::{ApprovalStatus, Vote};
use assent_protocol::{Approval, ApprovalMember, Resolution};
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{
    from_micros, json_col, micros, name_of, opt_from_micros, parse_name, placeholders,
};
use super::identities;
use super::stmt::Stmt;
use crate::store::rows::PromptDetail;
use crate::store::rows::{ApprovalRow, DenialProbe, Pending, RememberedDenial, SettleRow};
use crate::store::{ApprovalRecord, StoreError};

const COLUMNS: &str = "id, run_id, task_id, requester, batch_key, status, resolution, \
    first_request, detail, member_count, expires_at, created_at, updated_at, decided_at, \
    decided_by, decision_reason, grant_id, decided_role, asked";

/// The "no longer pending" answer of a lost race.
fn not_pending() -> StoreError {
    StoreError::Conflict("the approval is no longer pending".to_owned())
}

/// Pending, unexpired prompts of `requester` with `batch_key`.
pub fn joinable_read(
    requester: &str,
    batch_key: &str,
    now: DateTime<Utc>,
) -> Result<Stmt, StoreError> {
    Ok(Stmt::new(
        "SELECT id, created_at, expires_at FROM approval_requests \
         WHERE status = $1 AND batch_key = $2 AND requester = $3 AND expires_at > $4 \
         ORDER BY created_at LIMIT 8",
    )
    .bind(name_of(&ApprovalStatus::Requested)?)
    .bind(batch_key.to_owned())
    .bind(requester.to_owned())
    .bind(micros(now)))
}

/// The prompts [`joinable_read`] answered.
pub fn joinable_from(
    rows: &[DbRow],
    requester: &str,
    batch_key: &str,
) -> Result<Vec<PendingPrompt>, StoreError> {
    rows.iter()
        .map(|row| {
            Ok(PendingPrompt {
                approval_id: row.try_get("id")?,
                requester: requester.to_owned(),
                batch_key: batch_key.to_owned(),
                created_at: from_micros(row.try_get("created_at")?)?,
                expires_at: from_micros(row.try_get("expires_at")?)?,
            })
        })
        .collect()
}

/// Adds a member to a still pending, unexpired prompt; its position, `None` when the guard
/// failed.
pub async fn join(
    conn: &mut Conn,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<i64>, StoreError> {
    let position: Option<i64> = sqlx::query_scalar(
        "UPDATE approval_requests SET member_count = member_count + 1, updated_at = $1 \
         WHERE id = $2 AND status = $3 AND expires_at > $4 RETURNING member_count",
    )
    .bind(micros(now))
    .bind(approval_id)
    .bind(name_of(&ApprovalStatus::Requested)?)
    .bind(micros(now))
    .fetch_optional(conn)
    .await?;
    Ok(position)
}

/// Opens a prompt with one member.
pub fn insert(row: &ApprovalRow) -> Result<Stmt, StoreError> {
    let stmt = Stmt::new(
        "INSERT INTO approval_requests (id, run_id, task_id, requester, batch_key, action_kind, \
         risk_level, status, resolution, requested_scope, evidence_artifact_id, required_role, \
         action_hash, first_request, detail, member_count, expires_at, created_at, updated_at, \
         asked) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10, $11, $12, $13, $14, 1, $15, $16, $17, \
         $18)",
    )
    .bind(row.id.clone())
    .bind(row.run_id.clone())
    .bind(row.task_id.clone())
    .bind(row.requester.clone())
    .bind(row.batch_key.clone())
    .bind(name_of(&row.action_kind)?)
    .bind(name_of(&row.risk)?)
    .bind(name_of(&ApprovalStatus::Requested)?)
    .bind(serde_json::to_string(&row.requested_scope)?)
    .bind(row.id.clone())
    .bind(row.required_role.map(|r| name_of(&r)).transpose()?)
    .bind(row.action_hash.clone())
    .bind(serde_json::to_string(&row.first_request)?)
    .bind(serde_json::to_string::<PromptDetail>(&row.detail)?)
    .bind(micros(row.expires_at))
    .bind(micros(row.created_at))
    .bind(micros(row.created_at))
    .bind(row.asked.as_ref().map(serde_json::to_string).transpose()?)
    ;
    Ok(stmt)
}

/// Ids bound per `IN (…)` list: well under SQLite's and PostgreSQL's parameter limits.
const IDS_PER_QUERY: usize = 400;

/// The reads a record of each of `ids` (at most [`IDS_PER_QUERY`]) is made with, besides its
/// row: its members, then its votes ([`records_from`]).
pub fn record_reads(ids: &[String]) -> [Stmt; 2] {
    let mut members = Stmt::new(format!(
        "SELECT approval_id, id, action_hash, task_id, command_line, created_at FROM actions \
         WHERE approval_id IN ({}) AND batch_position IS NOT NULL \
         ORDER BY approval_id, batch_position",
        placeholders(ids.len())
    ));
    for id in ids {
        members = members.bind(id.clone());
    }
    [members, identities::votes_read(ids)]
}

/// The records of `rows` (approval rows, `COLUMNS`), in order, from the answers of
/// [`record_reads`] for their ids.
pub fn records_from(
    rows: &[DbRow],
    member_rows: &[DbRow],
    vote_rows: &[DbRow],
) -> Result<Vec<ApprovalRecord>, StoreError> {
    let mut members: HashMap<String, Vec<ApprovalMember>> = HashMap::new();
    for row in member_rows {
        members
            .entry(row.try_get("approval_id")?)
            .or_default()
            .push(ApprovalMember {
                action_id: row.try_get("id")?,
                action_hash: row.try_get("action_hash")?,
                task_id: row.try_get("task_id")?,
                command_line: row.try_get("command_line")?,
                created_at: from_micros(row.try_get("created_at")?)?,
            });
    }
    let mut votes = HashMap::new();
    identities::votes_from(vote_rows, &mut votes)?;
    rows.iter()
        .map(|row| {
            let id: String = row.try_get("id")?;
            let (members, votes) = (
                members.remove(&id).unwrap_or_default(),
                votes.remove(&id).unwrap_or_default(),
            );
            record_from(row, id, members, votes)
        })
        .collect()
}

/// The records of `rows` (approval rows, `COLUMNS`), in order, their members and votes read
/// in one query each per [`IDS_PER_QUERY`] of them.
async fn records_of(conn: &mut Conn, rows: &[DbRow]) -> Result<Vec<ApprovalRecord>, StoreError> {
    let mut records = Vec::with_capacity(rows.len());
    for chunk in rows.chunks(IDS_PER_QUERY) {
        let ids = chunk
            .iter()
            .map(|row| row.try_get::<String, _>("id"))
            .collect::<Result<Vec<_>, _>>()?;
        let [members, votes] = record_reads(&ids);
        let members = members.fetch_all(&mut *conn).await?;
        let votes = votes.fetch_all(&mut *conn).await?;
        records.extend(records_from(chunk, &members, &votes)?);
    }
    Ok(records)
}

fn record_from(
    row: &DbRow,
    id: String,
    members: Vec<ApprovalMember>,
    votes: Vec<Vote>,
) -> Result<ApprovalRecord, StoreError> {
    let detail: PromptDetail = json_col(row, "detail")?;
    let resolution: Option<String> = row.try_get("resolution")?;
    let count: i64 = row.try_get("member_count")?;
    let decided_role: Option<String> = row.try_get("decided_role")?;
    let asked: Option<String> = row.try_get("asked")?;
    let approval = Approval {
        run_id: row.try_get("run_id")?,
        task_id: row.try_get("task_id")?,
        repo: detail.repo,
        requested_by: detail.requested_by,
        action_kind: detail.action_kind,
        approval_type: detail.evidence.approval_type(),
        status: parse_name(&row.try_get::<String, _>("status")?)?,
        resolution: resolution.as_deref().map(parse_name).transpose()?,
        facts: detail.facts,
        recommendation: detail.recommendation,
        evidence: detail.evidence,
        batch_key: row.try_get("batch_key")?,
        count: u32::try_from(count).map_err(|_| StoreError::Corrupt(format!("count {count}")))?,
        members,
        reason: detail.reason,
        created_at: from_micros(row.try_get("created_at")?)?,
        updated_at: from_micros(row.try_get("updated_at")?)?,
        expires_at: from_micros(row.try_get("expires_at")?)?,
        fallback_on_timeout: detail.fallback_on_timeout,
        decided_at: opt_from_micros(row.try_get("decided_at")?)?,
        decided_by: row.try_get("decided_by")?,
        decision_reason: row.try_get("decision_reason")?,
        grant_id: row.try_get("grant_id")?,
        decided_role: decided_role.as_deref().map(parse_name).transpose()?,
        requester: row.try_get("requester")?,
        required_approvals: detail.required_approvals,
        quick_decisions: detail.quick_decisions,
        agents_waiting: 0,
        agents_stopped_waiting_at: None,
        quick_up_to: assent_core::RiskLevel::Medium,
        step_up_url: None,
        review: None,
        approvals: votes.into_iter().map(Into::into).collect(),
        asked: asked.as_deref().map(serde_json::from_str).transpose()?,
        // Made for the desks when the approval is sent (`handlers::approvals`), never stored.
        words: assent_protocol::words::PromptWords::default(),
        approval_id: id,
    };
    Ok(ApprovalRecord {
        approval,
        requester: row.try_get("requester")?,
        first_request: json_col(row, "first_request")?,
        policy_version: detail.policy_version,
    })
}

pub async fn load(conn: &mut Conn, id: &str) -> Result<Option<ApprovalRecord>, StoreError> {
    let row = row_read(id).fetch_all(&mut *conn).await?;
    Ok(records_of(conn, &row).await?.pop())
}

/// The read of approval `id`'s row (none when there is no such approval).
pub fn row_read(id: &str) -> Stmt {
    Stmt::new(format!(
        "SELECT {COLUMNS} FROM approval_requests WHERE id = $1"
    ))
    .bind(id.to_owned())
}

pub async fn list(conn: &mut Conn, pending_only: bool) -> Result<Vec<Approval>, StoreError> {
    let pending_sql =
        format!("SELECT {COLUMNS} FROM approval_requests WHERE status = $1 ORDER BY created_at");
    let all_sql =
        format!("SELECT {COLUMNS} FROM approval_requests ORDER BY created_at DESC LIMIT 500");
    let query = if pending_only {
        sqlx::query(&pending_sql).bind(name_of(&ApprovalStatus::Requested)?)
    } else {
        sqlx::query(&all_sql)
    };
    let rows = query.fetch_all(&mut *conn).await?;
    Ok(records_of(conn, &rows)
        .await?
        .into_iter()
        .map(|record| record.approval)
        .collect())
}

/// The update that settles a still pending approval, answering its row as settled (none when
/// it was not pending: [`not_pending`]).
pub fn settle(s: SettleRow<'_>) -> Result<Stmt, StoreError> {
    Ok(Stmt::new(format!(
        "UPDATE approval_requests SET status = $1, resolution = $2, decided_at = $3, \
         decided_by = $4, decision_reason = $5, grant_id = $6, updated_at = $7, decided_role = $8 \
         WHERE id = $9 AND status = $10 RETURNING {COLUMNS}"
    ))
    .bind(name_of(&s.status)?)
    .bind(name_of(&s.resolution)?)
    .bind(micros(s.now))
    .bind(s.decided_by.to_owned())
    .bind(s.reason.map(str::to_owned))
    .bind(s.grant_id.map(str::to_owned))
    .bind(micros(s.now))
    .bind(s.decided_role.map(|r| name_of(&r)).transpose()?)
    .bind(s.approval_id.to_owned())
    .bind(name_of(&ApprovalStatus::Requested)?))
}

/// The approval a settling update answered, or the "no longer pending" conflict.
pub fn settled(rows: Vec<DbRow>) -> Result<DbRow, StoreError> {
    rows.into_iter().next().ok_or_else(not_pending)
}

/// Touches a still pending approval; `Conflict` when it is not.
pub async fn touch(
    conn: &mut Conn,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let touched =
        sqlx::query("UPDATE approval_requests SET updated_at = $1 WHERE id = $2 AND status = $3")
            .bind(micros(now))
            .bind(approval_id)
            .bind(name_of(&ApprovalStatus::Requested)?)
            .execute(conn)
            .await?;
    if touched.rows_affected() != 1 {
        return Err(not_pending());
    }
    Ok(())
}

/// Ids of pending approvals: past their time, or of a run. Those past their time are locked
/// where the store has several writers (PostgreSQL's `FOR UPDATE SKIP LOCKED`): of several
/// replicas sweeping at once each takes its own, so a timeout and its fallback happen once.
pub async fn pending_ids(conn: &mut Conn, which: Pending<'_>) -> Result<Vec<String>, StoreError> {
    let pending = name_of(&ApprovalStatus::Requested)?;
    let ids = match which {
        Pending::DueAt(now) => {
            sqlx::query_scalar(concat!(
                "SELECT id FROM approval_requests WHERE status = $1 AND expires_at <= $2 \
                 ORDER BY expires_at, id",
                skip_locked!()
            ))
            .bind(pending)
            .bind(micros(now))
            .fetch_all(conn)
            .await?
        }
        Pending::OfRun(run) => {
            sqlx::query_scalar(
                "SELECT id FROM approval_requests WHERE status = $1 AND run_id = $2 \
                 ORDER BY created_at, id",
            )
            .bind(pending)
            .bind(run)
            .fetch_all(conn)
            .await?
        }
        Pending::OfRunBy(run, requester) => {
            sqlx::query_scalar(
                "SELECT id FROM approval_requests WHERE status = $1 AND run_id = $2 \
                 AND requester = $3 ORDER BY created_at, id",
            )
            .bind(pending)
            .bind(run)
            .bind(requester)
            .fetch_all(conn)
            .await?
        }
    };
    Ok(ids)
}

/// The newest denial of the probe's run by a person, for the same action or batch key and
/// requester, not forgotten and decided at or after `since`.
pub async fn remembered_denial(
    conn: &mut Conn,
    p: DenialProbe<'_>,
) -> Result<Option<RememberedDenial>, StoreError> {
    remembered_denial_from(&remembered_denial_read(p)?.fetch_all(conn).await?)
}

/// The read of [`remembered_denial`], for [`remembered_denial_from`].
pub fn remembered_denial_read(p: DenialProbe<'_>) -> Result<Stmt, StoreError> {
    Ok(Stmt::new(
        "SELECT id, decided_by, decided_role, decision_reason FROM approval_requests \
         WHERE run_id = $1 AND resolution = $2 AND decided_at >= $3 AND forgotten_at IS NULL \
         AND requester = $4 AND (action_hash = $5 OR batch_key = $6) \
         ORDER BY decided_at DESC LIMIT 1",
    )
    .bind(p.run_id.to_owned())
    .bind(name_of(&Resolution::Denied)?)
    .bind(micros(p.since))
    .bind(p.requester.to_owned())
    .bind(p.action_hash.to_owned())
    .bind(p.batch_key.to_owned()))
}

/// The denial [`remembered_denial_read`] answered, if any.
pub fn remembered_denial_from(rows: &[DbRow]) -> Result<Option<RememberedDenial>, StoreError> {
    rows.first()
        .map(|row| {
            let role: Option<String> = row.try_get("decided_role")?;
            Ok(RememberedDenial {
                approval_id: row.try_get("id")?,
                decided_by: row
                    .try_get::<Option<String>, _>("decided_by")?
                    .unwrap_or_default(),
                decided_role: role.as_deref().map(parse_name).transpose()?,
                reason: row
                    .try_get::<Option<String>, _>("decision_reason")?
                    .unwrap_or_default(),
            })
        })
        .transpose()
}

/// The denials a run remembers (newest first).
pub async fn remembered_denials(
    conn: &mut Conn,
    run_id: &str,
    since: DateTime<Utc>,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM approval_requests \
         WHERE run_id = $1 AND resolution = $2 AND forgotten_at IS NULL AND decided_at >= $3 \
         ORDER BY decided_at DESC"
    ))
    .bind(run_id)
    .bind(name_of(&Resolution::Denied)?)
    .bind(micros(since))
    .fetch_all(&mut *conn)
    .await?;
    Ok(records_of(conn, &rows)
        .await?
        .into_iter()
        .map(|record| record.approval)
        .collect())
}

/// The diff approvals of a run, oldest first.
pub async fn run_diffs(conn: &mut Conn, run_id: &str) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query(&format!(
        concat!(
            "SELECT {COLUMNS} FROM approval_requests WHERE run_id = $1 AND ",
            json_text!("detail", "evidence", "type"),
            " = 'diff' ORDER BY created_at, id"
        ),
        COLUMNS = COLUMNS
    ))
    .bind(run_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(records_of(conn, &rows)
        .await?
        .into_iter()
        .map(|record| record.approval)
        .collect())
}

/// Marks a denial forgotten (the desk's Undo); false when it is not a remembered denial.
pub async fn forget(
    conn: &mut Conn,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let forgotten = sqlx::query(
        "UPDATE approval_requests SET forgotten_at = $1 \
         WHERE id = $2 AND resolution = $3 AND forgotten_at IS NULL",
    )
    .bind(micros(now))
    .bind(approval_id)
    .bind(name_of(&Resolution::Denied)?)
    .execute(conn)
    .await?;
    Ok(forgotten.rows_affected() == 1)
}
