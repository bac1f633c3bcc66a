//! GitHub Copilot CLI hook payloads (`.github/hooks/*.json`, `$COPILOT_HOME/hooks/*.json`;
//! Copilot CLI 1.0.102) read as Claude Code's.
//!
//! Copilot sends one of two formats, chosen by how the event is spelled in the hook file
//! (GitHub's "CLI hooks reference"; both observed with 1.0.102): camelCase (`preToolUse`:
//! `{sessionId, timestamp, cwd, toolName, toolArgs}` with no event name, `toolArgs` an object
//! in 1.0.102 and a JSON string in GitHub's older "Hooks configuration" page), or, for the
//! PascalCase spelling (`PreToolUse`), snake_case with `hook_event_name`, `session_id`,
//! `tool_name` (then Claude Code's names: `Bash`, `Read`, `Write`, `Edit` …) and `tool_input`
//! (Copilot's own argument names). [`claude_shaped`] reads both: the event (named, or told by
//! the fields camelCase carries: `toolResult` after a tool, `toolName` before one, `reason` at
//! the session's end), the session, and each built-in tool renamed to the Claude Code tool that
//! does the same (`bash` → `Bash`, `view` → `Read`, `create` → `Write`, `edit` → `Edit`,
//! `glob`/`grep`, `web_fetch` → `WebFetch`), its arguments too (`path` → `file_path`,
//! `file_text` → `content`, `old_str`/`new_str`). The payload has no tool-call id, so a
//! `tool_use_id` is derived ([`call_key`]). Any other tool keeps its name and is `other`.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::hook::opencode::other_tool;
use crate::hook::{action_from_claude_hook, HookDefaults, HookError};
use crate::request::ActionRequest;

/// The Claude Code tools [`claude_shaped`] gives Copilot's built-in tools.
const SHAPED_TOOLS: [&str; 7] = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch"];

/// The Claude Code event for Copilot's: named (either spelling), or told by the fields a
/// camelCase payload carries.
pub fn event(payload: &Value) -> &'static str {
    let named = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    match named.as_deref() {
        Some("pretooluse") => "PreToolUse",
        Some("posttooluse") => "PostToolUse",
        Some("sessionend") => "SessionEnd",
        Some(_) => "",
        None if payload.get("toolResult").is_some() => "PostToolUse",
        None if payload.get("toolName").is_some() => "PreToolUse",
        None if payload.get("reason").is_some() => "SessionEnd",
        None => "",
    }
}

/// `payload` in Claude Code's frame and names, with a `tool_use_id`; the rest kept. A payload
/// shaped already comes out the same.
pub fn claude_shaped(payload: &Value) -> Value {
    let Some(object) = payload.as_object() else {
        return payload.clone();
    };
    let mut out = object.clone();
    let field = |camel: &str, snake: &str| object.get(snake).or_else(|| object.get(camel)).cloned();
    let event = event(payload);
    if !event.is_empty() {
        out.insert("hook_event_name".into(), Value::String(event.to_owned()));
    }
    if let Some(session) = field("sessionId", "session_id") {
        out.insert("session_id".into(), session);
    }
    let Some(tool) = field("toolName", "tool_name") else {
        return Value::Object(out);
    };
    let input = match field("toolArgs", "tool_input") {
        // Older Copilot CLIs send the arguments as a JSON string.
        Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        Some(other) => other,
        None => Value::Object(Map::new()),
    };
    let tool = tool.as_str().unwrap_or_default().to_owned();
    let (name, args) = renamed(&tool, &input);
    out.insert("tool_name".into(), Value::String(name));
    out.insert("tool_input".into(), args);
    if !out.contains_key("tool_use_id") {
        out.insert(
            "tool_use_id".into(),
            Value::String(call_key(&Value::Object(out.clone()))),
        );
    }
    Value::Object(out)
}

/// The Claude Code tool and arguments that do what Copilot's `tool` does with `input`.
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
    let first = |names: &[&str]| match pick(names) {
        Value::Array(list) => list.into_iter().next().unwrap_or(Value::Null),
        other => other,
    };
    let (name, args) = match tool.to_ascii_lowercase().as_str() {
        "bash" | "powershell" => (
            "Bash",
            json!({ "command": pick(&["command"]), "description": pick(&["description"]) }),
        ),
        "view" | "read" => ("Read", json!({ "file_path": pick(&["path", "file_path"]) })),
        "create" | "write" => (
            "Write",
            json!({ "file_path": pick(&["path", "file_path"]),
                    "content": pick(&["file_text", "content"]) }),
        ),
        "edit" => (
            "Edit",
            json!({ "file_path": pick(&["path", "file_path"]),
                    "old_string": pick(&["old_str", "old_string"]),
                    "new_string": pick(&["new_str", "new_string"]) }),
        ),
        "glob" => (
            "Glob",
            json!({ "pattern": pick(&["pattern"]), "path": first(&["paths", "path"]) }),
        ),
        "grep" => (
            "Grep",
            json!({ "pattern": pick(&["pattern"]), "path": first(&["paths", "path"]),
                    "glob": pick(&["glob"]) }),
        ),
        "web_fetch" | "webfetch" => ("WebFetch", json!({ "url": pick(&["url"]) })),
        _ => return (tool.to_owned(), input.clone()),
    };
    let mut args = args;
    if let Some(map) = args.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    (name.to_owned(), args)
}

