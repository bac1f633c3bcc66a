//! The change an edit makes, as a unified diff: what a gate sends as `context.diff`, and the
//! fingerprint a grant binds to. Pure: the caller reads the files and passes the deadline.
//!
//! A [`ChangeSet`] collects one diff per file (`--- a/path` / `+++ b/path` with hunks, paths
//! relative to the repository; `/dev/null` for a created or deleted file) and the notes on
//! what could not be shown. [`ChangeSet::attach`] puts it on a request: the diff masked
//! ([`crate::mask::mask_secrets`]) and cut at [`MAX_DIFF_BYTES`] with a note, and
//! `diff_fingerprint` the SHA-256 of the whole, unmasked diff, so a grant covers this exact
//! change only.

pub mod edit;
pub(crate) mod parse;
pub mod patch;
pub(crate) mod review;

use std::sync::LazyLock;
use std::time::Instant;

use globset::GlobSet;

use sha2::{Digest, Sha256};
use similar::{Algorithm, TextDiff};

use crate::mask::mask_secrets;
use crate::policy::defaults::{NOT_SENSITIVE, SENSITIVE};
use crate::policy::glob::glob_set;
use crate::request::{ActionContext, MAX_DIFF_BYTES};

/// Lines of context around each hunk (git's default).
const CONTEXT_LINES: usize = 3;

/// Bytes git looks at for a NUL to call a file binary.
const BINARY_PROBE_BYTES: usize = 8000;

/// One side of a file's change as the gate found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side<'a> {
    /// No file (created, or deleted by the change).
    Absent,
    /// Its bytes.
    Bytes(&'a [u8]),
}

/// The diffs of one request, with the notes on what they leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeSet {
    diff: String,
    notes: Vec<String>,
}

impl ChangeSet {
    pub fn new() -> ChangeSet {
        ChangeSet::default()
    }

    /// Adds the change of `path` (relative to the repository) from `old` to `new`: a unified
    /// diff when both sides are text, else git's binary form ("Binary files … differ":
    /// counted, not shown) with a note.
    pub fn push_file(
        &mut self,
        path: &str,
        old: Side<'_>,
        new: Side<'_>,
        deadline: Option<Instant>,
    ) {
        match (text_of(old), text_of(new)) {
            (Some(old_text), Some(new_text)) => {
                self.push_text(path, old_text, new_text, deadline);
            }
            _ => self.push_binary(path, old, new),
        }
    }

    /// Adds `text` as it is (a diff the caller already has).
    pub fn push_raw(&mut self, text: &str) {
        self.diff.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            self.diff.push('\n');
        }
    }

    /// Adds a note on what the diff leaves out.
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// The full, unmasked diff so far.
    pub fn diff(&self) -> &str {
        &self.diff
    }

    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Puts the change on `context`: `diff` masked and cut at [`MAX_DIFF_BYTES`] (with a
    /// note), `diff_fingerprint` the SHA-256 of the whole, unmasked diff, and the notes.
    /// Without a diff the context's fingerprint stays as it was (the tool input's).
    pub fn attach(self, context: &mut ActionContext) {
        if !self.diff.is_empty() {
            context.diff_fingerprint = Some(fingerprint(&self.diff));
            let (shown, cut) = cut_at_line(mask_secrets(&self.diff), MAX_DIFF_BYTES);
            if let Some(total) = cut {
                context.diff_notes.push(format!(
                    "diff cut at {} KiB: {} of {total} bytes shown",
                    MAX_DIFF_BYTES / 1024,
                    shown.len()
                ));
            }
            context.diff = Some(shown);
        }
        context.diff_notes.extend(self.notes);
    }

    fn push_text(&mut self, path: &str, old: Option<&str>, new: Option<&str>, d: Option<Instant>) {
        let (from, to) = headers(path, old.is_some(), new.is_some());
        let old = old.unwrap_or_default();
        let new = new.unwrap_or_default();
        let mut config = TextDiff::configure();
        config.algorithm(Algorithm::Myers);
        if let Some(deadline) = d {
            config.deadline(deadline);
        }
        let diff = config.diff_lines(old, new);
        let text = diff
            .unified_diff()
            .context_radius(CONTEXT_LINES)
            .header(&from, &to)
            .to_string();
        self.push_raw(&text);
    }

    /// git's form of a binary change: `diff --git`, an `index` line (here the SHA-256 of each
    /// side, so the fingerprint binds to the exact bytes) and `Binary files … differ`.
    fn push_binary(&mut self, path: &str, old: Side<'_>, new: Side<'_>) {
        if old == new {
            return;
        }
        let mode = match (old, new) {
            (Side::Absent, _) => "new file mode 100644\n",
            (_, Side::Absent) => "deleted file mode 100644\n",
            _ => "",
        };
        let (from, to) = headers(path, old != Side::Absent, new != Side::Absent);
        self.push_raw(&format!(
            "diff --git a/{path} b/{path}\n{mode}index {}..{}\nBinary files {from} and {to} differ\n",
            content_hash(old),
            content_hash(new)
        ));
        self.note(format!("binary file: {path}"));
    }
}

