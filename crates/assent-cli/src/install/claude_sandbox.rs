//! Claude Code's own sandbox (bubblewrap on Linux, Seatbelt on macOS), as `assent install
//! claude-code --sandbox` writes it into the settings file beside the hooks:
//!
//! ```json
//! "sandbox": {
//!   "enabled": true,
//!   "failIfUnavailable": true,          // no sandbox, no start (not a warning and unsandboxed)
//!   "allowUnsandboxedCommands": false,  // `dangerouslyDisableSandbox` is ignored
//!   "filesystem": { "denyRead": [hidden…], "denyWrite": [hidden…, hook settings…] }
//! }
//! ```
//!
//! The keys are those of the pinned CLI's settings schema (2.1.332: `sandbox.enabled`,
//! `failIfUnavailable`, `allowUnsandboxedCommands`, `filesystem.denyRead|denyWrite`, absolute
//! paths taken as written). The sandbox covers the Bash tool and its children; Claude Code's
//! own Read/Edit tools stay governed by the hooks. Pure functions of the settings JSON and a
//! record of what was there before (see [`super::sandbox_record`]).

use serde_json::{json, Map, Value};

use crate::sandbox::places::Places;

/// The scalar settings and the value the install gives them.
pub const SCALARS: [(&str, bool); 3] = [
    ("enabled", true),
    ("failIfUnavailable", true),
    ("allowUnsandboxedCommands", false),
];

/// Paths denied to reading and to writing.
pub fn lists(places: &Places) -> (Vec<String>, Vec<String>) {
    let text = |p: &std::path::PathBuf| p.to_string_lossy().into_owned();
    let read: Vec<String> = places.hidden.iter().map(text).collect();
    let write = read
        .iter()
        .cloned()
        .chain(places.read_only.iter().map(text))
        .collect();
    (read, write)
}

/// `settings` with the sandbox on and `places` denied, and the record of what was there
/// before (merged with an earlier install's `record`, so a re-install keeps the user's
/// original values).
pub fn with_sandbox(settings: &Value, places: &Places, record: Option<&Value>) -> (Value, Value) {
    let mut out = settings.clone();
    let (deny_read, deny_write) = lists(places);
    let old = settings.get("sandbox").cloned().unwrap_or(Value::Null);
    let mut before = record
        .and_then(|r| r.get("before"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(|| {
            SCALARS
                .iter()
                .map(|(k, _)| ((*k).to_owned(), old.get(*k).cloned().unwrap_or(Value::Null)))
                .collect()
        });
    for (k, _) in SCALARS {
        before.entry(k).or_insert(Value::Null);
    }
    let Some(root) = out.as_object_mut() else {
        return (out, Value::Null);
    };
    let mut sandbox = take_object(root, "sandbox");
    for (k, v) in SCALARS {
        sandbox.insert(k.to_owned(), Value::Bool(v));
    }
    let mut filesystem = take_object(&mut sandbox, "filesystem");
    let mut added = Map::new();
    for (key, wanted) in [("denyRead", &deny_read), ("denyWrite", &deny_write)] {
        let mut ours: Vec<Value> = record
            .and_then(|r| r.pointer(&format!("/added/{key}")))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut list = match filesystem.remove(key) {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        for path in wanted {
            let item = Value::String(path.clone());
            if !list.contains(&item) {
                list.push(item.clone());
                if !ours.contains(&item) {
                    ours.push(item);
                }
            }
        }
        filesystem.insert(key.to_owned(), Value::Array(list));
        added.insert(key.to_owned(), Value::Array(ours));
    }
    sandbox.insert("filesystem".to_owned(), Value::Object(filesystem));
    root.insert("sandbox".to_owned(), Value::Object(sandbox));
    let record = json!({ "before": before, "added": added });
    (out, record)
}

/// `settings` without what the install added: the added paths out of the lists, each scalar
/// back to what it was (when it still holds the install's value), and the objects the
/// removal leaves empty gone. Without a record, the paths of `places` and the install's values.
pub fn without_sandbox(settings: &Value, places: &Places, record: Option<&Value>) -> Value {
    let mut out = settings.clone();
    let Some(sandbox) = out.get_mut("sandbox").and_then(Value::as_object_mut) else {
        return out;
    };
    let (deny_read, deny_write) = lists(places);
    if let Some(filesystem) = sandbox.get_mut("filesystem").and_then(Value::as_object_mut) {
        for (key, computed) in [("denyRead", &deny_read), ("denyWrite", &deny_write)] {
            let added: Vec<Value> = match record {
                Some(r) => r
                    .pointer(&format!("/added/{key}"))
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
                None => computed.iter().cloned().map(Value::String).collect(),
            };
            if let Some(list) = filesystem.get_mut(key).and_then(Value::as_array_mut) {
                list.retain(|item| !added.contains(item));
                if list.is_empty() {
                    filesystem.remove(key);
                }
            }
        }
        if filesystem.is_empty() {
            sandbox.remove("filesystem");
        }
    }
    for (k, v) in SCALARS {
        if sandbox.get(k) != Some(&Value::Bool(v)) {
            continue;
        }
        match record.and_then(|r| r.pointer(&format!("/before/{k}"))) {
            Some(Value::Null) | None => {
                sandbox.remove(k);
            }
            Some(old) => {
                sandbox.insert(k.to_owned(), old.clone());
            }
        }
    }
    if sandbox.is_empty() {
        if let Some(root) = out.as_object_mut() {
            root.remove("sandbox");
        }
    }
    out
}

/// What keeps Claude Code's sandbox from guarding Assent's places, if anything: a setting
/// off, or a place `places` names missing from the deny lists.
pub fn gaps(settings: Option<&Value>, places: &Places) -> Vec<String> {
    let sandbox = settings.and_then(|s| s.get("sandbox"));
    let mut out = Vec::new();
    for (k, v) in SCALARS {
        if sandbox.and_then(|s| s.get(k)) != Some(&Value::Bool(v)) {
            out.push(format!("sandbox.{k} is not {v}"));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let (deny_read, deny_write) = lists(places);
    for (key, wanted) in [("denyRead", deny_read), ("denyWrite", deny_write)] {
        let list = sandbox
            .and_then(|s| s.pointer(&format!("/filesystem/{key}")))
            .and_then(Value::as_array);
        let missing = wanted
            .iter()
            .filter(|p| !list.is_some_and(|l| l.iter().any(|i| i.as_str() == Some(p.as_str()))))
            .count();
        if missing > 0 {
            out.push(format!(
                "{missing} of Assent's places missing from sandbox.filesystem.{key}"
            ));
        }
    }
    out
}

/// The object at `key`, taken out (an empty one when absent or not an object).
fn take_object(map: &mut Map<String, Value>, key: &str) -> Map<String, Value> {
    match map.remove(key) {
        Some(Value::Object(inner)) => inner,
        _ => Map::new(),
    }
}
