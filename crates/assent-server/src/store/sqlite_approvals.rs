//! Approvals (prompts) in SQLite: open or join a batch, load, list, settle, time out.

use assent_core::{ApprovalStatus, AuditDecision};
use assent_protocol::{Approval, ApprovalMember, Event, Resolution};
use chrono::{DateTime, Utc};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use super::sqlite_rows::{
    from_micros, insert_audit, insert_event, json_col, micros, name_of, opt_from_micros, parse_name,
};
use super::{
    sqlite_grants, sqlite_identities, ApprovalRecord, Settled, Settlement, StoreError, Submission,
};
use crate::records::{settlement_audit, PromptDetail};

const COLUMNS: &str = "id, run_id, task_id, requester, batch_key, status, resolution, \
    first_request, detail, member_count, expires_at, created_at, updated_at, decided_at, \
    decided_by, decision_reason, grant_id, decided_role";

/// Where a submission went: the prompt it joined or opened, and its place in the batch.
pub struct BatchSeat {
    pub approval_id: String,
    pub opened: bool,
    pub position: i64,
}

/// Joins the pending prompt with the submission's batch key, or opens one.
pub async fn join_or_open(
    conn: &mut SqliteConnection,
    s: &Submission,
) -> Result<BatchSeat, StoreError> {
    let pending = name_of(&ApprovalStatus::Requested)?;
    let joined: Option<(String, i64)> = sqlx::query_as(
        "UPDATE approval_requests SET member_count = member_count + 1, updated_at = ? \
         WHERE id = (SELECT id FROM approval_requests \
                     WHERE status = ? AND batch_key = ? AND requester = ? AND expires_at > ? \
                     ORDER BY created_at LIMIT 1) \
         RETURNING id, member_count",
    )
    .bind(micros(s.now))
    .bind(&pending)
    .bind(&s.eval.batch_key)
    .bind(&s.requester)
    .bind(micros(s.now))
    .fetch_optional(&mut *conn)
    .await?;
    if let Some((approval_id, position)) = joined {
        return Ok(BatchSeat {
            approval_id,
            opened: false,
            position,
        });
    }
    let id = uuid::Uuid::new_v4().to_string();
    let detail = PromptDetail::of(s);
    sqlx::query(
        "INSERT INTO approval_requests (id, run_id, task_id, requester, batch_key, action_kind, \
         risk_level, status, resolution, requested_scope, evidence_artifact_id, required_role, \
         action_hash, first_request, detail, member_count, expires_at, created_at, updated_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
    )
    .bind(&id)
    .bind(&s.request.run_id)
    .bind(&s.request.task_id)
    .bind(&s.requester)
    .bind(&s.eval.batch_key)
    .bind(name_of(&s.request.action.kind)?)
    .bind(name_of(&s.eval.decision.risk)?)
    .bind(&pending)
    .bind(serde_json::to_string(&s.eval.decision.offered_scopes)?)
    .bind(&id)
    .bind(
        s.eval
            .decision
            .required_role
            .map(|r| name_of(&r))
            .transpose()?,
    )
    .bind(&s.eval.action_hash)
    .bind(serde_json::to_string(&s.request)?)
    .bind(serde_json::to_string(&detail)?)
    .bind(micros(s.approval_expires_at))
    .bind(micros(s.now))
    .bind(micros(s.now))
    .execute(&mut *conn)
    .await?;
    Ok(BatchSeat {
        approval_id: id,
        opened: true,
        position: 1,
    })
}

async fn members(conn: &mut SqliteConnection, id: &str) -> Result<Vec<ApprovalMember>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, action_hash, task_id, command_line, created_at FROM actions \
         WHERE approval_id = ? AND batch_position IS NOT NULL ORDER BY batch_position",
    )
    .bind(id)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(ApprovalMember {
                action_id: row.try_get("id")?,
                action_hash: row.try_get("action_hash")?,
                task_id: row.try_get("task_id")?,
                command_line: row.try_get("command_line")?,
                created_at: from_micros(row.try_get("created_at")?)?,
            })
        })
        .collect()
}

async fn record_of(
    conn: &mut SqliteConnection,
    row: &SqliteRow,
) -> Result<ApprovalRecord, StoreError> {
    let id: String = row.try_get("id")?;
    let detail: PromptDetail = json_col(row, "detail")?;
    let resolution: Option<String> = row.try_get("resolution")?;
    let count: i64 = row.try_get("member_count")?;
    let decided_role: Option<String> = row.try_get("decided_role")?;
    let votes = sqlite_identities::votes(conn, &id).await?;
    let approval = Approval {
        run_id: row.try_get("run_id")?,
        task_id: row.try_get("task_id")?,
        repo: detail.repo,
        requested_by: detail.requested_by,
        action_kind: detail.action_kind,
        status: parse_name(&row.try_get::<String, _>("status")?)?,
        resolution: resolution.as_deref().map(parse_name).transpose()?,
        decision: detail.decision,
        risk: detail.risk,
        reasons: detail.reasons,
        rule: detail.rule,
        recommendation: detail.recommendation,
        required_role: detail.required_role,
        profile: detail.profile,
        evidence: detail.evidence,
        offered_scopes: detail.offered_scopes,
        batch_key: row.try_get("batch_key")?,
        count: u32::try_from(count).map_err(|_| StoreError::Corrupt(format!("count {count}")))?,
        members: members(conn, &id).await?,
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
        approvals: votes.into_iter().map(Into::into).collect(),
        approval_id: id,
    };
    Ok(ApprovalRecord {
        approval,
        requester: row.try_get("requester")?,
        first_request: json_col(row, "first_request")?,
        policy_version: detail.policy_version,
    })
}

