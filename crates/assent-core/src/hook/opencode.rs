//! opencode tool calls (`tool.execute.before` / `.after` of the plugin `assent install opencode`
//! writes, opencode 1.18) read as Claude Code's.
//!
//! The plugin sends Claude Code's frame (`hook_event_name` `PreToolUse`/`PostToolUse`,
//! `session_id` = opencode's session, `tool_use_id` = its call id, `cwd` = the project,
//! `tool_name`, `tool_input` = the tool's arguments). [`claude_shaped`] renames opencode's tools
//! and camel-case arguments to the Claude Code tool that does the same (`bash` → `Bash` with
//! `workdir` as the cwd, `edit` → `Edit`, `write` → `Write`, `read` → `Read`, `glob`/`grep`/
//! `list` → `Glob`/`Grep`, `webfetch` → `WebFetch`), so one translation gives both agents the
//! same evidence. Any other tool (MCP tools included: opencode names them `<server>_<tool>`)
//! keeps its name and is judged as `other`, its path and URL arguments still seen.

use serde_json::{json, Map, Value};

use crate::hook::{action_from_claude_hook, HookDefaults, HookError};
use crate::request::ActionRequest;

/// `payload` with the tool and its arguments renamed as Claude Code's; the rest kept.
pub fn claude_shaped(payload: &Value) -> Value {
    let mut out = payload.clone();
    let Some(object) = out.as_object_mut() else {
        return out;
    };
    let tool = object
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let empty = Value::Object(Map::new());
    let input = object.get("tool_input").unwrap_or(&empty).clone();
    if !input.is_object() {
        return out;
    }
    let workdir = input
        .get("workdir")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty());
    if let (true, Some(dir)) = (tool == "bash", workdir) {
        let cwd = object.get("cwd").and_then(Value::as_str).unwrap_or("/");
        let dir = if dir.starts_with('/') {
            dir.to_owned()
        } else {
            format!("{}/{dir}", cwd.trim_end_matches('/'))
        };
        object.insert("cwd".into(), Value::String(dir));
    }
    let s = |field: &str| input.get(field).cloned().unwrap_or(Value::Null);
    let (name, args) = match tool.as_str() {
        "bash" => (
            "Bash",
            json!({ "command": s("command"), "description": s("description") }),
        ),
        "read" => ("Read", json!({ "file_path": s("filePath") })),
        "write" => (
            "Write",
            json!({ "file_path": s("filePath"), "content": s("content") }),
        ),
        "edit" => (
            "Edit",
            json!({ "file_path": s("filePath"), "old_string": s("oldString"),
                    "new_string": s("newString"), "replace_all": s("replaceAll") }),
        ),
        "glob" => (
            "Glob",
            json!({ "pattern": s("pattern"), "path": s("path") }),
        ),
        "grep" => (
            "Grep",
            json!({ "pattern": s("pattern"), "path": s("path"), "glob": s("include") }),
        ),
        "list" => ("Glob", json!({ "path": s("path") })),
        "webfetch" => ("WebFetch", json!({ "url": s("url") })),
        _ => return out,
    };
    let mut args = args;
    if let Some(map) = args.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    object.insert("tool_name".into(), Value::String(name.to_owned()));
    object.insert("tool_input".into(), args);
    out
}

/// The Claude Code tools [`claude_shaped`] gives opencode's built-in tools.
const SHAPED_TOOLS: [&str; 7] = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch"];

/// Translates the plugin's payload into an [`ActionRequest`] (through [`claude_shaped`], so a
/// payload the gate shaped already reads the same); a tool Claude Code has no name for is
/// `other`, with the paths and URLs of its arguments.
pub fn action_from_opencode_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let shaped = claude_shaped(payload);
    let known = shaped
        .get("tool_name")
        .and_then(Value::as_str)
        .is_some_and(|name| SHAPED_TOOLS.contains(&name));
    if known || !payload.get("tool_name").is_some_and(Value::is_string) {
        return action_from_claude_hook(&shaped, defaults);
    }
    other_tool(&shaped, defaults, "opencode")
}

