//! Claude Code hook payloads (`PreToolUse` JSON on a hook's stdin) turned into requests.
//!
//! Pure translation, shared by `assent policy eval` and `assent gate claude`: the tool name
//! picks the action kind, the tool input gives the command, paths or network targets,
//! `session_id` becomes the run, `tool_use_id` the idempotency key. The repository is left
//! to the caller (it knows the git root); pass it in [`HookDefaults::repo`].

pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod opencode;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::request::{Action, ActionContext, ActionRequest, EditText, MAX_EDIT_BYTES};
use crate::types::{ActionKind, RequestedBy};

/// What the payload does not say, supplied by the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookDefaults {
    /// The task id; the session id when `None`.
    pub task_id: Option<String>,
    /// The repository root (absolute path) or name, copied into the request's context.
    pub repo: Option<String>,
    /// Used when the payload carries no `cwd`; must be absolute.
    pub cwd: Option<String>,
}

/// Why a payload cannot become a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    #[error("the payload is not a JSON object")]
    NotAnObject,
    #[error("the payload has no {0:?}")]
    Missing(&'static str),
    #[error("{field:?} must be a {expected}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
    },
}

/// Whether `payload` looks like a Claude Code hook payload (rather than a native request).
pub fn is_claude_hook(payload: &Value) -> bool {
    payload.get("hook_event_name").is_some() && payload.get("tool_name").is_some()
}

