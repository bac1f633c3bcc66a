//! How both backends encode a row's values: times as microseconds since the epoch (sortable
//! and portable), enums by their serde names, documents as JSON text. One encoding, so a row
//! means the same in SQLite and PostgreSQL.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::Row;

use super::backend::DbRow;
use crate::store::StoreError;

/// Microseconds since the epoch.
pub fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

pub fn from_micros(us: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| StoreError::Corrupt(format!("time {us}")))
}

pub fn opt_from_micros(us: Option<i64>) -> Result<Option<DateTime<Utc>>, StoreError> {
    us.map(from_micros).transpose()
}

/// The serde name of a unit enum value (`approved_once`, `run`, …).
pub fn name_of<T: Serialize>(value: &T) -> Result<String, StoreError> {
    match serde_json::to_value(value)? {
        serde_json::Value::String(name) => Ok(name),
        other => Err(StoreError::Corrupt(format!("not a name: {other}"))),
    }
}

pub fn parse_name<T: DeserializeOwned>(name: &str) -> Result<T, StoreError> {
    Ok(serde_json::from_value(serde_json::Value::String(
        name.to_owned(),
    ))?)
}

/// A JSON document stored as text in column `col`.
pub fn json_col<T: DeserializeOwned>(row: &DbRow, col: &str) -> Result<T, StoreError> {
    let text: String = row.try_get(col)?;
    Ok(serde_json::from_str(&text)?)
}

/// `$1, $2, …` for `n` parameters (an `IN (…)` list).
pub fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}
