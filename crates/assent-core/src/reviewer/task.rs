//! The task the person gave the agent, as the model reviewer may read it (`share_task`): the
//! person's own last turns in the agent's transcript — never the agent's words or a tool's
//! output — capped and masked.

use serde_json::Value;

use crate::request::{MAX_TASK_TURNS, MAX_TASK_TURN_CHARS};

/// Markers of what Claude Code writes as a user line but the person did not type: a slash
/// command's expansion and output, an interruption notice.
const NOT_TYPED: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "[Request interrupted",
];

/// The person's turns in a Claude Code transcript (JSON Lines, `transcript_path` of a hook
/// payload), oldest first: the last [`MAX_TASK_TURNS`], each masked and cut to [`MAX_TASK_TURN_CHARS`]
/// characters. A user line counts when it is the person's own text: not a tool's
/// result, not a meta or side-chain (sub-agent) line, not a command's expansion. Lines that do
/// not parse (the cut first line of a file's tail) are skipped.
pub fn claude_code_turns(jsonl: &str) -> Vec<String> {
    // Only a line naming a "user" can be one; a tool's result never is (most of a transcript's
    // bytes): skipped before parsing, so the gate reads a long transcript quickly.
    let turns: Vec<String> = jsonl
        .lines()
        .filter(|line| line.contains("\"user\"") && !line.contains("\"tool_result\""))
        .filter_map(person_turn)
        .collect();
    turns
        .into_iter()
        .rev()
        .take(MAX_TASK_TURNS)
        .rev()
        .map(|turn| crate::text::clip(&crate::mask::mask_secrets(&turn), MAX_TASK_TURN_CHARS))
        .collect()
}

/// The text of one transcript line when the person wrote it.
fn person_turn(line: &str) -> Option<String> {
    let line: Value = serde_json::from_str(line).ok()?;
    let flag = |name: &str| line.get(name).and_then(Value::as_bool) == Some(true);
    if line.get("type").and_then(Value::as_str) != Some("user")
        || flag("isMeta")
        || flag("isSidechain")
        || flag("isCompactSummary")
    {
        return None;
    }
    let message = line.get("message")?;
    if message.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    let text = match message.get("content")? {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
            if blocks.iter().any(|b| kind(b).as_deref() != Some("text")) {
                // A tool's result, or an image: not the person's words.
                return None;
            }
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            texts.join("\n")
        }
        _ => return None,
    };
    let text = text.trim();
    if text.is_empty() || NOT_TYPED.iter().any(|m| text.starts_with(m)) {
        return None;
    }
    Some(text.to_owned())
}
