//! The gate's hook entries in Codex's `config.toml`, edited with `toml_edit` so comments,
//! order and every other setting stay as they were. Pure functions of the documents.
//!
//! Codex (0.169) runs a hook only when it is trusted: `[hooks.state."<file>:<label>:<group>:
//! <handler>"]` with `trusted_hash = "sha256:<hex>"` in the user's config, the hex the SHA-256
//! of the handler group's compact, key-sorted JSON identity. The key holds the group's index,
//! so removing a group re-keys the trust of the groups after it (their hash does not change).

use sha2::{Digest, Sha256};
use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use super::hooks::is_agent_gate_command;

/// The hook events the gate answers: the config key, Codex's label, and whether it matches
/// tools (SessionEnd takes no matcher).
pub const EVENTS: [(&str, &str, bool); 4] = [
    ("PreToolUse", "pre_tool_use", true),
    ("PermissionRequest", "permission_request", true),
    ("PostToolUse", "post_tool_use", true),
    ("SessionEnd", "session_end", false),
];
/// The matcher of the gate's tool groups: every tool.
pub const MATCH_ALL: &str = "*";
/// SessionEnd's effective timeout when none is set (Codex clamps it to 1–3 s): the install
/// leaves it unset and hashes this.
pub const SESSION_END_TIMEOUT: u64 = 1;

/// A config whose hooks are not in the shape Codex reads; nothing is changed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("`{0}` is not a table of hooks as Codex reads them; leaving the file untouched")]
pub struct ShapeError(pub String);

/// A group of the gate's the edit put in place (trust it) or took out (re-key after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub label: &'static str,
    pub group: usize,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub label: &'static str,
    pub group: usize,
}

/// `trusted_hash` of a one-handler command group, as Codex computes it.
pub fn trusted_hash(label: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    // Keys inserted in sorted order, so the text is key-sorted whatever map serde_json uses.
    let mut handler = serde_json::Map::new();
    handler.insert("async".into(), false.into());
    handler.insert("command".into(), command.into());
    handler.insert("timeout".into(), timeout.into());
    handler.insert("type".into(), "command".into());
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), label.into());
    identity.insert(
        "hooks".into(),
        vec![serde_json::Value::Object(handler)].into(),
    );
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), matcher.into());
    }
    let text = serde_json::Value::Object(identity).to_string();
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

/// The trust key of handler 0 of `group`.
pub fn state_key(source: &str, label: &str, group: usize) -> String {
    format!("{source}:{label}:{group}:0")
}

/// Puts one gate group per event (where an earlier install's stood, else last), with
/// `command` and `timeout` (none for SessionEnd); gate handlers elsewhere are taken out.
pub fn put_gate(
    doc: &mut DocumentMut,
    command: &str,
    timeout: u64,
) -> Result<(Vec<Placed>, Vec<Removed>), ShapeError> {
    let mut placed = Vec::new();
    let mut removed = Vec::new();
    for (event, label, matched) in EVENTS {
        let groups = event_groups(doc, event, true)?.ok_or_else(|| ShapeError(event.into()))?;
        let first = groups.iter().position(is_gate_group);
        removed.extend(strip(groups, first, label));
        let ours = group(
            matched,
            command,
            (label != "session_end").then_some(timeout),
        );
        let found = groups.iter().position(is_gate_group);
        let at = match found {
            Some(at) => {
                if let Some(existing) = groups.get_mut(at) {
                    for (key, item) in ours.iter() {
                        existing.insert(key, item.clone());
                    }
                }
                at
            }
            None => {
                groups.push(ours);
                groups.len() - 1
            }
        };
        let effective = if matched {
            timeout
        } else {
            SESSION_END_TIMEOUT
        };
        let matcher = matched.then_some(MATCH_ALL);
        placed.push(Placed {
            label,
            group: at,
            hash: trusted_hash(label, matcher, command, effective),
        });
    }
    Ok((placed, removed))
}

/// Takes every gate handler out; groups and events left empty go too.
pub fn take_gate(doc: &mut DocumentMut) -> Result<Vec<Removed>, ShapeError> {
    let mut removed = Vec::new();
    for (event, label, _) in EVENTS {
        let Some(groups) = event_groups(doc, event, false)? else {
            continue;
        };
        removed.extend(strip(groups, None, label));
        if groups.is_empty() {
            if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) {
                hooks.remove(event);
            }
        }
    }
    Ok(removed)
}

/// Records `placed` as trusted in the user config `doc` for the config file `source`.
pub fn trust(doc: &mut DocumentMut, source: &str, placed: &[Placed]) -> Result<(), ShapeError> {
    let state = state_table(doc)?;
    for p in placed {
        let entry = state
            .entry(&state_key(source, p.label, p.group))
            .or_insert_with(|| Item::Table(Table::new()));
        if let Some(entry) = entry.as_table_like_mut() {
            entry.insert("trusted_hash", value(p.hash.as_str()));
        }
    }
    Ok(())
}

