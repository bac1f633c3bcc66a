//! Rows of `approval_grants` in both stores: insert, candidates and use, list, revoke, expire.

use assent_core::{ApprovalGrant, GrantStatus, ScopeKind};
use assent_protocol::Grant;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, json_col, micros, name_of, opt_from_micros, parse_name};
use super::stmt::Stmt;
use crate::store::{NewGrant, StoreError};

const COLUMNS: &str = "id, approval_request_id, run_id, scope_kind, action_kinds, constraints, \
    max_uses, used_count, expires_at, revoked_at, revoke_reason, created_at, created_by, \
    revocable, policy_version, summary, created_by_role, revoked_by, invalidated_at, \
    invalidated_reason";

fn domain_grant(row: &DbRow) -> Result<ApprovalGrant, StoreError> {
    let count = |col: &str| -> Result<Option<u32>, StoreError> {
        let value: Option<i64> = row.try_get(col)?;
        value
            .map(|v| u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{col} {v}"))))
            .transpose()
    };
    Ok(ApprovalGrant {
        grant_id: row.try_get("id")?,
        approval_id: row.try_get("approval_request_id")?,
        run_id: row.try_get("run_id")?,
        scope_kind: parse_name(&row.try_get::<String, _>("scope_kind")?)?,
        action_kinds: json_col(row, "action_kinds")?,
        constraints: json_col(row, "constraints")?,
        created_at: from_micros(row.try_get("created_at")?)?,
        expires_at: from_micros(row.try_get("expires_at")?)?,
        max_uses: count("max_uses")?,
        used_count: count("used_count")?.unwrap_or(0),
        created_by: row.try_get("created_by")?,
        revocable: row.try_get::<i64, _>("revocable")? != 0,
        revoked_at: opt_from_micros(row.try_get("revoked_at")?)?,
        policy_version: row.try_get("policy_version")?,
        invalidated_at: opt_from_micros(row.try_get("invalidated_at")?)?,
    })
}

fn wire_grant(row: &DbRow, now: DateTime<Utc>) -> Result<Grant, StoreError> {
    let grant = domain_grant(row)?;
    let role: Option<String> = row.try_get("created_by_role")?;
    Ok(Grant {
        status: grant.status(now),
        grant,
        revoke_reason: row.try_get("revoke_reason")?,
        summary: row.try_get("summary")?,
        created_by_role: role.as_deref().map(parse_name).transpose()?,
        invalidated_reason: row.try_get("invalidated_reason")?,
        revoked_by: row.try_get("revoked_by")?,
    })
}

pub fn insert(new: &NewGrant) -> Result<Stmt, StoreError> {
    let g = &new.grant;
    let stmt = Stmt::new(format!(
        "INSERT INTO approval_grants ({COLUMNS}) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12, $13, $14, $15, $16, \
         NULL, NULL, NULL)"
    ))
    .bind(g.grant_id.clone())
    .bind(g.approval_id.clone())
    .bind(g.run_id.clone())
    .bind(name_of(&g.scope_kind)?)
    .bind(serde_json::to_string(&g.action_kinds)?)
    .bind(serde_json::to_string(&g.constraints)?)
    .bind(g.max_uses.map(i64::from))
    .bind(i64::from(g.used_count))
    .bind(micros(g.expires_at))
    .bind(g.revoked_at.map(micros))
    .bind(micros(g.created_at))
    .bind(g.created_by.clone())
    .bind(i64::from(g.revocable))
    .bind(g.policy_version.clone())
    .bind(new.summary.clone())
    .bind(new.created_by_role.map(|r| name_of(&r)).transpose()?);
    Ok(stmt)
}

pub async fn load(
    conn: &mut Conn,
    grant_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<Grant>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM approval_grants WHERE id = $1"
    ))
    .bind(grant_id)
    .fetch_optional(conn)
    .await?;
    row.map(|row| wire_grant(&row, now)).transpose()
}

