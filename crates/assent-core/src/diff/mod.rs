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

use std::borrow::Cow;
use std::time::Instant;

use sha2::{Digest, Sha256};
use similar::{Algorithm, DiffableStr, TextDiff};

use crate::mask::mask_secrets;
use crate::policy::defaults::{NOT_SENSITIVE, SENSITIVE};
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
        let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
        let part = around_the_change(old, new);
        let (text, at_start, at_end) = unified_diff(part.old, part.new, (&from, &to), d);
        let text = if (part.skipped > 0 && at_start) || (part.dropped > 0 && at_end) {
            // A change slid up to where the lines were cut (the diff moves a change along
            // equal lines to compact it), and might slide further in the whole files.
            unified_diff(old, new, (&from, &to), d).0
        } else {
            shift_hunks(text, part.skipped)
        };
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

/// Lines kept beyond a hunk's context where [`around_the_change`] cuts the common ends: room
/// for the diff to move a change along equal lines, as it would in the whole files.
const SLIDE_LINES: usize = 8;

/// What of two texts their diff needs ([`around_the_change`]).
struct Part<'a> {
    old: &'a str,
    new: &'a str,
    /// Common lines left out before `old` and `new`…
    skipped: usize,
    /// …and after them.
    dropped: usize,
}

/// What of `old` and `new` their diff needs: both less the lines they start and end with in
/// common, but for [`CONTEXT_LINES`] and [`SLIDE_LINES`] on each side of the change. An edit
/// changes a few lines of a file; the diff of the rest is the same hunks (Myers strips the
/// common ends first), but finding that out costs a hash of every line — most of an edit's
/// diff, and growing with the file. `a_diff_of_the_lines_around_the_change_is_the_whole_files_diff`
/// checks the two agree.
fn around_the_change<'a>(old: &'a str, new: &'a str) -> Part<'a> {
    // Lines as the diff splits them (`\n`, `\r\n` and a lone `\r` end one).
    let (old_lines, new_lines) = (old.tokenize_lines(), new.tokenize_lines());
    let same = |(a, b): &(&&str, &&str)| a == b;
    let prefix = old_lines.iter().zip(&new_lines).take_while(same).count();
    let suffix = old_lines
        .iter()
        .skip(prefix)
        .rev()
        .zip(new_lines.iter().skip(prefix).rev())
        .take_while(same)
        .count();
    let skipped = prefix.saturating_sub(CONTEXT_LINES + SLIDE_LINES);
    let dropped = suffix.saturating_sub(CONTEXT_LINES + SLIDE_LINES);
    let middle = |text: &'a str, lines: &[&str]| {
        let start = lines
            .iter()
            .take(skipped)
            .map(|line| line.len())
            .sum::<usize>();
        let after = lines
            .iter()
            .rev()
            .take(dropped)
            .map(|line| line.len())
            .sum::<usize>();
        text.get(start..text.len() - after)
    };
    match (middle(old, &old_lines), middle(new, &new_lines)) {
        (Some(old), Some(new)) => Part {
            old,
            new,
            skipped,
            dropped,
        },
        // Whole lines are always in the text, on a character boundary; were they not, the
        // whole files.
        _ => Part {
            old,
            new,
            skipped: 0,
            dropped: 0,
        },
    }
}

/// The unified diff of `old` and `new` by lines under `headers`, and whether a hunk reaches
/// their first line and their last.
fn unified_diff(
    old: &str,
    new: &str,
    (from, to): (&str, &str),
    deadline: Option<Instant>,
) -> (String, bool, bool) {
    let mut config = TextDiff::configure();
    config.algorithm(Algorithm::Myers);
    if let Some(deadline) = deadline {
        config.deadline(deadline);
    }
    let diff = config.diff_lines(old, new);
    let hunks = diff.grouped_ops(CONTEXT_LINES);
    let at_start = hunks
        .first()
        .and_then(|hunk| hunk.first())
        .is_some_and(|op| op.old_range().start == 0);
    let at_end = hunks
        .last()
        .and_then(|hunk| hunk.last())
        .is_some_and(|op| op.old_range().end == diff.old_slices().len());
    let text = diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(from, to)
        .to_string();
    (text, at_start, at_end)
}

/// `diff` with each hunk header's line numbers (`@@ -12,7 +12,8 @@`) moved down by `by`: the
/// diff of the lines [`around_the_change`] kept, numbered as in the whole files. A hunk's
/// lines start with a space, `+`, `-` or `\`, so only a header starts with `@@ -`.
fn shift_hunks(diff: String, by: usize) -> String {
    if by == 0 {
        return diff;
    }
    let shift = |range: &str| -> Option<String> {
        let (start, len) = match range.split_once(',') {
            Some((start, len)) => (start, Some(len)),
            None => (range, None),
        };
        let start = start.parse::<usize>().ok()? + by;
        Some(len.map_or_else(|| start.to_string(), |len| format!("{start},{len}")))
    };
    let header = |line: &str| -> Option<String> {
        let (old, rest) = line.strip_prefix("@@ -")?.split_once(" +")?;
        let (new, tail) = rest.split_once(" @@")?;
        Some(format!("@@ -{} +{} @@{tail}", shift(old)?, shift(new)?))
    };
    // Split as the diff split the files: a line ending in a lone `\r` is printed as it is,
    // and the next header follows it on the same `\n`-line.
    diff.tokenize_lines()
        .into_iter()
        .map(|line| header(line).map_or(Cow::Borrowed(line), Cow::Owned))
        .collect()
}

/// The default policy's secret patterns that hold anywhere in a repository (`**/…`), and the
/// exceptions among them (`.env.example`, `*.pub`).
fn in_repository(patterns: &'static [&'static str]) -> impl Iterator<Item = &'static str> {
    patterns.iter().copied().filter(|p| p.starts_with("**/"))
}

/// Whether `path` (relative to the repository) names a secret file (`.env`, `*.pem`,
/// `id_rsa`…): a gate neither reads nor shows its content.
///
/// Each pattern is matched as written (`fast_glob`), with nothing compiled first: a gate is a
/// process per tool call that asks this once or twice, and building these patterns into a
/// glob set was 0.8 M instructions, a third of an edit's gate. The policy's glob semantics
/// (`globset`, `*` not crossing `/`) give the same answers: `secret_files_match_the_policy_globs`.
pub fn is_secret_file(path: &str) -> bool {
    let matches = |patterns| in_repository(patterns).any(|glob| fast_glob::glob_match(glob, path));
    matches(SENSITIVE) && !matches(NOT_SENSITIVE)
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
