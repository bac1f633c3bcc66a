//! Webhook rows in both stores: the registered webhooks, their outbox (one delivery row per
//! event and webhook, written in the event's own transaction) and each delivery's attempts.

use assent_protocol::{DeliveryAttempt, DeliveryState, Event, WebhookDelivery};
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, micros, name_of, opt_from_micros, parse_name};
use crate::store::{AttemptRow, ClaimedDelivery, StoreError, WebhookRow};
use crate::webhooks::payload::{self, Concerns, Settled};

/// `events` as stored: each name between commas (`,a,b,`), so one `LIKE` finds a name.
fn events_col(events: &[String]) -> String {
    format!(",{},", events.join(","))
}

fn events_of(col: &str) -> Vec<String> {
    col.split(',')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

const WEBHOOK_COLS: &str =
    "w.id, w.url, w.events, w.agent, w.allow_private, w.secret, w.created_by, w.created_at";

fn webhook_from(row: &DbRow) -> Result<WebhookRow, StoreError> {
    Ok(WebhookRow {
        id: row.try_get("id")?,
        url: row.try_get("url")?,
        events: events_of(&row.try_get::<String, _>("events")?),
        agent: row.try_get("agent")?,
        allow_private: row.try_get::<i64, _>("allow_private")? != 0,
        secret: row.try_get("secret")?,
        created_by: row.try_get("created_by")?,
        created_at: from_micros(row.try_get("created_at")?)?,
    })
}

/// Stores a new webhook; `Conflict` when its id is taken.
pub async fn add(conn: &mut Conn, row: &WebhookRow) -> Result<(), StoreError> {
    let done = sqlx::query(
        "INSERT INTO webhooks (id, url, events, agent, allow_private, secret, created_by, \
         created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&row.id)
    .bind(&row.url)
    .bind(events_col(&row.events))
    .bind(&row.agent)
    .bind(i64::from(row.allow_private))
    .bind(&row.secret)
    .bind(&row.created_by)
    .bind(micros(row.created_at))
    .execute(conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::Conflict(format!(
            "a webhook with id {} exists already",
            row.id
        )));
    }
    Ok(())
}

/// Every webhook, oldest first.
pub async fn list(conn: &mut Conn) -> Result<Vec<WebhookRow>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {WEBHOOK_COLS} FROM webhooks w ORDER BY w.created_at, w.id"
    ))
    .fetch_all(conn)
    .await?;
    rows.iter().map(webhook_from).collect()
}

