//! Codex CLI hook payloads turned into requests.
//!
//! Codex (0.169) sends Claude-style payloads: `tool_name` `Bash` with `tool_input.command` for
//! its shell tool, `mcp__<server>__<tool>` with the tool's arguments for MCP calls — both
//! read exactly as Claude Code's ([`action_from_claude_hook`]), so they carry the same
//! evidence — and `apply_patch` with the whole patch in `tool_input.command` for file
//! changes. A patch becomes `file_write` on every file it adds, updates, deletes or moves to,
//! with the patch's SHA-256 as `context.diff_fingerprint` and its removed and added lines as
//! `context.edit`, as a Claude Code Edit carries. The gate, which reads the files, sends the
//! patch as a unified diff too ([`crate::diff::patch`]) and binds the grant to that instead.

use serde_json::Value;

use crate::hook::{action_from_claude_hook, content_fingerprint, cut_to, str_field};
use crate::request::{ActionRequest, EditText, MAX_EDIT_BYTES};
use crate::types::ActionKind;
use crate::{HookDefaults, HookError};

/// Codex's tool name for file changes.
pub const APPLY_PATCH: &str = "apply_patch";

/// The headers of an apply_patch patch that name a file it writes.
const FILE_HEADERS: [&str; 4] = [
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// Translates a Codex hook payload into an [`ActionRequest`]: `apply_patch` → `file_write`,
/// everything else as Claude Code's payload (`Bash` → `shell`, `mcp__*` → `mcp`).
pub fn action_from_codex_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let mut request = action_from_claude_hook(payload, defaults)?;
    if payload.get("tool_name").and_then(Value::as_str) != Some(APPLY_PATCH) {
        return Ok(request);
    }
    let empty = Value::Object(serde_json::Map::new());
    let input = payload.get("tool_input").unwrap_or(&empty);
    let patch = str_field(input.get("command"), "tool_input.command")?;
    let paths = patch_paths(patch);
    if paths.is_empty() {
        return Err(HookError::WrongType {
            field: "tool_input.command",
            expected: "patch naming at least one file",
        });
    }
    request.action.kind = ActionKind::FileWrite;
    request.action.paths = paths;
    request.context.diff_fingerprint = Some(content_fingerprint(input));
    request.context.edit = Some(patch_edit(patch));
    Ok(request)
}

/// Every file the patch writes, in order, each once, as the patch names it (relative paths
/// are resolved against the action's `cwd` by the policy).
pub fn patch_paths(patch: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for line in patch.lines() {
        let named = FILE_HEADERS
            .iter()
            .find_map(|header| line.strip_prefix(header))
            .map(str::trim)
            .filter(|path| !path.is_empty());
        if let Some(path) = named {
            if !paths.iter().any(|p| p == path) {
                paths.push(path.to_owned());
            }
        }
    }
    paths
}

/// The patch's removed lines (`old`, `None` when it only adds files) and added lines.
fn patch_edit(patch: &str) -> EditText {
    let mut old = Vec::new();
    let mut new = Vec::new();
    let mut changes_existing = false;
    for line in patch.lines() {
        if line.starts_with("*** Update File: ") || line.starts_with("*** Delete File: ") {
            changes_existing = true;
        }
        if line.starts_with("***") {
            continue;
        }
        if let Some(added) = line.strip_prefix('+') {
            new.push(added);
        } else if let Some(removed) = line.strip_prefix('-') {
            old.push(removed);
        }
    }
    let mut truncated = false;
    let mut cut = |lines: Vec<&str>| {
        let (kept, was_cut) = cut_to(lines.join("\n"), MAX_EDIT_BYTES);
        truncated |= was_cut;
        kept
    };
    let old = changes_existing.then(|| cut(old));
    let new = cut(new);
    EditText {
        old,
        new,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload(tool: &str, input: Value) -> Value {
        json!({
            "session_id": "s1", "turn_id": "t1", "cwd": "/work/proj",
            "hook_event_name": "PreToolUse", "model": "gpt-5.1-codex",
            "permission_mode": "default", "tool_name": tool, "tool_input": input,
            "tool_use_id": "call_1",
        })
    }

    #[test]
    fn a_patch_is_a_file_write_on_every_file_it_names() {
        let patch = "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** Update File: src/a.rs\n\
                     *** Move to: src/b.rs\n@@ fn a()\n-old line\n+new line\n*** Delete File: gone.txt\n\
                     *** End Patch\n";
        let request = action_from_codex_hook(
            &payload("apply_patch", json!({ "command": patch })),
            &HookDefaults::default(),
        )
        .expect("a patch translates");
        assert_eq!(
            request.action.kind,
            ActionKind::FileWrite,
            "a patch writes files"
        );
        assert_eq!(
            request.action.paths,
            ["notes.txt", "src/a.rs", "src/b.rs", "gone.txt"],
            "every file added, updated, moved to or deleted is a path the policy sees"
        );
        let edit = request.context.edit.expect("the edit text is evidence");
        assert_eq!(
            edit.old.as_deref(),
            Some("old line"),
            "removed lines are what it replaces"
        );
        assert_eq!(
            edit.new, "hello\nnew line",
            "added lines are what it writes"
        );
        assert!(
            request.context.diff_fingerprint.is_some(),
            "a grant for one patch must not cover another"
        );
        assert_eq!(
            request.idempotency_key.as_deref(),
            Some("call_1"),
            "the call id is the key"
        );
    }

    #[test]
    fn shell_and_mcp_read_as_claude_code_does() {
        let shell = action_from_codex_hook(
            &payload("Bash", json!({ "command": "ls", "description": "look" })),
            &HookDefaults::default(),
        )
        .expect("shell translates");
        assert_eq!(shell.action.kind, ActionKind::Shell, "Bash is a shell call");
        assert_eq!(shell.reason, "look", "the justification is the reason");
        let mcp = action_from_codex_hook(
            &payload("mcp__github__create_issue", json!({ "title": "x" })),
            &HookDefaults::default(),
        )
        .expect("mcp translates");
        assert_eq!(mcp.action.kind, ActionKind::Mcp, "mcp__* is an MCP call");
    }

    #[test]
    fn a_patch_without_files_is_refused() {
        let err = action_from_codex_hook(
            &payload(
                "apply_patch",
                json!({ "command": "*** Begin Patch\n*** End Patch" }),
            ),
            &HookDefaults::default(),
        );
        assert!(
            err.is_err(),
            "a patch naming no file cannot be judged, so it is not a request"
        );
        let missing =
            action_from_codex_hook(&payload("apply_patch", json!({})), &HookDefaults::default());
        assert_eq!(
            missing.err(),
            Some(HookError::Missing("tool_input.command")),
            "a patch call without its patch says what is missing"
        );
    }
}
