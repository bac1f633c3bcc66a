//! Gemini CLI hook payloads (`BeforeTool` / `AfterTool`, Gemini CLI 0.61) read as Claude Code's.
//!
//! Gemini's payload has Claude Code's frame (`session_id`, `cwd`, `hook_event_name`,
//! `tool_name`, `tool_input`) with Gemini's tool names and arguments, and no tool-call id.
//! [`claude_shaped`] renames each built-in tool and its arguments to the Claude Code tool that
//! does the same (`run_shell_command` → `Bash`, `replace` → `Edit`, `write_file` → `Write`,
//! `read_file` → `Read`, `glob`/`grep_search`/`list_directory` → `Glob`/`Grep`, `web_fetch` →
//! `WebFetch`, `google_web_search` → `WebSearch`, `mcp_<server>_<tool>` → `mcp__<server>__<tool>`),
//! so one translation ([`action_from_claude_hook`]) and one diff reader give both agents the same
//! evidence; and it adds a `tool_use_id` derived from the call ([`call_key`]). A tool it does not
//! know keeps its name and becomes an `other` action.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::hook::{action_from_claude_hook, HookDefaults, HookError};
use crate::request::ActionRequest;

/// Most URLs taken from a `web_fetch` prompt (Gemini fetches at most 20).
const MAX_FETCH_URLS: usize = 20;

/// `payload` with the tool and its arguments renamed as Claude Code's, and a `tool_use_id`.
/// The rest of the payload (session, cwd, event, timestamp) is kept as it is. A payload shaped
/// already comes out the same (Claude Code's names are not Gemini's).
pub fn claude_shaped(payload: &Value) -> Value {
    let mut out = payload.clone();
    let Some(object) = out.as_object_mut() else {
        return out;
    };
    if !object.contains_key("tool_use_id") {
        object.insert("tool_use_id".into(), Value::String(call_key(payload)));
    }
    let tool = object
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let empty = Value::Object(Map::new());
    let input = object.get("tool_input").unwrap_or(&empty).clone();
    if !input.is_object() {
        return out; // the translation says what is wrong with it
    }
    if let Some(dir) = shell_dir(&tool, &input, object.get("cwd")) {
        object.insert("cwd".into(), Value::String(dir));
    }
    let (name, args) = renamed(&tool, &input, object.get("mcp_context"));
    object.insert("tool_name".into(), Value::String(name));
    object.insert("tool_input".into(), args);
    out
}

/// Translates a Gemini CLI hook payload into an [`ActionRequest`] (through [`claude_shaped`]);
/// a `web_fetch` reaches every URL its prompt names.
pub fn action_from_gemini_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let shaped = claude_shaped(payload);
    let mut request = action_from_claude_hook(&shaped, defaults)?;
    let urls = shaped.pointer("/tool_input/urls").and_then(Value::as_array);
    if let Some(urls) = urls.filter(|list| !list.is_empty()) {
        request.action.network = urls
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    Ok(request)
}

