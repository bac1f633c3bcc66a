//! What `assent install … --sandbox` changed in an agent's settings, so `assent uninstall`
//! takes out exactly that: the values it replaced (a user's own `sandbox.enabled`, Codex's
//! `default_permissions`) and the entries it added. Kept in Assent's config dir
//! (`$XDG_CONFIG_HOME/assent/sandbox-installs.json`, else `~/.config/assent/…`), which a
//! sandboxed agent can neither read nor write, keyed by the settings file's path.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::shared::{write_text, InstallError};

const FILE: &str = "sandbox-installs.json";

fn record_path() -> Result<PathBuf, InstallError> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .or_else(dirs::home_dir)
                .map(|h| h.join(".config"))
        })
        .ok_or(InstallError::NoHome)?;
    Ok(base.join("assent").join(FILE))
}

fn read_all(path: &Path) -> Map<String, Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default()
}

/// The record of the sandbox installed into `settings`, if any.
pub fn load(settings: &Path) -> Result<Option<Value>, InstallError> {
    let all = read_all(&record_path()?);
    Ok(all.get(&key(settings)).cloned())
}

/// Stores (`Some`) or forgets (`None`) the record of `settings`.
pub fn save(settings: &Path, entry: Option<Value>) -> Result<(), InstallError> {
    let path = record_path()?;
    let mut all = read_all(&path);
    let before = all.clone();
    match entry {
        Some(entry) => {
            all.insert(key(settings), entry);
        }
        None => {
            all.remove(&key(settings));
        }
    }
    if all == before {
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&Value::Object(all)).unwrap_or_else(|_| "{}".into());
    write_text(&path, &(text + "\n"))
}

fn key(settings: &Path) -> String {
    std::path::absolute(settings)
        .unwrap_or_else(|_| settings.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