/// Drops the trust of each removed group and re-keys the groups after it, in removal order.
pub fn untrust(doc: &mut DocumentMut, source: &str, removed: &[Removed]) -> Result<(), ShapeError> {
    if removed.is_empty() {
        return Ok(());
    }
    let state = state_table(doc)?;
    for r in removed {
        let prefix = format!("{source}:{}:", r.label);
        let keys: Vec<String> = state
            .iter()
            .map(|(key, _)| key.to_owned())
            .filter(|key| key.starts_with(&prefix))
            .collect();
        for key in keys {
            let Some((group, handler)) = key.get(prefix.len()..).and_then(|rest| {
                let (g, h) = rest.split_once(':')?;
                Some((g.parse::<usize>().ok()?, h.to_owned()))
            }) else {
                continue;
            };
            if group < r.group {
                continue;
            }
            let item = state.remove(&key);
            if let (true, Some(item)) = (group > r.group, item) {
                state.insert(&format!("{prefix}{}:{handler}", group - 1), item);
            }
        }
    }
    let empty = state.is_empty();
    if let (true, Some(hooks)) = (empty, doc.get_mut("hooks").and_then(Item::as_table_mut)) {
        hooks.remove("state");
    }
    Ok(())
}

/// Each gate handler as `event: command`, for the before/after summary.
pub fn gate_handlers(doc: &DocumentMut) -> Vec<String> {
    let mut out = Vec::new();
    for (event, _, _) in EVENTS {
        let groups = doc
            .get("hooks")
            .and_then(|h| h.get(event))
            .and_then(Item::as_array_of_tables);
        for handler in groups.into_iter().flat_map(|g| g.iter()).flat_map(handlers) {
            if is_gate_handler(handler) {
                let command = handler.get("command").and_then(Item::as_str);
                let timeout = handler.get("timeout").and_then(Item::as_integer);
                let timeout = timeout
                    .map(|t| format!(" (timeout {t}s)"))
                    .unwrap_or_default();
                out.push(format!("{event}: {}{timeout}", command.unwrap_or_default()));
            }
        }
    }
    out
}

fn state_table(doc: &mut DocumentMut) -> Result<&mut Table, ShapeError> {
    let hooks = implicit(doc.as_table_mut(), "hooks", "hooks")?;
    implicit(hooks, "state", "hooks.state")
}

/// The table at `key`, made (implicit, so no bare header is written) when absent; a shape
/// error (named `path`) when it is something else.
fn implicit<'a>(table: &'a mut Table, key: &str, path: &str) -> Result<&'a mut Table, ShapeError> {
    table
        .entry(key)
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| ShapeError(path.into()))
}

/// `hooks.<event>` as an array of tables; made when `create`; a shape error when it is
/// something else (an inline array, a value).
fn event_groups<'a>(
    doc: &'a mut DocumentMut,
    event: &str,
    create: bool,
) -> Result<Option<&'a mut ArrayOfTables>, ShapeError> {
    if !create && doc.get("hooks").and_then(|h| h.get(event)).is_none() {
        return Ok(None);
    }
    let hooks = implicit(doc.as_table_mut(), "hooks", "hooks")?;
    let item = hooks
        .entry(event)
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()));
    match item.as_array_of_tables_mut() {
        Some(groups) => Ok(Some(groups)),
        None => Err(ShapeError(format!("hooks.{event}"))),
    }
}

/// Removes gate handlers from every group but `keep`, and groups left empty (last first).
fn strip(groups: &mut ArrayOfTables, keep: Option<usize>, label: &'static str) -> Vec<Removed> {
    let mut removed = Vec::new();
    for at in (0..groups.len()).rev() {
        if Some(at) == keep {
            continue;
        }
        let Some(group) = groups.get_mut(at) else {
            continue;
        };
        let Some(list) = group
            .get_mut("hooks")
            .and_then(Item::as_array_of_tables_mut)
        else {
            continue;
        };
        let before = list.len();
        list.retain(|handler| !is_gate_handler(handler));
        if list.is_empty() && before > 0 {
            groups.remove(at);
            removed.push(Removed { label, group: at });
        }
    }
    removed
}

fn handlers(group: &Table) -> impl Iterator<Item = &Table> {
    group
        .get("hooks")
        .and_then(Item::as_array_of_tables)
        .into_iter()
        .flat_map(|list| list.iter())
}

fn is_gate_handler(handler: &Table) -> bool {
    let kind = handler.get("type").and_then(Item::as_str);
    let command = handler.get("command").and_then(Item::as_str);
    kind.is_none_or(|k| k == "command")
        && command.is_some_and(|c| is_agent_gate_command(c, "codex"))
}

fn is_gate_group(group: &Table) -> bool {
    let mut list = handlers(group).peekable();
    list.peek().is_some() && list.all(is_gate_handler)
}

/// The gate's group: `matcher = "*"` (tool events), one command handler.
fn group(matched: bool, command: &str, timeout: Option<u64>) -> Table {
    let mut handler = Table::new();
    handler.insert("type", value("command"));
    handler.insert("command", value(command));
    if let Some(timeout) = timeout.and_then(|t| i64::try_from(t).ok()) {
        handler.insert("timeout", value(timeout));
    }
    let mut list = ArrayOfTables::new();
    list.push(handler);
    let mut group = Table::new();
    if matched {
        group.insert("matcher", value(MATCH_ALL));
    }
    group.insert("hooks", Item::ArrayOfTables(list));
    group
}