/// The id of one tool call, which Copilot's payload lacks: the SHA-256 of the session, the
/// event's timestamp, the tool and its canonical arguments. Copilot gives the calls of one
/// turn one timestamp, so the gate adds what makes each submission its own.
pub fn call_key(payload: &Value) -> String {
    let text = |name: &str| match payload.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let joined = format!(
        "{}\n{}\n{}\n{}",
        text("session_id"),
        text("timestamp"),
        text("tool_name"),
        crate::request::canon::canonical_json(&input)
    );
    let digest = hex::encode(Sha256::digest(joined.as_bytes()));
    format!("copilot-{}", digest.get(..32).unwrap_or(&digest))
}

/// Translates a Copilot CLI hook payload into an [`ActionRequest`] (through [`claude_shaped`]);
/// a tool Claude Code has no name for is `other`, with the paths and URLs of its arguments.
pub fn action_from_copilot_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let shaped = claude_shaped(payload);
    let known = shaped
        .get("tool_name")
        .and_then(Value::as_str)
        .is_some_and(|name| SHAPED_TOOLS.contains(&name));
    if known || !shaped.get("tool_name").is_some_and(Value::is_string) {
        return action_from_claude_hook(&shaped, defaults);
    }
    other_tool(&shaped, defaults, "copilot")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ActionKind;

    /// camelCase `preToolUse`, exactly as Copilot CLI 1.0.102 sent it (observed).
    fn camel(tool: &str, args: Value) -> Value {
        json!({"sessionId": "72d957a4-44a0-4cd6-91b2-a196bcd8ca4f", "timestamp": 1796286216814_u64,
               "cwd": "/work/proj", "toolName": tool, "toolArgs": args})
    }

    fn request(payload: &Value) -> ActionRequest {
        action_from_copilot_hook(payload, &HookDefaults::default()).expect("translates")
    }

    #[test]
    fn both_formats_and_a_string_of_arguments_read_the_same() {
        let args = json!({"command": "git push origin main", "description": "push"});
        let object = request(&camel("bash", args.clone()));
        let string = request(&camel("bash", Value::String(args.to_string())));
        let pascal = request(&json!({
            "hook_event_name": "PreToolUse", "session_id": "72d957a4-44a0-4cd6-91b2-a196bcd8ca4f",
            "timestamp": "2026-12-03T08:29:53.805Z", "cwd": "/work/proj",
            "tool_name": "Bash", "tool_input": args,
        }));
        assert_eq!(
            object.action.kind,
            ActionKind::Shell,
            "bash is a shell call"
        );
        assert_eq!(
            object.run_id, "72d957a4-44a0-4cd6-91b2-a196bcd8ca4f",
            "a run is Copilot's session"
        );
        assert_eq!(
            (&string.action, &pascal.action),
            (&object.action, &object.action),
            "toolArgs as a JSON string (older Copilot) and the PascalCase format are the same call"
        );
    }

    #[test]
    fn each_builtin_tool_carries_the_evidence_claude_codes_does() {
        let create = request(&camel(
            "create",
            json!({"path": "/work/proj/a.txt", "file_text": "hi\n"}),
        ));
        assert_eq!(
            create.action.kind,
            ActionKind::FileWrite,
            "create writes a file"
        );
        assert_eq!(
            create.action.paths,
            ["/work/proj/a.txt"],
            "the file is the path"
        );
        let edit = request(&camel(
            "edit",
            json!({"path": "/work/proj/a.rs", "old_str": "a", "new_str": "b"}),
        ));
        let text = edit.context.edit.expect("the edit's text is evidence");
        assert_eq!(
            (text.old.as_deref(), text.new.as_str()),
            (Some("a"), "b"),
            "what it replaces"
        );
        let view = request(&camel("view", json!({"path": "/etc/passwd"})));
        assert_eq!(
            (view.action.kind, view.action.paths.clone()),
            (ActionKind::FileRead, vec!["/etc/passwd".to_owned()]),
            "view reads its path"
        );
        let fetch = request(&camel(
            "web_fetch",
            json!({"url": "http://169.254.169.254/"}),
        ));
        assert_eq!(
            fetch.action.network,
            ["http://169.254.169.254/"],
            "the URL is the target"
        );
        let other = request(&camel("sql", json!({"query": "DROP TABLE todos"})));
        assert_eq!(
            (other.action.kind, other.action.tool.as_deref()),
            (ActionKind::Other, Some("sql")),
            "a tool Assent cannot name is judged as other, by its name"
        );
    }

    #[test]
    fn the_event_is_told_by_the_fields_and_shaping_twice_changes_nothing() {
        let pre = camel("bash", json!({"command": "ls"}));
        let post = json!({"sessionId": "s", "timestamp": 1, "cwd": "/w", "toolName": "bash",
            "toolArgs": {"command": "ls"}, "toolResult": {"resultType": "success", "textResultForLlm": ""}});
        let end = json!({"sessionId": "s", "timestamp": 1, "cwd": "/w", "reason": "complete"});
        assert_eq!(
            [event(&pre), event(&post), event(&end)],
            ["PreToolUse", "PostToolUse", "SessionEnd"],
            "camelCase payloads carry no event name; their fields tell it"
        );
        let once = claude_shaped(&pre);
        assert_eq!(
            claude_shaped(&once),
            once,
            "the gate shapes once, translation again"
        );
        assert!(
            once["tool_use_id"]
                .as_str()
                .is_some_and(|k| k.starts_with("copilot-")),
            "a call key is derived: {once}"
        );
    }
}