pub async fn load(
    conn: &mut SqliteConnection,
    id: &str,
) -> Result<Option<ApprovalRecord>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM approval_requests WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => Ok(Some(record_of(conn, &row).await?)),
        None => Ok(None),
    }
}

pub async fn list(
    conn: &mut SqliteConnection,
    pending_only: bool,
) -> Result<Vec<Approval>, StoreError> {
    let pending_sql =
        format!("SELECT {COLUMNS} FROM approval_requests WHERE status = ? ORDER BY created_at");
    let all_sql =
        format!("SELECT {COLUMNS} FROM approval_requests ORDER BY created_at DESC LIMIT 500");
    let query = if pending_only {
        sqlx::query(&pending_sql).bind(name_of(&ApprovalStatus::Requested)?)
    } else {
        sqlx::query(&all_sql)
    };
    let rows = query.fetch_all(&mut *conn).await?;
    let mut approvals = Vec::with_capacity(rows.len());
    for row in &rows {
        approvals.push(record_of(conn, row).await?.approval);
    }
    Ok(approvals)
}

/// Settles a pending approval and all its members at once, in the caller's transaction.
pub async fn settle(conn: &mut SqliteConnection, s: &Settlement) -> Result<Settled, StoreError> {
    let grant_id = s.grant.as_ref().map(|g| g.grant.grant_id.clone());
    let settled = sqlx::query(
        "UPDATE approval_requests SET status = ?, resolution = ?, decided_at = ?, \
         decided_by = ?, decision_reason = ?, grant_id = ?, updated_at = ?, decided_role = ? \
         WHERE id = ? AND status = ?",
    )
    .bind(name_of(&s.status)?)
    .bind(name_of(&s.resolution)?)
    .bind(micros(s.now))
    .bind(&s.decided_by)
    .bind(&s.reason)
    .bind(&grant_id)
    .bind(micros(s.now))
    .bind(s.decided_role.map(|r| name_of(&r)).transpose()?)
    .bind(&s.approval_id)
    .bind(name_of(&ApprovalStatus::Requested)?)
    .execute(&mut *conn)
    .await?;
    if settled.rows_affected() != 1 {
        return Err(StoreError::Conflict(
            "the approval is no longer pending".to_owned(),
        ));
    }
    for vote in &s.votes {
        sqlite_identities::insert_vote(conn, &s.approval_id, vote).await?;
    }
    if let Some(new) = &s.grant {
        sqlite_grants::insert(conn, new).await?;
    }
    let record = load(conn, &s.approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {} vanished", s.approval_id)))?;
    let decision = match s.resolution {
        Resolution::Approved => AuditDecision::Approved,
        Resolution::Denied => AuditDecision::Denied,
        Resolution::TimedOut | Resolution::Cancelled => AuditDecision::Expired,
    };
    let reason = s.reason.clone().unwrap_or_default();
    let granted = s.grant.as_ref().map(|g| &g.grant);
    for member in &record.approval.members {
        let audit = settlement_audit(
            &record.approval,
            member,
            decision,
            granted,
            &reason,
            &record.policy_version,
        );
        insert_audit(conn, &audit).await?;
    }
    insert_event(
        conn,
        s.now,
        &Event::ApprovalSettled {
            approval: record.approval.clone(),
        },
    )
    .await?;
    let grant = match &grant_id {
        Some(id) => sqlite_grants::load(conn, id, s.now).await?,
        None => None,
    };
    if let Some(grant) = &grant {
        insert_event(
            conn,
            s.now,
            &Event::GrantCreated {
                grant: grant.clone(),
            },
        )
        .await?;
    }
    Ok(Settled {
        approval: record.approval,
        grant,
    })
}

/// Records one person's approval of a prompt that needs more, in the caller's transaction;
/// `Conflict` when it is no longer pending.
pub async fn vote(
    conn: &mut SqliteConnection,
    approval_id: &str,
    vote: &assent_core::Vote,
    now: DateTime<Utc>,
) -> Result<Approval, StoreError> {
    let touched =
        sqlx::query("UPDATE approval_requests SET updated_at = ? WHERE id = ? AND status = ?")
            .bind(micros(now))
            .bind(approval_id)
            .bind(name_of(&ApprovalStatus::Requested)?)
            .execute(&mut *conn)
            .await?;
    if touched.rows_affected() != 1 {
        return Err(StoreError::Conflict(
            "the approval is no longer pending".to_owned(),
        ));
    }
    sqlite_identities::insert_vote(conn, approval_id, vote).await?;
    let record = load(conn, approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {approval_id} vanished")))?;
    insert_event(
        conn,
        now,
        &Event::ApprovalUpdated {
            approval: record.approval.clone(),
        },
    )
    .await?;
    Ok(record.approval)
}

/// Ids of pending approvals matching a filter: past their time, or of a run.
pub async fn pending_ids(
    conn: &mut SqliteConnection,
    due_at: Option<DateTime<Utc>>,
    run_id: Option<&str>,
) -> Result<Vec<String>, StoreError> {
    let pending = name_of(&ApprovalStatus::Requested)?;
    let ids = match (due_at, run_id) {
        (Some(now), _) => {
            sqlx::query_scalar(
                "SELECT id FROM approval_requests WHERE status = ? AND expires_at <= ?",
            )
            .bind(pending)
            .bind(micros(now))
            .fetch_all(conn)
            .await?
        }
        (None, Some(run)) => {
            sqlx::query_scalar("SELECT id FROM approval_requests WHERE status = ? AND run_id = ?")
                .bind(pending)
                .bind(run)
                .fetch_all(conn)
                .await?
        }
        (None, None) => Vec::new(),
    };
    Ok(ids)
}

/// A person's denial that answers an equivalent request of its run.
pub struct RememberedDenial {
    pub approval_id: String,
    pub decided_by: String,
    pub decided_role: Option<String>,
    pub reason: String,
}

/// The newest denial of the submission's run by a person, for the same action or batch key and
/// requester, not forgotten and within the policy's `deny_memory`.
pub async fn remembered_denial(
    conn: &mut SqliteConnection,
    s: &Submission,
) -> Result<Option<RememberedDenial>, StoreError> {
    let Some(since) = s.denials_since else {
        return Ok(None);
    };
    let row = sqlx::query(
        "SELECT id, decided_by, decided_role, decision_reason FROM approval_requests \
         WHERE run_id = ? AND resolution = ? AND decided_at >= ? AND forgotten_at IS NULL \
         AND requester = ? AND (action_hash = ? OR batch_key = ?) \
         ORDER BY decided_at DESC LIMIT 1",
    )
    .bind(&s.request.run_id)
    .bind(name_of(&Resolution::Denied)?)
    .bind(micros(since))
    .bind(&s.requester)
    .bind(&s.eval.action_hash)
    .bind(&s.eval.batch_key)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(RememberedDenial {
            approval_id: row.try_get("id")?,
            decided_by: row
                .try_get::<Option<String>, _>("decided_by")?
                .unwrap_or_default(),
            decided_role: row.try_get("decided_role")?,
            reason: row
                .try_get::<Option<String>, _>("decision_reason")?
                .unwrap_or_default(),
        })
    })
    .transpose()
}

