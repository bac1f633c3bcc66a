//! What a gate reads from disk for a request: the repository's base commit, and for a file
//! tool the diff of what it would write against the file as it is. Kept to a few file reads:
//! the gate runs on every tool call. The diffing itself is core's ([`ChangeSet`]).
//!
//! Whatever cannot be read or shown (a binary file, one that vanished, a symlink out of the
//! repository, a secret file such as `.env`, an edit that does not apply) becomes a `context.diff_notes` entry; the
//! request still goes to the service, which decides — never an allow here.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use assent_core::diff::{as_text, is_secret_file, ChangeSet, Side};
use assent_core::diff_edit::{edit_path, edited_content, written_text, EDIT_TOOLS};
use assent_core::diff_patch::{apply_chunks, parse_patch, PatchChange, PatchOp};
use assent_core::hook_codex::APPLY_PATCH;
use assent_core::{ActionContext, ActionRequest};
use serde_json::Value;

use crate::repo;

/// Largest file the gate reads to diff (bytes); larger ones are noted, not read.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Longest the diff algorithm may search for a minimal diff before settling for a coarser one.
const DIFF_BUDGET: Duration = Duration::from_millis(500);

/// Adds to `request` what the disk says about it: the base commit of `root` (the repository
/// the gate found) and, for a file tool in `payload`, the diff.
pub fn describe(request: &mut ActionRequest, payload: &Value, root: Option<&Path>) {
    if let Some(root) = root {
        base_commit(&mut request.context, root);
        pr_history(request, root);
    }
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(input) = payload.get("tool_input") else {
        return;
    };
    let cwd = PathBuf::from(&request.action.cwd);
    let files = Files {
        base: root.map_or_else(|| cwd.clone(), Path::to_path_buf),
        cwd,
    };
    let mut set = ChangeSet::new();
    if tool == APPLY_PATCH {
        let patch = input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for op in parse_patch(patch) {
            patch_op(&mut set, &files, &op);
        }
    } else if EDIT_TOOLS.contains(&tool) {
        edit(&mut set, &files, tool, input);
    } else {
        return;
    }
    set.attach(&mut request.context);
}

/// `context.base_sha` from HEAD of `root`, with a note when there is none or it is detached.
pub fn base_commit(context: &mut ActionContext, root: &Path) {
    let head = repo::head(root);
    context.base_sha = head.sha().map(str::to_owned);
    context.diff_notes.extend(head.note());
}

/// For a publishing request, `context.head_ancestors`: the commits HEAD descends from, so a
/// diff approval asked before the agent committed still counts for the PR. Only publishing
/// requests pay for the `git` process; without git the note says what that costs.
pub fn pr_history(request: &mut ActionRequest, root: &Path) {
    if request.context.base_sha.is_none() || !assent_core::publishes(request) {
        return;
    }
    match repo::ancestors(root, assent_core::MAX_HEAD_ANCESTORS) {
        Ok(commits) => request.context.head_ancestors = commits,
        Err(why) => request.context.diff_notes.push(format!(
            "HEAD's history unknown ({why}): diff reviews at earlier commits count as stale"
        )),
    }
    if let Some(target) = assent_core::push_target(request) {
        match crate::push::pushed(root, &target) {
            Ok(pushed) => request.context.pushed = Some(pushed),
            Err(why) => request
                .context
                .diff_notes
                .push(format!("the commits this push sends are unknown: {why}")),
        }
    }
}

/// Where the files are: relative paths are under `cwd`; only files under `base` (the
/// repository, else `cwd`) are read.
struct Files {
    base: PathBuf,
    cwd: PathBuf,
}

/// A file as the gate found it.
enum Found {
    Missing,
    Bytes(Vec<u8>),
    /// Not read, and why (the note).
    Skipped(String),
}

impl Files {
    /// The path as written, made absolute and without `.`/`..`, and its name relative to
    /// the base (`None` when it is outside).
    fn locate(&self, written: &str) -> (PathBuf, Option<String>) {
        let abs = lexical(&self.cwd.join(written));
        let rel = abs
            .strip_prefix(lexical(&self.base))
            .ok()
            .map(|r| r.to_string_lossy().replace('\\', "/"));
        (abs, rel)
    }

    /// The file's bytes, unless it is missing, outside the base (also through a symlink),
    /// not a regular file, or too large.
    fn read(&self, abs: &Path, rel: &str) -> Found {
        let real_base = std::fs::canonicalize(&self.base).unwrap_or_else(|_| self.base.clone());
        let real = match std::fs::canonicalize(abs) {
            Ok(real) => real,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return self.missing(abs, rel, &real_base)
            }
            Err(err) => return Found::Skipped(format!("cannot read {rel}: {err}")),
        };
        if !real.starts_with(&real_base) {
            return Found::Skipped(out_of_repo(rel, &real));
        }
        match std::fs::metadata(&real) {
            Ok(meta) if !meta.is_file() => {
                Found::Skipped(format!("{rel} is not a regular file: not read"))
            }
            Ok(meta) if meta.len() > MAX_FILE_BYTES => Found::Skipped(format!(
                "{rel} is too large to diff ({} bytes; the gate reads at most {MAX_FILE_BYTES})",
                meta.len()
            )),
            Ok(_) => read_capped(&real, rel),
            Err(err) => Found::Skipped(format!("cannot read {rel}: {err}")),
        }
    }

    /// A path that does not resolve: a dangling symlink, a directory link out of the
    /// repository, or simply no file.
    fn missing(&self, abs: &Path, rel: &str, real_base: &Path) -> Found {
        if let Ok(target) = std::fs::read_link(abs) {
            return Found::Skipped(format!(
                "{rel} is a symlink to {} that does not exist: not read",
                target.display()
            ));
        }
        let parent = abs.parent().and_then(|p| std::fs::canonicalize(p).ok());
        match parent {
            Some(real) if !real.starts_with(real_base) => Found::Skipped(out_of_repo(rel, &real)),
            _ => Found::Missing,
        }
    }
}

