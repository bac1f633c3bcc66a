//! `/metrics` figures computed from the stored facts.

use std::collections::BTreeMap;

use assent_protocol::{BatchSizes, DecisionTimes, Metrics};
use chrono::{DateTime, Utc};
use sqlx::{Row, SqlitePool};

use super::sqlite_rows::micros;
use super::StoreError;

pub async fn metrics(pool: &SqlitePool, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
    let mut actions_by_decision = BTreeMap::new();
    for row in sqlx::query("SELECT decision, COUNT(*) AS n FROM actions GROUP BY decision")
        .fetch_all(pool)
        .await?
    {
        let n: i64 = row.try_get("n")?;
        actions_by_decision.insert(row.try_get::<String, _>("decision")?, count(n));
    }
    let actions_total: u64 = actions_by_decision.values().sum();
    let prompts = sqlx::query(
        "SELECT COUNT(*) AS n, COALESCE(AVG(member_count), 0.0) AS mean, \
         COALESCE(MAX(member_count), 0) AS max, \
         COALESCE(SUM(CASE WHEN status = 'requested' THEN 1 ELSE 0 END), 0) AS pending \
         FROM approval_requests",
    )
    .fetch_one(pool)
    .await?;
    let prompts_opened = count(prompts.try_get("n")?);
    let grants_active: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM approval_grants WHERE revoked_at IS NULL AND expires_at > ? \
         AND (max_uses IS NULL OR used_count < max_uses)",
    )
    .bind(micros(now))
    .fetch_one(pool)
    .await?;
    let waits: Vec<i64> = sqlx::query_scalar(
        "SELECT decided_at - created_at FROM approval_requests \
         WHERE resolution IN ('approved', 'denied') ORDER BY decided_at - created_at",
    )
    .fetch_all(pool)
    .await?;
    Ok(Metrics {
        actions_by_decision,
        actions_total,
        prompts_opened,
        prompts_pending: count(prompts.try_get("pending")?),
        batch_size: BatchSizes {
            mean: prompts.try_get("mean")?,
            max: count(prompts.try_get("max")?),
        },
        time_to_decision_seconds: decision_times(&waits),
        grants_active: count(grants_active),
        prompts_per_100_actions: if actions_total == 0 {
            0.0
        } else {
            prompts_opened as f64 * 100.0 / actions_total as f64
        },
    })
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Mean and percentiles of sorted waits in microseconds, as seconds.
fn decision_times(sorted_us: &[i64]) -> DecisionTimes {
    let seconds = |us: i64| us as f64 / 1_000_000.0;
    let at = |q: f64| {
        let last = sorted_us.len().saturating_sub(1);
        let index = ((last as f64) * q).round() as usize;
        sorted_us.get(index.min(last)).copied().map_or(0.0, seconds)
    };
    let total: i64 = sorted_us.iter().sum();
    DecisionTimes {
        count: sorted_us.len() as u64,
        mean: if sorted_us.is_empty() {
            0.0
        } else {
            seconds(total) / sorted_us.len() as f64
        },
        p50: at(0.5),
        p90: at(0.9),
    }
}
