//! The change an edit makes, as a unified diff: what a gate sends as `context.diff`, and the
//! fingerprint a grant binds to. Pure: the caller reads the files and passes the deadline.
//!
//! A [`ChangeSet`] collects one diff per file (`--- a/path` / `+++ b/path` with hunks, paths
//! relative to the repository; `/dev/null` for a created or deleted file) and the notes on
//! what could not be shown. [`ChangeSet::attach`] puts it on a request: the diff masked
//! ([`crate::mask::mask_secrets`]) and cut at [`MAX_DIFF_BYTES`] with a note, and
//! `diff_fingerprint` the SHA-256 of the whole, unmasked diff, so a grant covers this exact
//! change only.

pub(crate) mod ci;
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
/// diff, and growing with the file. So the common ends are found byte by byte (`memcmp`
/// speed) and cut only right after a `\n` they share: the lines before such a cut split the
/// same way in both texts whatever ends them (`\n`, `\r\n`, a lone `\r`), and so do the lines
/// after one. `a_diff_of_the_lines_around_the_change_is_the_whole_files_diff` checks the
/// diff of what is kept against the whole files'.
fn around_the_change<'a>(old: &'a str, new: &'a str) -> Part<'a> {
    let whole = Part {
        old,
        new,
        skipped: 0,
        dropped: 0,
    };
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let kept = CONTEXT_LINES + SLIDE_LINES;
    let same_start = common_prefix(a, b);
    // The common end is looked for after the common start, so the two never overlap.
    let same_end = match (a.get(same_start..), b.get(same_start..)) {
        (Some(a), Some(b)) => common_suffix(a, b),
        _ => return whole,
    };
    // The start: up to `kept` lines before the last line the texts share whole.
    let shared_lines = a
        .get(..same_start)
        .and_then(|start| memchr::memrchr(b'\n', start))
        .map_or(0, |newline| newline + 1);
    let start = a
        .get(..shared_lines)
        .map_or(0, |shared| lines_back(shared, kept));
    // The end: `kept` lines after the first line the texts' common end holds whole (one that
    // starts after a shared `\n`).
    let end_in_old = a.len() - same_end;
    let end = a
        .get(end_in_old..)
        .and_then(|tail| memchr::memchr(b'\n', tail))
        .map(|newline| end_in_old + newline + 1)
        .and_then(|first| lines_on(a, first, kept))
        .unwrap_or(a.len());
    let cut_from_end = a.len() - end;
    match (
        old.get(start..end),
        new.get(start..new.len() - cut_from_end),
    ) {
        (Some(old_part), Some(new_part)) => Part {
            old: old_part,
            new: new_part,
            skipped: a.get(..start).map_or(0, lines_in),
            dropped: a.get(end..).map_or(0, lines_in),
        },
        // Cuts are after a `\n`, on a character boundary; were one not, the whole files.
        _ => whole,
    }
}

/// Bytes `common_prefix` and `common_suffix` compare at once (a `memcmp`).
const BLOCK: usize = 256;

/// How many bytes `a` and `b` start with in common: compared a block at a time (`memcmp`),
/// then byte by byte in the first block that differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let blocks = a
        .chunks_exact(BLOCK)
        .zip(b.chunks_exact(BLOCK))
        .take_while(|(a, b)| a == b)
        .count()
        * BLOCK;
    let rest = match (a.get(blocks..), b.get(blocks..)) {
        (Some(a), Some(b)) => a.iter().zip(b).take_while(|(a, b)| a == b).count(),
        _ => 0,
    };
    blocks + rest
}

/// How many bytes `a` and `b` end with in common.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let blocks = a
        .rchunks_exact(BLOCK)
        .zip(b.rchunks_exact(BLOCK))
        .take_while(|(a, b)| a == b)
        .count()
        * BLOCK;
    let rest = match (a.get(..a.len() - blocks), b.get(..b.len() - blocks)) {
        (Some(a), Some(b)) => a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(a, b)| a == b)
            .count(),
        _ => 0,
    };
    blocks + rest
}

/// Where the `n`th line before the end of `text` starts, counting lines ended by `\n` (each
/// holds one line of the diff's, or more when a lone `\r` ends one); 0 when it has fewer.
/// `text` ends with a `\n` or is empty.
fn lines_back(text: &[u8], n: usize) -> usize {
    memchr::memrchr_iter(b'\n', text)
        .nth(n)
        .map_or(0, |newline| newline + 1)
}

/// Where the `n`th `\n`-ended line from `from` in `text` ends; `None` when fewer follow.
fn lines_on(text: &[u8], from: usize, n: usize) -> Option<usize> {
    let n = n.checked_sub(1)?;
    let after = text.get(from..)?;
    memchr::memchr_iter(b'\n', after)
        .nth(n)
        .map(|newline| from + newline + 1)
}

/// How many lines the diff splits `text` into: one per `\n`, per `\r\n` and per lone `\r`,
/// and one for a last line with no ending.
fn lines_in(text: &[u8]) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text).count();
    let lone_returns = memchr::memchr_iter(b'\r', text)
        .filter(|&at| text.get(at + 1) != Some(&b'\n'))
        .count();
    let unended = text
        .last()
        .is_some_and(|&last| last != b'\n' && last != b'\r');
    newlines + lone_returns + usize::from(unended)
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
/// glob set was a large share of an edit's gate. The policy's glob semantics
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
