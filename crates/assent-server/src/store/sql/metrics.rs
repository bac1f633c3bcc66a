//! `/metrics` figures computed from the stored facts.

use std::collections::BTreeMap;

use assent_protocol::{BatchSizes, Metrics, Resolution};
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::Pool;
use super::codec::{micros, parse_name};
use crate::fatigue::{decision_times, tally, PromptFact, RememberedFact};
use crate::store::StoreError;

pub async fn metrics(pool: &Pool, now: DateTime<Utc>) -> Result<Metrics, StoreError> {
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
        "SELECT COUNT(*) AS n, CAST(COALESCE(AVG(member_count), 0.0) AS DOUBLE PRECISION) AS mean, \
         COALESCE(MAX(member_count), 0) AS max, \
         CAST(COALESCE(SUM(CASE WHEN status = 'requested' THEN 1 ELSE 0 END), 0) AS BIGINT) \
         AS pending FROM approval_requests",
    )
    .fetch_one(pool)
    .await?;
    let prompts_opened = count(prompts.try_get("n")?);
    let grants_active: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM approval_grants \
         WHERE revoked_at IS NULL AND invalidated_at IS NULL AND expires_at > $1 \
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
    let fatigue = tally(&prompt_facts(pool).await?, &remembered_facts(pool).await?);
    let uncovered: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM actions a LEFT JOIN approval_requests r ON r.id = a.approval_id \
         WHERE a.executed_at IS NOT NULL AND a.status != 'allowed' \
         AND (r.resolution IS NULL OR r.resolution != 'approved')",
    )
    .fetch_one(pool)
    .await?;
    Ok(Metrics {
        by_rule: fatigue.by_rule,
        by_profile: fatigue.by_profile,
        prompts_per_run: fatigue.prompts_per_run,
        rubber_stamps: fatigue.rubber_stamps,
        remembered_denials: fatigue.remembered_denials,
        uncovered_executions: count(uncovered),
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

/// Every prompt with its rule, profile, run and outcome.
async fn prompt_facts(pool: &Pool) -> Result<Vec<PromptFact>, StoreError> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        json_text!("detail", "rule"),
        " AS rule, ",
        json_text!("detail", "profile"),
        " AS profile, run_id, resolution, decided_at - created_at AS waited, decided_by \
         FROM approval_requests",
    ))
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            let resolution: Option<String> = row.try_get("resolution")?;
            Ok(PromptFact {
                rule: row
                    .try_get::<Option<String>, _>("rule")?
                    .unwrap_or_default(),
                profile: row.try_get("profile")?,
                run_id: row.try_get("run_id")?,
                resolution: resolution
                    .as_deref()
                    .map(parse_name::<Resolution>)
                    .transpose()?,
                decided_after_us: row.try_get("waited")?,
            })
        })
        .collect()
}

/// Every request a remembered denial answered, with its rule and profile.
async fn remembered_facts(pool: &Pool) -> Result<Vec<RememberedFact>, StoreError> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        json_text!("response", "rule"),
        " AS rule, ",
        json_text!("response", "profile"),
        " AS profile FROM actions WHERE status = 'denied'",
    ))
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(RememberedFact {
                rule: row
                    .try_get::<Option<String>, _>("rule")?
                    .unwrap_or_default(),
                profile: row.try_get("profile")?,
            })
        })
        .collect()
}