/// The id of one tool call, which Gemini's payload lacks: the SHA-256 of the session, the
/// event's timestamp (milliseconds, one per call), the tool and its canonical arguments. Equal
/// calls at different moments get different keys, so each is its own submission (and equal
/// ones join one prompt); a replayed payload gets the same key.
pub fn call_key(payload: &Value) -> String {
    let field = |name: &str| {
        payload
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let input = payload.get("tool_input").cloned().unwrap_or(Value::Null);
    let text = format!(
        "{}\n{}\n{}\n{}",
        field("session_id"),
        field("timestamp"),
        field("tool_name"),
        crate::request::canon::canonical_json(&input)
    );
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    format!("gemini-{}", digest.get(..32).unwrap_or(&digest))
}

/// Where a shell call runs: `dir_path` (relative to `cwd`) when the model gives one.
fn shell_dir(tool: &str, input: &Value, cwd: Option<&Value>) -> Option<String> {
    if tool != "run_shell_command" {
        return None;
    }
    let dir = input.get("dir_path").and_then(Value::as_str)?;
    if dir.is_empty() {
        return None;
    }
    if dir.starts_with('/') {
        return Some(dir.to_owned());
    }
    let cwd = cwd.and_then(Value::as_str)?;
    Some(format!("{}/{dir}", cwd.trim_end_matches('/')))
}

/// The Claude Code tool and arguments that do what Gemini's `tool` does with `input`.
fn renamed(tool: &str, input: &Value, mcp: Option<&Value>) -> (String, Value) {
    let s = |field: &str| input.get(field).cloned().unwrap_or(Value::Null);
    let (name, args) = match tool {
        "run_shell_command" => (
            "Bash",
            json!({ "command": s("command"), "description": s("description") }),
        ),
        "read_file" => ("Read", json!({ "file_path": s("file_path") })),
        "read_many_files" => ("Glob", json!({ "pattern": first_include(input) })),
        "list_directory" => ("Glob", json!({ "path": s("dir_path") })),
        "glob" => (
            "Glob",
            json!({ "pattern": s("pattern"), "path": s("dir_path") }),
        ),
        "grep_search" => (
            "Grep",
            json!({ "pattern": s("pattern"), "path": s("dir_path"), "glob": s("include_pattern") }),
        ),
        "write_file" => (
            "Write",
            json!({ "file_path": s("file_path"), "content": s("content") }),
        ),
        "replace" => (
            "Edit",
            json!({
                "file_path": s("file_path"), "old_string": s("old_string"),
                "new_string": s("new_string"), "replace_all": s("allow_multiple"),
                "description": s("instruction"),
            }),
        ),
        "web_fetch" => {
            let prompt = input
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let urls = urls_in(prompt);
            let url = urls
                .first()
                .cloned()
                .unwrap_or_else(|| "web-fetch".to_owned());
            (
                "WebFetch",
                json!({ "url": url, "urls": urls, "prompt": prompt }),
            )
        }
        "google_web_search" => ("WebSearch", json!({ "query": s("query") })),
        name if name.starts_with("mcp_") => return (mcp_name(name, mcp), input.clone()),
        other => return (other.to_owned(), input.clone()),
    };
    (name.to_owned(), without_nulls(args))
}

/// `mcp__<server>__<tool>` from the payload's `mcp_context`, else from the name alone.
fn mcp_name(name: &str, mcp: Option<&Value>) -> String {
    let part = |field: &str| {
        mcp.and_then(|m| m.get(field))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match (part("server_name"), part("tool_name")) {
        (Some(server), Some(tool)) => format!("mcp__{server}__{tool}"),
        _ => format!("mcp__{}", name.trim_start_matches("mcp_")),
    }
}

fn first_include(input: &Value) -> Value {
    input
        .get("include")
        .and_then(Value::as_array)
        .and_then(|list| list.first())
        .cloned()
        .unwrap_or(Value::Null)
}

/// The `http(s)://` URLs in `text`, each once, up to [`MAX_FETCH_URLS`].
fn urls_in(text: &str) -> Vec<String> {
    let mut urls: Vec<String> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "<>\"'()[]{}".contains(c)) {
        let lower = word.get(..8).unwrap_or(word).to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            continue;
        }
        let url = word.trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if url.len() <= 4096 && !urls.iter().any(|u| u == url) {
            urls.push(url.to_owned());
        }
        if urls.len() >= MAX_FETCH_URLS {
            break;
        }
    }
    urls
}