fn out_of_repo(rel: &str, real: &Path) -> String {
    format!(
        "{rel} is a symlink out of the repository (→ {}): not read",
        real.display()
    )
}

fn read_capped(path: &Path, rel: &str) -> Found {
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE_BYTES).read_to_end(&mut bytes));
    match read {
        Ok(_) => Found::Bytes(bytes),
        Err(err) => Found::Skipped(format!("cannot read {rel}: {err}")),
    }
}

/// `path` with `.` and `..` resolved without touching the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn secret_note(rel: &str) -> String {
    format!("{rel} is a secret file: its content is neither read nor shown")
}

fn deadline() -> Option<Instant> {
    Some(Instant::now() + DIFF_BUDGET)
}

/// A Claude Code file tool: its input applied to the file, diffed.
fn edit(set: &mut ChangeSet, files: &Files, tool: &str, input: &Value) {
    let Some(written) = edit_path(tool, input) else {
        return;
    };
    let (abs, rel) = files.locate(written);
    let Some(rel) = rel else {
        set.note(format!("{written} is outside the repository: not read"));
        return;
    };
    if is_secret_file(&rel) {
        set.note(secret_note(&rel));
        return;
    }
    match files.read(&abs, &rel) {
        Found::Skipped(note) => set.note(note),
        Found::Missing if tool == "Write" => {
            let new = written_text(tool, input);
            set.push_file(&rel, Side::Absent, Side::Bytes(new.as_bytes()), deadline());
        }
        Found::Missing => {
            set.note(format!(
                "{rel} vanished before the hook read it: its new text is diffed against an empty file"
            ));
            let new = written_text(tool, input);
            set.push_file(&rel, Side::Absent, Side::Bytes(new.as_bytes()), deadline());
        }
        Found::Bytes(old) => edit_existing(set, &rel, tool, input, &old),
    }
}

fn edit_existing(set: &mut ChangeSet, rel: &str, tool: &str, input: &Value, old: &[u8]) {
    let text = as_text(old);
    if text.is_none() && tool != "Write" {
        set.note(format!("binary file: {rel} (the edit is not shown)"));
        return;
    }
    match edited_content(tool, input, text) {
        Ok(new) => set.push_file(
            rel,
            Side::Bytes(old),
            Side::Bytes(new.as_bytes()),
            deadline(),
        ),
        Err(err) => set.note(format!("{rel}: {err}; Claude Code will refuse the edit")),
    }
}

/// One file of a Codex patch: added, deleted, or updated (and moved) against the file.
fn patch_op(set: &mut ChangeSet, files: &Files, op: &PatchOp) {
    let (abs, rel) = files.locate(&op.path);
    let Some(rel) = rel else {
        set.note(format!("{} is outside the repository: not read", op.path));
        set.push_raw(&op.raw);
        return;
    };
    let moved_to_secret = match &op.change {
        PatchChange::Update {
            move_to: Some(to), ..
        } => files.locate(to).1.is_some_and(|to| is_secret_file(&to)),
        _ => false,
    };
    if is_secret_file(&rel) || moved_to_secret {
        set.note(secret_note(&rel));
        return;
    }
    let old = match &op.change {
        PatchChange::Add(content) => {
            set.push_file(
                &rel,
                Side::Absent,
                Side::Bytes(content.as_bytes()),
                deadline(),
            );
            return;
        }
        PatchChange::Delete | PatchChange::Update { .. } => files.read(&abs, &rel),
    };
    let old = match old {
        Found::Bytes(bytes) => bytes,
        Found::Missing => {
            set.note(format!(
                "{rel} vanished before the hook read it: the patch is shown as written"
            ));
            set.push_raw(&op.raw);
            return;
        }
        Found::Skipped(note) => {
            set.note(note);
            set.push_raw(&op.raw);
            return;
        }
    };
    let PatchChange::Update { move_to, chunks } = &op.change else {
        set.push_file(&rel, Side::Bytes(&old), Side::Absent, deadline());
        return;
    };
    let new = match as_text(&old).map(|text| apply_chunks(text, chunks)) {
        Some(Ok(new)) => new,
        Some(Err(err)) => {
            set.note(format!("{rel}: {err}: the patch is shown as written"));
            set.push_raw(&op.raw);
            return;
        }
        None => {
            set.note(format!(
                "binary file: {rel} (the patch is shown as written)"
            ));
            set.push_raw(&op.raw);
            return;
        }
    };
    let target = move_to.as_deref().map(|to| files.locate(to).1);
    match target {
        Some(Some(to)) if to != rel => {
            set.push_file(&rel, Side::Bytes(&old), Side::Absent, deadline());
            set.push_file(&to, Side::Absent, Side::Bytes(new.as_bytes()), deadline());
        }
        Some(None) => {
            set.note(format!(
                "{rel} moves outside the repository: the patch is shown as written"
            ));
            set.push_raw(&op.raw);
        }
        _ => set.push_file(
            &rel,
            Side::Bytes(&old),
            Side::Bytes(new.as_bytes()),
            deadline(),
        ),
    }
}
