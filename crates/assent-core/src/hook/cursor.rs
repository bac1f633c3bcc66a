//! Cursor hook payloads (`.cursor/hooks.json`, `~/.cursor/hooks.json`) read as Claude Code's.
//! Written against Cursor's hooks documentation (cursor.com/docs/hooks, as read in December
//! 2026); Cursor itself does not run here.
//!
//! Every payload has `conversation_id` (the run), `hook_event_name`, `workspace_roots`.
//! - `beforeShellExecution`: `{command, cwd, sandbox}` → `Bash`, no call id.
//! - `beforeMCPExecution`: `{tool_name, tool_input (a JSON string), mcp_server_name, url |
//!   command}` → `mcp__<server>__<tool>`, no call id.
//! - `preToolUse` / `postToolUse`: `{tool_name, tool_input, tool_use_id, cwd}` for every tool:
//!   `Shell` (`command`, `working_directory`) → `Bash`; `Read`, `Write`, `Edit`/`StrReplace`,
//!   `Grep`, `Glob` keep Claude Code's names, their arguments read under Claude Code's and
//!   Cursor's names; `MCP:<tool>` → `mcp__cursor__<tool>`; any other (`Delete`, `Task`) is
//!   `other`, its paths and URLs still seen.
//! - `sessionEnd`: `{session_id, reason}`.
//!
//! [`claude_shaped`] gives the Claude Code frame (`PreToolUse`, `PostToolUse`, `SessionEnd`);
//! a payload shaped already comes out the same.

use serde_json::{json, Map, Value};

use crate::hook::opencode::other_tool;
use crate::hook::{action_from_claude_hook, HookDefaults, HookError};
use crate::request::ActionRequest;

/// The Claude Code tools [`claude_shaped`] gives Cursor's built-in tools.
const SHAPED_TOOLS: [&str; 9] = [
    "Bash",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
];

/// `payload` in Claude Code's frame and names; the rest kept.
pub fn claude_shaped(payload: &Value) -> Value {
    let Some(object) = payload.as_object() else {
        return payload.clone();
    };
    let mut out = object.clone();
    let event = object
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (claude_event, tool, input) = match event {
        "beforeShellExecution" => (
            "PreToolUse",
            "Bash".to_owned(),
            json!({ "command": object.get("command").cloned().unwrap_or(Value::Null) }),
        ),
        "beforeMCPExecution" => {
            let server = object
                .get("mcp_server_name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("cursor");
            let tool = object
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            (
                "PreToolUse",
                format!("mcp__{server}__{tool}"),
                parsed(object.get("tool_input")),
            )
        }
        "preToolUse" | "postToolUse" | "PreToolUse" | "PostToolUse" => {
            let tool = object
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let claude = if event.starts_with("pre") || event == "PreToolUse" {
                "PreToolUse"
            } else {
                "PostToolUse"
            };
            (claude, tool, parsed(object.get("tool_input")))
        }
        "sessionEnd" | "SessionEnd" => {
            out.insert("hook_event_name".into(), Value::String("SessionEnd".into()));
            if let Some(session) = session(object) {
                out.insert("session_id".into(), session);
            }
            return Value::Object(out);
        }
        _ => return Value::Object(out),
    };
    out.insert(
        "hook_event_name".into(),
        Value::String(claude_event.to_owned()),
    );
    if let Some(session) = session(object) {
        out.insert("session_id".into(), session);
    }
    let workdir = input
        .get("working_directory")
        .and_then(Value::as_str)
        .filter(|d| d.starts_with('/'));
    let cwd = object
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
        .or(workdir)
        .or_else(|| {
            object
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
        });
    if let Some(cwd) = workdir.filter(|_| tool == "Shell").or(cwd) {
        out.insert("cwd".into(), Value::String(cwd.to_owned()));
    }
    let (name, args) = renamed(&tool, &input);
    out.insert("tool_name".into(), Value::String(name));
    out.insert("tool_input".into(), args);
    Value::Object(out)
}

/// The run: the conversation (`sessionEnd` names it `session_id`, "same as conversation_id").
fn session(object: &Map<String, Value>) -> Option<Value> {
    object
        .get("conversation_id")
        .or_else(|| object.get("session_id"))
        .cloned()
}

/// The tool input: an object, or the JSON string MCP calls carry, parsed.
fn parsed(input: Option<&Value>) -> Value {
    match input {
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or_else(|_| json!({ "input": text }))
        }
        Some(other) => other.clone(),
        None => Value::Object(Map::new()),
    }
}