fn without_nulls(mut args: Value) -> Value {
    if let Some(map) = args.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ActionKind;

    fn payload(tool: &str, input: Value) -> Value {
        json!({
            "session_id": "089c9ef3", "transcript_path": "/h/.gemini/tmp/ws/chats/s.jsonl",
            "cwd": "/work/proj", "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-01T19:01:53.188Z", "tool_name": tool, "tool_input": input,
        })
    }

    fn request(tool: &str, input: Value) -> ActionRequest {
        action_from_gemini_hook(&payload(tool, input), &HookDefaults::default())
            .expect("the payload translates")
    }

    #[test]
    fn each_builtin_tool_carries_the_evidence_claude_codes_does() {
        let shell = request(
            "run_shell_command",
            json!({"command": "ls -la", "description": "list", "dir_path": "sub"}),
        );
        assert_eq!(
            shell.action.kind,
            ActionKind::Shell,
            "the shell tool is a shell call"
        );
        assert_eq!(
            shell.action.command.as_deref(),
            Some("ls -la"),
            "the command is judged"
        );
        assert_eq!(
            shell.action.cwd, "/work/proj/sub",
            "dir_path is where the command runs"
        );
        assert_eq!(shell.reason, "list", "the description is the reason");
        assert_eq!(shell.run_id, "089c9ef3", "a run is the agent's session");

        let edit = request(
            "replace",
            json!({"file_path": "a.txt", "old_string": "x", "new_string": "y", "instruction": "fix"}),
        );
        assert_eq!(
            edit.action.kind,
            ActionKind::FileWrite,
            "replace writes a file"
        );
        let text = edit.context.edit.expect("the edit's text is evidence");
        assert_eq!(
            (text.old.as_deref(), text.new.as_str()),
            (Some("x"), "y"),
            "what it replaces"
        );

        let write = request(
            "write_file",
            json!({"file_path": "/work/proj/n.txt", "content": "hi"}),
        );
        assert_eq!(
            write.action.paths,
            ["/work/proj/n.txt"],
            "the written file is the path"
        );
        assert!(
            write.context.diff_fingerprint.is_some(),
            "a grant for one write must not cover another"
        );

        let read = request("read_file", json!({"file_path": "/etc/passwd"}));
        assert_eq!(
            (read.action.kind, read.action.paths.clone()),
            (ActionKind::FileRead, vec!["/etc/passwd".to_owned()]),
            "a read names its file"
        );

        let grep = request(
            "grep_search",
            json!({"pattern": "x", "dir_path": "src", "include_pattern": "*.rs"}),
        );
        assert_eq!(
            grep.action.paths,
            ["src", "src/*.rs"],
            "a search reads below its directory"
        );

        let fetch = request(
            "web_fetch",
            json!({"prompt": "summarise https://example.org/a and http://169.254.169.254/latest."}),
        );
        assert_eq!(
            fetch.action.kind,
            ActionKind::Network,
            "a fetch reaches the network"
        );
        assert_eq!(
            fetch.action.network,
            ["https://example.org/a", "http://169.254.169.254/latest"],
            "the URLs the prompt names are the targets"
        );
    }

    #[test]
    fn a_fetch_reaches_every_url_of_its_prompt() {
        let fetch = request(
            "web_fetch",
            json!({"prompt": "compare https://example.org/a with http://169.254.169.254/latest."}),
        );
        let shaped = claude_shaped(&payload(
            "web_fetch",
            json!({"prompt": "compare https://example.org/a with http://169.254.169.254/latest."}),
        ));
        assert_eq!(
            shaped["tool_input"]["urls"],
            json!(["https://example.org/a", "http://169.254.169.254/latest"]),
            "every URL is found, trailing punctuation cut"
        );
        assert_eq!(
            fetch.action.network,
            ["https://example.org/a", "http://169.254.169.254/latest"],
            "the fetch is judged on every URL, so the metadata endpoint's block applies"
        );
    }

    #[test]
    fn mcp_tools_are_named_by_their_server_and_tool() {
        let mut call = payload(
            "mcp_github_create_issue",
            json!({"title": "x", "path": "/etc"}),
        );
        call["mcp_context"] = json!({"server_name": "github", "tool_name": "create_issue"});
        let request = action_from_gemini_hook(&call, &HookDefaults::default()).expect("translates");
        assert_eq!(
            request.action.kind,
            ActionKind::Mcp,
            "an MCP tool is an MCP call"
        );
        assert_eq!(
            request.action.tool.as_deref(),
            Some("mcp__github__create_issue"),
            "named as Claude Code names it"
        );
        assert_eq!(
            request.action.paths,
            ["/etc"],
            "its path arguments are judged as paths"
        );
    }

    #[test]
    fn the_call_key_is_one_per_call() {
        let a = payload("run_shell_command", json!({"command": "ls"}));
        let mut later = a.clone();
        later["timestamp"] = json!("2026-12-01T19:01:53.189Z");
        assert_eq!(
            call_key(&a),
            call_key(&a.clone()),
            "a replay of one payload is one call"
        );
        assert_ne!(
            call_key(&a),
            call_key(&later),
            "an equal call a moment later is another call"
        );
        assert_eq!(
            request("run_shell_command", json!({"command": "ls"})).idempotency_key,
            Some(call_key(&a)),
            "the derived id is the request's idempotency key"
        );
    }

    #[test]
    fn an_unknown_tool_keeps_its_name_and_bad_input_is_refused() {
        let other = request("update_topic", json!({"topic": "x"}));
        assert_eq!(
            (other.action.kind, other.action.tool.as_deref()),
            (ActionKind::Other, Some("update_topic")),
            "a tool Assent does not know is judged as other, by its name"
        );
        let bad = action_from_gemini_hook(
            &payload("run_shell_command", json!("ls")),
            &HookDefaults::default(),
        );
        assert!(
            bad.is_err(),
            "tool_input that is not an object is not a request"
        );
        let missing = action_from_gemini_hook(
            &payload("run_shell_command", json!({})),
            &HookDefaults::default(),
        );
        assert_eq!(
            missing.err(),
            Some(HookError::Missing("tool_input.command")),
            "a shell call without its command says what is missing"
        );
    }
}