/// Translates a Claude Code hook payload into an [`ActionRequest`].
///
/// Bash → `shell` (the command line), Read/Glob/Grep → `file_read` (Glob's pattern and Grep's
/// glob below the root as a path too), Write/Edit/MultiEdit/
/// NotebookEdit → `file_write` (the tool input's SHA-256 as `context.diff_fingerprint`, so a
/// grant for one edit never covers another — the gate, which reads the file, replaces it with
/// the SHA-256 of the edit's unified diff ([`crate::diff`]); the text of an Edit, MultiEdit,
/// Write or NotebookEdit as `context.edit`, so the policy sees what it changes), WebFetch/WebSearch → `network`, `mcp__*` → `mcp` (the arguments that are paths as its
/// paths);
/// any other tool → `other` with its name in `action.tool`.
pub fn action_from_claude_hook(
    payload: &Value,
    defaults: &HookDefaults,
) -> Result<ActionRequest, HookError> {
    let object = payload.as_object().ok_or(HookError::NotAnObject)?;
    let tool_name = str_field(object.get("tool_name"), "tool_name")?;
    let session = str_field(object.get("session_id"), "session_id")?;
    let cwd = match object.get("cwd") {
        Some(v) => str_field(Some(v), "cwd")?.to_owned(),
        None => defaults.cwd.clone().ok_or(HookError::Missing("cwd"))?,
    };
    let empty = Value::Object(serde_json::Map::new());
    let input = object.get("tool_input").unwrap_or(&empty);
    if !input.is_object() {
        return Err(HookError::WrongType {
            field: "tool_input",
            expected: "JSON object",
        });
    }
    let tool_use_id = object
        .get("tool_use_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (action, diff_fingerprint) = action_for_tool(tool_name, input, cwd)?;
    let edit = edit_text(tool_name, input);
    let reason = input
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(ActionRequest {
        run_id: session.to_owned(),
        task_id: defaults
            .task_id
            .clone()
            .unwrap_or_else(|| session.to_owned()),
        requested_by: RequestedBy::Agent,
        idempotency_key: tool_use_id,
        action,
        context: ActionContext {
            repo: defaults.repo.clone(),
            diff_fingerprint,
            edit,
            ..ActionContext::default()
        },
        reason,
    })
}

fn action_for_tool(
    tool: &str,
    input: &Value,
    cwd: String,
) -> Result<(Action, Option<String>), HookError> {
    let mut action = Action {
        kind: ActionKind::Other,
        command: None,
        argv: None,
        cwd,
        paths: Vec::new(),
        network: Vec::new(),
        credential_scope: None,
        tool: Some(tool.to_owned()),
    };
    let mut fingerprint = None;
    match tool {
        "Bash" => {
            action.kind = ActionKind::Shell;
            action.command =
                Some(str_field(input.get("command"), "tool_input.command")?.to_owned());
            action.tool = None;
        }
        "Read" => {
            action.kind = ActionKind::FileRead;
            action.paths =
                vec![str_field(input.get("file_path"), "tool_input.file_path")?.to_owned()];
        }
        "Glob" | "Grep" => {
            action.kind = ActionKind::FileRead;
            let root = input.get("path").and_then(Value::as_str).unwrap_or(".");
            action.paths = vec![root.to_owned()];
            // The pattern Glob lists and the glob Grep reads are paths below the root.
            let field = if tool == "Glob" { "pattern" } else { "glob" };
            if let Some(glob) = input.get(field).and_then(Value::as_str) {
                action.paths.push(below(root, glob));
            }
        }
        "Write" | "Edit" | "MultiEdit" => {
            action.kind = ActionKind::FileWrite;
            action.paths =
                vec![str_field(input.get("file_path"), "tool_input.file_path")?.to_owned()];
            fingerprint = Some(content_fingerprint(input));
        }
        "NotebookEdit" => {
            action.kind = ActionKind::FileWrite;
            let path = str_field(input.get("notebook_path"), "tool_input.notebook_path")?;
            action.paths = vec![path.to_owned()];
            fingerprint = Some(content_fingerprint(input));
        }
        "WebFetch" => {
            action.kind = ActionKind::Network;
            action.network = vec![str_field(input.get("url"), "tool_input.url")?.to_owned()];
        }
        "WebSearch" => {
            action.kind = ActionKind::Network;
            action.network = web_search_targets(input);
        }
        name if name.starts_with("mcp__") => {
            action.kind = ActionKind::Mcp;
            let mut found = ToolArguments::default();
            found.collect(input, None, 0);
            action.paths = found.paths;
            action.network = found.urls;
        }
        _ => {}
    }
    Ok((action, fingerprint))
}

/// `glob` below `root`, unless it is absolute or under home already.
fn below(root: &str, glob: &str) -> String {
    if glob.starts_with('/') || glob.starts_with('~') {
        glob.to_owned()
    } else {
        format!("{}/{glob}", root.trim_end_matches('/'))
    }
}

/// Most paths and URLs taken from an MCP tool's arguments, and how deep its JSON is searched.
const MAX_TOOL_PATHS: usize = 64;
const MAX_TOOL_DEPTH: usize = 6;

/// The arguments of an MCP tool that are paths, so the path rules judge them as any path: a
/// string under a key that names a path (`path`, `file_path`, `paths`, `directory`, `uri`, …)
/// or one written as a path wherever it is (`/…`, `~/…`, `./…`, `../…`, `file://…`); and the
/// URLs it names (`http://…`), so the network rules that block (the metadata endpoint,
/// Assent's own routes) see them.
#[derive(Default)]
struct ToolArguments {
    paths: Vec<String>,
    urls: Vec<String>,
}

impl ToolArguments {
    fn collect(&mut self, value: &Value, key: Option<&str>, depth: usize) {
        if depth > MAX_TOOL_DEPTH || self.paths.len() + self.urls.len() >= MAX_TOOL_PATHS {
            return;
        }
        match value {
            Value::String(text) => {
                let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
                if lower.starts_with("http://") || lower.starts_with("https://") {
                    if text.len() <= 4096 {
                        self.urls.push(text.clone());
                    }
                } else if let Some(path) = as_path(text, key.is_some_and(names_path)) {
                    self.paths.push(path.to_owned());
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.collect(item, key, depth + 1);
                }
            }
            Value::Object(fields) => {
                for (k, v) in fields {
                    self.collect(v, Some(k), depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// Whether an argument's name says it holds a path.
fn names_path(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "path",
        "file",
        "dir",
        "folder",
        "root",
        "source",
        "destination",
        "target",
        "uri",
        "location",
        "cwd",
    ]
    .iter()
    .any(|n| key.contains(n))
}

/// `text` as a path: written as one, or any plain word under a key that names a path.
fn as_path(text: &str, path_key: bool) -> Option<&str> {
    if text.is_empty() || text.len() > 4096 || text.contains('\n') {
        return None;
    }
    if let Some(rest) = text.strip_prefix("file://") {
        return Some(rest);
    }
    if text.contains("://") {
        return None;
    }
    let written = ["/", "~/", "./", "../"].iter().any(|p| text.starts_with(p)) || text == "~";
    (written || path_key).then_some(text)
}

/// The text an Edit, MultiEdit, Write or NotebookEdit writes (and what it replaces), cut to
/// [`MAX_EDIT_BYTES`] per side.
fn edit_text(tool: &str, input: &Value) -> Option<EditText> {
    let (old, new) = match tool {
        "Write" => (None, text(input, "content").to_owned()),
        // The cell's new source; what it replaces is in the notebook, not the input.
        "NotebookEdit" => (None, text(input, "new_source").to_owned()),
        "Edit" => (
            Some(text(input, "old_string").to_owned()),
            text(input, "new_string").to_owned(),
        ),
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array);
            let joined = |field: &str| {
                edits
                    .into_iter()
                    .flatten()
                    .map(|e| text(e, field))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            (Some(joined("old_string")), joined("new_string"))
        }
        _ => return None,
    };
    let mut truncated = false;
    let mut cut = |s: String| {
        let (kept, was_cut) = cut_to(s, MAX_EDIT_BYTES);
        truncated |= was_cut;
        kept
    };
    let old = old.map(&mut cut);
    let new = cut(new);
    Some(EditText {
        old,
        new,
        truncated,
    })
}

/// The string `field` of `value`, empty when absent.
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or_default()
}

/// `text` cut to at most `limit` bytes on a character boundary, and whether it was cut.
pub(crate) fn cut_to(mut text: String, limit: usize) -> (String, bool) {
    let (kept, cut) = crate::text::cut_bytes(&text, limit);
    let end = kept.len();
    text.truncate(end);
    (text, cut)
}

/// WebSearch reaches the allowed domains when it names them, else the search engine.
fn web_search_targets(input: &Value) -> Vec<String> {
    let domains: Vec<String> = input
        .get("allowed_domains")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if domains.is_empty() {
        vec!["web-search".to_owned()]
    } else {
        domains
    }
}

/// SHA-256 of the tool input's canonical JSON.
pub(crate) fn content_fingerprint(input: &Value) -> String {
    hex::encode(Sha256::digest(
        crate::request::canon::canonical_json(input).as_bytes(),
    ))
}

pub(crate) fn str_field<'a>(
    value: Option<&'a Value>,
    field: &'static str,
) -> Result<&'a str, HookError> {
    match value {
        None | Some(Value::Null) => Err(HookError::Missing(field)),
        Some(v) => v.as_str().ok_or(HookError::WrongType {
            field,
            expected: "string",
        }),
    }
}
