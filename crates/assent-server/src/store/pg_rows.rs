//! Row encoding of the PostgreSQL statements: the same encoding as SQLite's (microsecond
//! times, serde names, JSON as text), so a row means the same in both backends.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::postgres::PgRow;
use sqlx::Row;

use super::StoreError;

/// Microseconds since the epoch.
pub fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

pub fn from_micros(us: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| StoreError::Corrupt(format!("time {us}")))
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

pub fn json_col<T: DeserializeOwned>(row: &PgRow, col: &str) -> Result<T, StoreError> {
    let text: String = row.try_get(col)?;
    Ok(serde_json::from_str(&text)?)
}
