//! Codex's own sandbox (bubblewrap and seccomp on Linux, Seatbelt on macOS), as `assent
//! install codex --sandbox` writes it into `config.toml`: a permission profile that extends
//! the built-in `:workspace` (writes in the workspace roots and the temp dirs) and denies
//! Assent's places, selected as the default.
//!
//! ```toml
//! default_permissions = "assent"
//! [permissions.assent]
//! extends = ":workspace"
//! [permissions.assent.filesystem]
//! "/home/me/.local/share/assent" = "none"   # neither read nor written
//! "/home/me/.codex/config.toml" = "read"    # read, never written
//! ```
//!
//! Codex (0.169) enforces `"none"` as a read denial (`cat` gets EACCES) and `"read"` as a
//! read-only bind, also inside a writable root. Codex uses its older settings instead of any
//! profile when `sandbox_mode` is in a config, when `--sandbox`/`-s` is passed, or under `codex
//! exec --approve-for-me` (which forces its workspace-write sandbox): run it under `assent
//! sandbox` then. Pure edits of the document; comments and other settings stay as they were.

use serde_json::{json, Value};
use toml_edit::{value, DocumentMut, Item, Table};

use crate::sandbox::places::Places;

/// The profile's name.
pub const PROFILE: &str = "assent";
/// The built-in profile it extends.
pub const EXTENDS: &str = ":workspace";

/// Whether the document sets `sandbox_mode` (which makes Codex ignore profiles).
pub fn has_sandbox_mode(doc: &DocumentMut) -> bool {
    doc.get("sandbox_mode").is_some()
}

/// Puts the profile in (replacing an earlier install's) and selects it; the record of the
/// `default_permissions` it replaced (kept from an earlier install's `record`).
pub fn with_sandbox(doc: &mut DocumentMut, places: &Places, record: Option<&Value>) -> Value {
    let before = match record.and_then(|r| r.get("default_permissions")) {
        Some(old) => old.clone(),
        None => doc
            .get("default_permissions")
            .and_then(Item::as_str)
            .map_or(Value::Null, |s| Value::String(s.to_owned())),
    };
    set(doc, "default_permissions", PROFILE);
    let mut filesystem = Table::new();
    for path in &places.hidden {
        filesystem.insert(&path.to_string_lossy(), value("none"));
    }
    for path in &places.read_only {
        filesystem.insert(&path.to_string_lossy(), value("read"));
    }
    let mut profile = Table::new();
    profile.insert("extends", value(EXTENDS));
    profile.insert("filesystem", Item::Table(filesystem));
    let permissions = doc
        .entry("permissions")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut();
    if let Some(permissions) = permissions {
        permissions.insert(PROFILE, Item::Table(profile));
    }
    json!({ "default_permissions": before })
}

/// Sets `key` to `text`, keeping the key where it is with its comments.
fn set(doc: &mut DocumentMut, key: &str, text: &str) {
    match doc.get_mut(key) {
        Some(item) => *item = value(text),
        None => {
            doc.insert(key, value(text));
        }
    }
}

/// Takes the profile out and gives `default_permissions` back its old value (when it still
/// names the profile).
pub fn without_sandbox(doc: &mut DocumentMut, record: &Value) {
    if doc.get("default_permissions").and_then(Item::as_str) == Some(PROFILE) {
        match record.get("default_permissions").and_then(Value::as_str) {
            Some(old) => set(doc, "default_permissions", old),
            None => {
                doc.remove("default_permissions");
            }
        }
    }
    let empty = match doc.get_mut("permissions").and_then(Item::as_table_mut) {
        Some(permissions) => {
            permissions.remove(PROFILE);
            permissions.is_empty()
        }
        None => false,
    };
    if empty {
        doc.remove("permissions");
    }
}