/// The Claude Code tool and arguments that do what Cursor's `tool` does with `input`.
fn renamed(tool: &str, input: &Value) -> (String, Value) {
    if !input.is_object() {
        return (tool.to_owned(), input.clone());
    }
    let pick = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| input.get(*n).filter(|v| !v.is_null()).cloned())
            .unwrap_or(Value::Null)
    };
    let path = || pick(&["file_path", "path", "target_file"]);
    let (name, args) = match tool {
        "Shell" | "Bash" => ("Bash", json!({ "command": pick(&["command"]) })),
        "Read" => ("Read", json!({ "file_path": path() })),
        "Write" => (
            "Write",
            json!({ "file_path": path(), "content": pick(&["content", "contents", "file_text"]) }),
        ),
        "Edit" | "StrReplace" => (
            "Edit",
            json!({ "file_path": path(), "old_string": pick(&["old_string", "old_str"]),
                    "new_string": pick(&["new_string", "new_str"]) }),
        ),
        "Grep" => (
            "Grep",
            json!({ "pattern": pick(&["pattern"]), "path": pick(&["path"]), "glob": pick(&["glob"]) }),
        ),
        "Glob" => (
            "Glob",
            json!({ "pattern": pick(&["pattern", "glob_pattern"]),
                    "path": pick(&["path", "target_directory"]) }),
        ),
        "WebFetch" => ("WebFetch", json!({ "url": pick(&["url"]) })),
        mcp if mcp.starts_with("MCP:") => {
            let name = mcp.trim_start_matches("MCP:");
            return (format!("mcp__cursor__{name}"), input.clone());
        }
        other => return (other.to_owned(), input.clone()),
    };
    let mut args = args;
    if let Some(map) = args.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    (name.to_owned(), args)
}

/// Translates a Cursor hook payload into an [`ActionRequest`] (through [`claude_shaped`]);
/// a tool Claude Code has no name for is `other`, with the paths and URLs of its arguments.
pub fn action_from_cursor_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let shaped = claude_shaped(payload);
    let name = shaped
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if SHAPED_TOOLS.contains(&name)
        || name.starts_with("mcp__")
        || !shaped.get("tool_name").is_some_and(Value::is_string)
    {
        return action_from_claude_hook(&shaped, defaults);
    }
    other_tool(&shaped, defaults, "cursor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ActionKind;

    /// The common fields every Cursor hook gets (cursor.com/docs/hooks, "Common schema").
    fn common(event: &str) -> Map<String, Value> {
        json!({"conversation_id": "conv-123", "generation_id": "gen-456", "model": "gpt-5",
               "hook_event_name": event, "cursor_version": "1.7.2",
               "workspace_roots": ["/work/proj"], "user_email": null, "transcript_path": null})
        .as_object()
        .cloned()
        .expect("an object")
    }

    fn with(event: &str, fields: Value) -> Value {
        let mut object = common(event);
        object.extend(fields.as_object().cloned().expect("fields"));
        Value::Object(object)
    }

    fn request(payload: &Value) -> ActionRequest {
        action_from_cursor_hook(payload, &HookDefaults::default()).expect("translates")
    }

    #[test]
    fn a_shell_command_is_the_same_call_from_either_hook() {
        let before = request(&with(
            "beforeShellExecution",
            json!({"command": "git push origin main", "cwd": "/work/proj", "sandbox": false}),
        ));
        let pre = request(&with(
            "preToolUse",
            json!({"tool_name": "Shell", "tool_use_id": "abc123", "cwd": "/work/proj",
                   "tool_input": {"command": "git push origin main", "working_directory": "/work/proj"}}),
        ));
        assert_eq!(before.action.kind, ActionKind::Shell, "a shell call");
        assert_eq!(before.run_id, "conv-123", "a run is Cursor's conversation");
        assert_eq!(
            before.action, pre.action,
            "the same command, the same action"
        );
        assert_eq!(
            before.idempotency_key, None,
            "beforeShellExecution carries no call id"
        );
        assert_eq!(
            pre.idempotency_key.as_deref(),
            Some("abc123"),
            "preToolUse's id is the key"
        );
    }

    #[test]
    fn an_mcp_call_is_named_by_its_server_and_its_string_input_read() {
        let mcp = request(&with(
            "beforeMCPExecution",
            json!({"tool_name": "create_issue", "tool_input": "{\"path\": \"/etc/shadow\"}",
                   "mcp_server_name": "linear", "url": "https://mcp.linear.app/sse"}),
        ));
        assert_eq!(
            (mcp.action.kind, mcp.action.tool.as_deref()),
            (ActionKind::Mcp, Some("mcp__linear__create_issue")),
            "an MCP tool, by server and tool"
        );
        assert_eq!(
            mcp.action.paths,
            ["/etc/shadow"],
            "its path arguments are paths"
        );
    }

    #[test]
    fn file_tools_carry_their_paths_and_edits() {
        let write = request(&with(
            "preToolUse",
            json!({"tool_name": "Write", "tool_use_id": "t1", "cwd": "/work/proj",
                   "tool_input": {"file_path": "/work/proj/a.txt", "contents": "hi\n"}}),
        ));
        assert_eq!(
            (write.action.kind, write.action.paths.clone()),
            (ActionKind::FileWrite, vec!["/work/proj/a.txt".to_owned()]),
            "a write names its file"
        );
        let delete = request(&with(
            "preToolUse",
            json!({"tool_name": "Delete", "tool_use_id": "t2", "cwd": "/work/proj",
                   "tool_input": {"path": "/work/proj/.cursor/hooks.json"}}),
        ));
        assert_eq!(
            (delete.action.kind, delete.action.paths.clone()),
            (
                ActionKind::Other,
                vec!["/work/proj/.cursor/hooks.json".to_owned()]
            ),
            "a tool Assent cannot name is other, its path still judged"
        );
        let shaped = claude_shaped(&with(
            "preToolUse",
            json!({"tool_name": "Shell", "tool_use_id": "t3", "cwd": "/work/proj",
                   "tool_input": {"command": "ls"}}),
        ));
        assert_eq!(
            claude_shaped(&shaped),
            shaped,
            "shaping twice changes nothing"
        );
    }
}