/// Removes a webhook with its deliveries and their attempts; false when it was unknown.
pub async fn remove(conn: &mut Conn, id: &str) -> Result<bool, StoreError> {
    sqlx::query(
        "DELETE FROM webhook_attempts WHERE delivery_id IN \
         (SELECT id FROM webhook_deliveries WHERE webhook_id = $1)",
    )
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM webhook_deliveries WHERE webhook_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query("DELETE FROM webhooks WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Writes one delivery per webhook that takes `event` (its type listed; for an agent's
/// webhook, an event about that agent), in the event's own transaction. With no such
/// webhook this is one statement that writes nothing; the body is built (and a settled
/// approval's grant read) only when a row was written.
pub async fn enqueue(
    conn: &mut Conn,
    event_id: i64,
    at: DateTime<Utc>,
    event: &Event,
) -> Result<(), StoreError> {
    let Some(concerns) = payload::concerns(event) else {
        return Ok(());
    };
    let (clause, key) = match &concerns {
        // `$5` is bound on every branch (PostgreSQL wants each parameter used); no agent's
        // name is empty, so this keeps only the webhooks for everyone's events.
        Concerns::Nobody => ("(w.agent IS NULL OR w.agent = $5)", ""),
        Concerns::Agent(agent) => ("(w.agent IS NULL OR w.agent = $5)", agent.as_str()),
        Concerns::Approval(id) => (
            "(w.agent IS NULL OR w.agent = \
             (SELECT requester FROM approval_requests WHERE id = $5))",
            id.as_str(),
        ),
        Concerns::Run(run_id) => (
            "(w.agent IS NULL OR EXISTS (SELECT 1 FROM actions a \
             WHERE a.run_id = $5 AND a.requester = w.agent))",
            run_id.as_str(),
        ),
    };
    let sql = format!(
        "INSERT INTO webhook_deliveries (id, webhook_id, event_id, kind, body, created_at, \
         state, next_at, attempts) \
         SELECT $1 || w.id, w.id, $2, $3, '', $4, 'pending', $4, 0 FROM webhooks w \
         WHERE w.events LIKE $6 AND {clause}"
    );
    let written = sqlx::query(&sql)
        .bind(format!("msg_{event_id}_"))
        .bind(event_id)
        .bind(event.name())
        .bind(micros(at))
        .bind(key)
        .bind(format!("%,{},%", event.name()))
        .execute(&mut *conn)
        .await?;
    if written.rows_affected() == 0 {
        return Ok(());
    }
    let grant = match event {
        Event::ApprovalSettled { approval } => match approval.grant_id.as_deref() {
            Some(grant_id) => grant_terms(&mut *conn, grant_id).await?,
            None => None,
        },
        _ => None,
    };
    let body = payload::body(event, at, grant.as_ref())?;
    sqlx::query("UPDATE webhook_deliveries SET body = $1 WHERE event_id = $2")
        .bind(body)
        .bind(event_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The scope and expiry of the grant a settlement issued (written earlier in its transaction).
async fn grant_terms(conn: &mut Conn, grant_id: &str) -> Result<Option<Settled>, StoreError> {
    let row = sqlx::query("SELECT scope_kind, expires_at FROM approval_grants WHERE id = $1")
        .bind(grant_id)
        .fetch_optional(conn)
        .await?;
    row.map(|row| {
        Ok(Settled {
            scope: parse_name(&row.try_get::<String, _>("scope_kind")?)?,
            expires_at: from_micros(row.try_get("expires_at")?)?,
        })
    })
    .transpose()
}

/// Claims up to `limit` due deliveries nobody holds until `lease_until`. On PostgreSQL the
/// rows are locked as they are picked (`SKIP LOCKED`), so replicas claiming at once each take
/// their own.
pub async fn claim(
    conn: &mut Conn,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<ClaimedDelivery>, StoreError> {
    let ids: Vec<String> = sqlx::query_scalar(concat!(
        "UPDATE webhook_deliveries SET lease_until = $1 WHERE id IN (",
        "SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_at <= $2 ",
        "AND (lease_until IS NULL OR lease_until <= $2) ORDER BY next_at, id LIMIT $3",
        skip_locked!(),
        ") RETURNING id"
    ))
    .bind(micros(lease_until))
    .bind(micros(now))
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    let mut claimed = Vec::with_capacity(ids.len());
    for id in ids {
        let row = sqlx::query(&format!(
            "SELECT d.id AS delivery_id, d.body, d.attempts, d.created_at AS delivery_at, \
             {WEBHOOK_COLS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
             WHERE d.id = $1"
        ))
        .bind(&id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some(row) = row else { continue };
        claimed.push(ClaimedDelivery {
            id: row.try_get("delivery_id")?,
            webhook: webhook_from(&row)?,
            body: row.try_get("body")?,
            attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
            created_at: from_micros(row.try_get("delivery_at")?)?,
        });
    }
    claimed.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(claimed)
}

/// Records an attempt, moves its delivery on and releases the claim (nothing when the
/// webhook was removed meanwhile).
pub async fn attempted(conn: &mut Conn, a: &AttemptRow) -> Result<(), StoreError> {
    let done = sqlx::query(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, state = $2, next_at = $3, \
         lease_until = NULL WHERE id = $1",
    )
    .bind(&a.delivery_id)
    .bind(name_of(&a.outcome)?)
    .bind(a.next_at.map(micros))
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO webhook_attempts (delivery_id, n, at, status, latency_ms, error) \
         SELECT $1, attempts, $2, $3, $4, $5 FROM webhook_deliveries WHERE id = $1",
    )
    .bind(&a.delivery_id)
    .bind(micros(a.at))
    .bind(a.status.map(i64::from))
    .bind(i64::try_from(a.latency_ms).unwrap_or(i64::MAX))
    .bind(&a.error)
    .execute(conn)
    .await?;
    Ok(())
}

/// When the earliest pending delivery is due, or its claim ends if it is held.
pub async fn next_due(conn: &mut Conn) -> Result<Option<DateTime<Utc>>, StoreError> {
    let due: Option<i64> = sqlx::query_scalar(
        "SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_at \
         THEN lease_until ELSE next_at END) FROM webhook_deliveries WHERE state = 'pending'",
    )
    .fetch_one(conn)
    .await?;
    opt_from_micros(due)
}

/// A webhook's newest `limit` deliveries, each with its attempts (oldest attempt first). One
/// statement, so a delivery and its attempts come from one snapshot (never an attempt
/// recorded after the state read with it).
pub async fn deliveries(
    conn: &mut Conn,
    webhook_id: &str,
    limit: i64,
) -> Result<Vec<WebhookDelivery>, StoreError> {
    let rows = sqlx::query(
        "SELECT d.id, d.event_id, d.kind, d.created_at, d.state, d.next_at, \
         a.at, a.status, a.latency_ms, a.error FROM \
         (SELECT id, event_id, kind, created_at, state, next_at FROM webhook_deliveries \
          WHERE webhook_id = $1 ORDER BY event_id DESC, id LIMIT $2) d \
         LEFT JOIN webhook_attempts a ON a.delivery_id = d.id \
         ORDER BY d.event_id DESC, d.id, a.n",
    )
    .bind(webhook_id)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    let mut out: Vec<WebhookDelivery> = Vec::new();
    for row in rows {
        let id: String = row.try_get("id")?;
        if out.last().is_none_or(|last| last.id != id) {
            let state: DeliveryState = parse_name(&row.try_get::<String, _>("state")?)?;
            out.push(WebhookDelivery {
                id,
                event_id: row.try_get("event_id")?,
                kind: row.try_get("kind")?,
                created_at: from_micros(row.try_get("created_at")?)?,
                next_attempt_at: if state == DeliveryState::Pending {
                    opt_from_micros(row.try_get("next_at")?)?
                } else {
                    None
                },
                state,
                attempts: Vec::new(),
            });
        }
        let Some(at) = row.try_get::<Option<i64>, _>("at")? else {
            continue;
        };
        let attempt = DeliveryAttempt {
            at: from_micros(at)?,
            status: row
                .try_get::<Option<i64>, _>("status")?
                .and_then(|s| u16::try_from(s).ok()),
            latency_ms: u64::try_from(row.try_get::<Option<i64>, _>("latency_ms")?.unwrap_or(0))
                .unwrap_or(0),
            error: row.try_get("error")?,
        };
        if let Some(last) = out.last_mut() {
            last.attempts.push(attempt);
        }
    }
    Ok(out)
}
