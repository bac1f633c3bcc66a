//! An agent's JSON settings file: read (a missing or empty file is `{}`), written whole with
//! a backup of the old one when it changed, and the lines that say what happened.

use std::path::Path;

use serde_json::{json, Value};

use super::hooks;
use super::shared::{write_text, InstallError, BACKUP_SUFFIX};

/// Writes `after` (keeping a backup of the old file) unless nothing changed; returns the
/// summary lines.
pub(crate) fn apply(
    layout: &hooks::Layout,
    path: &Path,
    before: &Value,
    after: &Value,
) -> Result<Vec<String>, InstallError> {
    let mut lines = hooks::summary(layout, before, after);
    lines.extend(write_settings(path, before, after)?);
    Ok(lines)
}

/// Writes `after` to `path` (keeping a backup of the old file) unless nothing changed; the
/// lines that say what happened.
pub(crate) fn write_settings(
    path: &Path,
    before: &Value,
    after: &Value,
) -> Result<Vec<String>, InstallError> {
    let mut lines = Vec::new();
    if before == after {
        lines.push(format!("{}: unchanged", path.display()));
        return Ok(lines);
    }
    if path.exists() {
        let backup = path.with_extension(format!("json.{BACKUP_SUFFIX}"));
        std::fs::copy(path, &backup).map_err(|source| InstallError::Write {
            path: backup.clone(),
            source,
        })?;
        lines.push(format!("backup: {}", backup.display()));
    }
    write_atomically(path, after)?;
    lines.push(format!("{}: updated", path.display()));
    Ok(lines)
}

pub(crate) fn read_settings(path: &Path) -> Result<Value, InstallError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(json!({})),
        Err(source) => {
            return Err(InstallError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(value) if value.is_object() => Ok(value),
        _ => Err(InstallError::NotJson {
            path: path.to_owned(),
        }),
    }
}

fn write_atomically(path: &Path, value: &Value) -> Result<(), InstallError> {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into()) + "\n";
    write_text(path, &text)
}