/// What keeps Codex's sandbox from guarding Assent's places, if anything: `places` as they
/// stand (`exists` says which are there), since the profile can name only those — a place
/// made after the install is a gap, and a named one since removed stops Codex's sandbox from
/// starting.
pub fn gaps(
    doc: Option<&DocumentMut>,
    places: &Places,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Vec<String> {
    let Some(doc) = doc else {
        return vec!["no config.toml".into()];
    };
    if has_sandbox_mode(doc) {
        return vec!["sandbox_mode is set, so Codex ignores permission profiles".into()];
    }
    if doc.get("default_permissions").and_then(Item::as_str) != Some(PROFILE) {
        return vec![format!("default_permissions is not \"{PROFILE}\"")];
    }
    let filesystem = doc
        .get("permissions")
        .and_then(|p| p.get(PROFILE))
        .and_then(|p| p.get("filesystem"));
    let access = |path: &std::path::Path| {
        filesystem
            .and_then(|f| f.get(&*path.to_string_lossy()))
            .and_then(Item::as_str)
            .map(str::to_owned)
    };
    let mut out = Vec::new();
    let open = places
        .hidden
        .iter()
        .filter(|p| exists(p) && access(p).as_deref() != Some("none"))
        .count();
    if open > 0 {
        out.push(format!(
            "{open} of Assent's places are not \"none\" in [permissions.{PROFILE}.filesystem]"
        ));
    }
    let gone = filesystem
        .and_then(Item::as_table_like)
        .map_or(0, |t| t.iter().filter(|(k, _)| !exists(k.as_ref())).count());
    if gone > 0 {
        out.push(format!(
            "{gone} paths in [permissions.{PROFILE}.filesystem] are gone, so Codex's sandbox \
             cannot start"
        ));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            hidden: vec!["/h/.local/share/assent".into(), "/h/.ssh".into()],
            read_only: vec!["/h/.codex/config.toml".into()],
        }
    }

    #[test]
    fn uninstall_gives_back_exactly_what_was_there() {
        let text = "# mine\ndefault_permissions = \"dev\"\nmodel = \"m\"\n\n[permissions.dev]\nextends = \":read-only\"\n";
        let mut doc: DocumentMut = text.parse().unwrap();
        let record = with_sandbox(&mut doc, &places(), None);
        assert_eq!(
            gaps(Some(&doc), &places(), &|_| true),
            Vec::<String>::new(),
            "{doc}"
        );
        let again = with_sandbox(&mut doc, &places(), Some(&record));
        assert_eq!(
            again, record,
            "a re-install keeps the user's original choice"
        );
        let written = doc.to_string();
        assert!(
            written.contains("\"/h/.ssh\" = \"none\"")
                && written.contains("\"/h/.codex/config.toml\" = \"read\""),
            "{written}"
        );
        without_sandbox(&mut doc, &record);
        assert_eq!(
            doc.to_string(),
            text,
            "uninstall restores the user's profile choice and takes only ours out"
        );
    }

    #[test]
    fn a_fresh_config_gets_and_loses_the_profile() {
        let mut doc = DocumentMut::new();
        let record = with_sandbox(&mut doc, &places(), None);
        without_sandbox(&mut doc, &record);
        assert_eq!(doc.to_string(), "", "nothing is left behind");
    }

    #[test]
    fn a_place_made_later_and_a_named_place_gone_are_gaps() {
        let there = Places {
            hidden: vec!["/h/.local/share/assent".into()],
            read_only: vec!["/h/.codex/config.toml".into()],
        };
        let mut doc = DocumentMut::new();
        with_sandbox(&mut doc, &there, None);
        let now = |p: &std::path::Path| p != std::path::Path::new("/h/.codex/config.toml");
        let gaps_now = gaps(Some(&doc), &places(), &now);
        assert_eq!(
            gaps_now,
            vec![
                "1 of Assent's places are not \"none\" in [permissions.assent.filesystem]"
                    .to_owned(),
                "1 paths in [permissions.assent.filesystem] are gone, so Codex's sandbox \
                 cannot start"
                    .to_owned()
            ],
            "~/.ssh made after the install is not denied; the hook file named is gone"
        );
    }
}