/// A tool Claude Code has no name for, in a Claude-shaped `payload`: an `other` action named by
/// the tool, judged as an MCP tool's arguments are (the paths and URLs it names). `agent`
/// names the stand-in MCP server the arguments are read under.
pub(crate) fn other_tool(
    payload: &Value,
    defaults: &HookDefaults,
    agent: &str,
) -> Result<ActionRequest, HookError> {
    let mut as_mcp = payload.clone();
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if let Some(object) = as_mcp.as_object_mut() {
        object.insert(
            "tool_name".into(),
            Value::String(format!("mcp__{agent}__{tool}")),
        );
    }
    let mut request = action_from_claude_hook(&as_mcp, defaults)?;
    request.action.kind = crate::types::ActionKind::Other;
    request.action.tool = Some(tool);
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ActionKind;

    fn request(tool: &str, input: Value) -> ActionRequest {
        let payload = json!({
            "hook_event_name": "PreToolUse", "session_id": "ses_dccf", "tool_use_id": "call_0001",
            "cwd": "/work/proj", "tool_name": tool, "tool_input": input,
        });
        action_from_opencode_hook(&payload, &HookDefaults::default()).expect("translates")
    }

    #[test]
    fn each_builtin_tool_carries_the_evidence_claude_codes_does() {
        let shell = request(
            "bash",
            json!({"command": "ls", "workdir": "sub", "timeout": 1000}),
        );
        assert_eq!(shell.action.kind, ActionKind::Shell, "bash is a shell call");
        assert_eq!(
            shell.action.cwd, "/work/proj/sub",
            "workdir is where it runs"
        );
        assert_eq!(shell.run_id, "ses_dccf", "a run is opencode's session");
        assert_eq!(
            shell.idempotency_key.as_deref(),
            Some("call_0001"),
            "the call id is the key"
        );
        let edit = request(
            "edit",
            json!({"filePath": "/work/proj/a.rs", "oldString": "a", "newString": "b"}),
        );
        assert_eq!(
            edit.action.kind,
            ActionKind::FileWrite,
            "edit writes a file"
        );
        assert_eq!(
            edit.action.paths,
            ["/work/proj/a.rs"],
            "the edited file is the path"
        );
        let text = edit.context.edit.expect("the edit's text is evidence");
        assert_eq!(
            (text.old.as_deref(), text.new.as_str()),
            (Some("a"), "b"),
            "what it replaces"
        );
        let fetch = request(
            "webfetch",
            json!({"url": "http://169.254.169.254/", "format": "text"}),
        );
        assert_eq!(
            fetch.action.network,
            ["http://169.254.169.254/"],
            "the URL is the target"
        );
    }

    #[test]
    fn a_payload_shaped_already_reads_the_same() {
        let payload = json!({
            "hook_event_name": "PreToolUse", "session_id": "ses_dccf", "tool_use_id": "call_0001",
            "cwd": "/work/proj", "tool_name": "bash", "tool_input": {"command": "cat notes.txt"},
        });
        let defaults = HookDefaults::default();
        let once = action_from_opencode_hook(&payload, &defaults).expect("translates");
        let twice =
            action_from_opencode_hook(&claude_shaped(&payload), &defaults).expect("translates");
        assert_eq!(
            (twice.action.kind, &twice.action),
            (ActionKind::Shell, &once.action),
            "the gate shapes the payload before translating it: a second shaping must not \
             turn a shell call into an unknown tool"
        );
    }

    #[test]
    fn another_tool_is_other_with_its_paths_seen() {
        let other = request(
            "github_create_issue",
            json!({"title": "x", "path": "/etc/shadow"}),
        );
        assert_eq!(
            (other.action.kind, other.action.tool.as_deref()),
            (ActionKind::Other, Some("github_create_issue")),
            "a tool Assent cannot name is judged as other, by its name"
        );
        assert_eq!(
            other.action.paths,
            ["/etc/shadow"],
            "its path arguments are judged as paths"
        );
    }
}