/// `Some(text)` for a present text side, `Some(None)` for an absent one, `None` for binary.
fn text_of(side: Side<'_>) -> Option<Option<&str>> {
    match side {
        Side::Absent => Some(None),
        Side::Bytes(bytes) => as_text(bytes).map(Some),
    }
}

/// `bytes` as text, unless git would call them binary (a NUL early on) or they are not UTF-8.
pub fn as_text(bytes: &[u8]) -> Option<&str> {
    let probe = bytes.get(..BINARY_PROBE_BYTES).unwrap_or(bytes);
    if probe.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// The SHA-256 (hex) of one side of a binary change; zeros for an absent side, as git writes.
fn content_hash(side: Side<'_>) -> String {
    match side {
        Side::Absent => "0".repeat(64),
        Side::Bytes(bytes) => hex::encode(Sha256::digest(bytes)),
    }
}

/// The `---`/`+++` names: `a/path`, `b/path`, or `/dev/null` for an absent side.
fn headers(path: &str, old_present: bool, new_present: bool) -> (String, String) {
    let from = if old_present {
        format!("a/{path}")
    } else {
        "/dev/null".to_owned()
    };
    let to = if new_present {
        format!("b/{path}")
    } else {
        "/dev/null".to_owned()
    };
    (from, to)
}

/// Secret files by name, anywhere in a repository: the default policy's `**/` secret patterns
/// less its exceptions (`.env.example`, `*.pub`).
static SECRET_FILES: LazyLock<Option<(GlobSet, GlobSet)>> = LazyLock::new(|| {
    let in_repo = |list: &[&str]| -> Vec<String> {
        list.iter()
            .filter(|p| p.starts_with("**/"))
            .map(|p| (*p).to_owned())
            .collect()
    };
    let secret = glob_set(&in_repo(SENSITIVE), true).ok()?;
    let except = glob_set(&in_repo(NOT_SENSITIVE), true).ok()?;
    Some((secret, except))
});

/// Whether `path` (relative to the repository) names a secret file (`.env`, `*.pem`,
/// `id_rsa`…): a gate neither reads nor shows its content. Fails closed: when the patterns
/// cannot be built, every file is a secret.
pub fn is_secret_file(path: &str) -> bool {
    let candidate = format!("/{path}");
    match SECRET_FILES.as_ref() {
        Some((secret, except)) => secret.is_match(&candidate) && !except.is_match(&candidate),
        None => true,
    }
}

/// SHA-256 (hex) of a diff: what a grant for it binds to.
pub fn fingerprint(diff: &str) -> String {
    hex::encode(Sha256::digest(diff.as_bytes()))
}

/// `text` cut after its last whole line within `limit` bytes (on a character boundary when
/// one line is longer), and its original length when it was cut.
fn cut_at_line(mut text: String, limit: usize) -> (String, Option<usize>) {
    let total = text.len();
    let (kept, cut) = crate::text::cut_at_line(&text, limit);
    let end = kept.len();
    text.truncate(end);
    (text, cut.then_some(total))
}

#[cfg(test)]
mod tests;