/// Live grants with uses left that may cover a request of `run_id`, oldest first.
pub async fn candidates(
    conn: &mut Conn,
    run_id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<ApprovalGrant>, StoreError> {
    candidates_from(&candidates_read(run_id, now).fetch_all(conn).await?)
}

/// The read of [`candidates`], for [`candidates_from`].
pub fn candidates_read(run_id: &str, now: DateTime<Utc>) -> Stmt {
    Stmt::new(format!(
        "SELECT {COLUMNS} FROM approval_grants \
         WHERE revoked_at IS NULL AND invalidated_at IS NULL AND expires_at > $1 \
         AND (max_uses IS NULL OR used_count < max_uses) \
         AND (run_id = $2 OR scope_kind NOT IN ('once', 'run')) \
         ORDER BY created_at"
    ))
    .bind(micros(now))
    .bind(run_id.to_owned())
}

/// The grants [`candidates_read`] answered.
pub fn candidates_from(rows: &[DbRow]) -> Result<Vec<ApprovalGrant>, StoreError> {
    rows.iter().map(domain_grant).collect()
}

/// Consumes one use of a grant still live at `now`; false when the guard failed.
pub async fn use_one(
    conn: &mut Conn,
    grant_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let used = sqlx::query(
        "UPDATE approval_grants SET used_count = used_count + 1 \
         WHERE id = $1 AND revoked_at IS NULL AND invalidated_at IS NULL \
         AND expires_at > $2 AND (max_uses IS NULL OR used_count < max_uses)",
    )
    .bind(grant_id)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(used.rows_affected() == 1)
}

pub async fn list(
    conn: &mut Conn,
    status: Option<GrantStatus>,
    now: DateTime<Utc>,
) -> Result<Vec<Grant>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM approval_grants ORDER BY created_at DESC"
    ))
    .fetch_all(conn)
    .await?;
    let mut grants = Vec::with_capacity(rows.len());
    for row in rows {
        let grant = wire_grant(&row, now)?;
        if status.is_none_or(|wanted| grant.status == wanted) {
            grants.push(grant);
        }
    }
    Ok(grants)
}

/// Revokes a grant not revoked yet; false when it already was.
pub async fn revoke(
    conn: &mut Conn,
    grant_id: &str,
    by: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let revoked = sqlx::query(
        "UPDATE approval_grants SET revoked_at = $1, revoke_reason = $2, revoked_by = $3 \
         WHERE id = $4 AND revoked_at IS NULL",
    )
    .bind(micros(now))
    .bind(reason)
    .bind(by)
    .bind(grant_id)
    .execute(conn)
    .await?;
    Ok(revoked.rows_affected() == 1)
}

/// Marks a grant still live at `now` invalidated (its expiry is then never announced); false
/// when it already stopped counting (revoked, invalidated by another request or replica,
/// expired). The guarded `UPDATE` takes the row's lock: exactly one writer wins.
pub async fn invalidate(
    conn: &mut Conn,
    grant_id: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let invalidated = sqlx::query(
        "UPDATE approval_grants SET invalidated_at = $1, invalidated_reason = $2, \
         expiry_announced = 1 \
         WHERE id = $3 AND revoked_at IS NULL AND invalidated_at IS NULL AND expires_at > $4",
    )
    .bind(micros(now))
    .bind(reason)
    .bind(grant_id)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(invalidated.rows_affected() == 1)
}

/// Ends the run-scoped (and once) grants of a run now; returns how many.
pub async fn end_run(
    conn: &mut Conn,
    run_id: &str,
    requester: Option<&str>,
    now: DateTime<Utc>,
) -> Result<u32, StoreError> {
    // With a requester: only the grants of prompts that identity asked (`$6 IS NULL`: all),
    // each looked up by its prompt's key rather than every prompt of the requester.
    let ended = sqlx::query(
        "UPDATE approval_grants SET expires_at = $1 \
         WHERE run_id = $2 AND scope_kind IN ($3, $4) AND revoked_at IS NULL \
         AND invalidated_at IS NULL AND expires_at > $5 \
         AND ($6 IS NULL OR EXISTS (SELECT 1 FROM approval_requests a \
              WHERE a.id = approval_grants.approval_request_id AND a.requester = $6))",
    )
    .bind(micros(now))
    .bind(run_id)
    .bind(name_of(&ScopeKind::Run)?)
    .bind(name_of(&ScopeKind::Once)?)
    .bind(micros(now))
    .bind(requester)
    .execute(conn)
    .await?;
    Ok(u32::try_from(ended.rows_affected()).unwrap_or(u32::MAX))
}

/// Grants past their time, not revoked, whose expiry is not announced yet.
pub async fn unannounced_expired(
    conn: &mut Conn,
    now: DateTime<Utc>,
) -> Result<Vec<Grant>, StoreError> {
    let rows = sqlx::query(&format!(
        concat!(
            "SELECT {COLUMNS} FROM approval_grants \
             WHERE expiry_announced = 0 AND revoked_at IS NULL AND invalidated_at IS NULL \
             AND expires_at <= $1 ORDER BY expires_at, id",
            skip_locked!()
        ),
        COLUMNS = COLUMNS
    ))
    .bind(micros(now))
    .fetch_all(conn)
    .await?;
    rows.iter().map(|row| wire_grant(row, now)).collect()
}

/// (Locked with `SKIP LOCKED` above on PostgreSQL: each expiry is announced by one replica.)
/// Marks a grant's expiry announced; false when it already was.
pub async fn mark_announced(conn: &mut Conn, grant_id: &str) -> Result<bool, StoreError> {
    let marked = sqlx::query(
        "UPDATE approval_grants SET expiry_announced = 1 WHERE id = $1 AND expiry_announced = 0",
    )
    .bind(grant_id)
    .execute(conn)
    .await?;
    Ok(marked.rows_affected() == 1)
}