/// The denials a run remembers (newest first).
pub async fn remembered_denials(
    conn: &mut SqliteConnection,
    run_id: &str,
    since: DateTime<Utc>,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM approval_requests \
         WHERE run_id = ? AND resolution = ? AND forgotten_at IS NULL AND decided_at >= ? \
         ORDER BY decided_at DESC"
    ))
    .bind(run_id)
    .bind(name_of(&Resolution::Denied)?)
    .bind(micros(since))
    .fetch_all(&mut *conn)
    .await?;
    let mut approvals = Vec::with_capacity(rows.len());
    for row in &rows {
        approvals.push(record_of(conn, row).await?.approval);
    }
    Ok(approvals)
}

/// Forgets a remembered denial (the desk's Undo): later equivalent requests ask again.
/// `None` when there is no such approval; `Conflict` when it is not a remembered denial.
pub async fn forget_denial(
    conn: &mut SqliteConnection,
    approval_id: &str,
    by: super::Actor<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Approval>, StoreError> {
    let Some(record) = load(conn, approval_id).await? else {
        return Ok(None);
    };
    let forgotten = sqlx::query(
        "UPDATE approval_requests SET forgotten_at = ? \
         WHERE id = ? AND resolution = ? AND forgotten_at IS NULL",
    )
    .bind(micros(now))
    .bind(approval_id)
    .bind(name_of(&Resolution::Denied)?)
    .execute(&mut *conn)
    .await?;
    if forgotten.rows_affected() != 1 {
        return Err(StoreError::Conflict(
            "only a remembered denial can be undone".to_owned(),
        ));
    }
    let approval = record.approval;
    if let Some(member) = approval.members.first() {
        let mut audit = settlement_audit(
            &approval,
            member,
            AuditDecision::Forgotten,
            None,
            &format!(
                "{} undid the denial: equivalent requests ask again",
                by.name
            ),
            &record.policy_version,
        );
        audit.timestamp = now;
        audit.approver = Some(by.name.to_owned());
        audit.approver_role = by.role;
        insert_audit(conn, &audit).await?;
    }
    insert_event(
        conn,
        now,
        &Event::ApprovalUpdated {
            approval: approval.clone(),
        },
    )
    .await?;
    Ok(Some(approval))
}
