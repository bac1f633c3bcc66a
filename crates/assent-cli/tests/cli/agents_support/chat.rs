//! The OpenAI chat-completions side of the scripted model (what opencode 1.18 speaks to a
//! custom `@ai-sdk/openai-compatible` provider): `POST /v1/chat/completions`, streamed. The
//! main conversation (a request offering `bash`) is answered from the script by how many
//! assistant messages it holds; the title request and anything else get a short text.

use std::sync::{Arc, Mutex};

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::model::{Block, Seen, Shared};

pub fn is_chat(path: &str) -> bool {
    path.ends_with("/chat/completions")
}

/// A request of the main conversation: it offers the `bash` tool.
pub fn is_main(body: &Value) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == "bash"))
}

/// The `tool` messages of a chat conversation, in order.
pub fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

pub(super) fn answer(shared: &Arc<Mutex<Shared>>, path: String, body: Value) -> Response {
    let blocks = {
        let mut shared = shared.lock().unwrap();
        shared.seen.push(Seen {
            method: "POST".into(),
            path,
            body: body.clone(),
        });
        if is_main(&body) {
            let done = body["messages"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
            shared
                .script
                .get(done)
                .cloned()
                .unwrap_or_else(|| vec![Block::Text("done.".into())])
        } else {
            vec![Block::Text("scripted".into())]
        }
    };
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let base = NEXT.fetch_add(100, std::sync::atomic::Ordering::Relaxed);
    let chunk = |delta: Value, finish: Value| {
        let data = json!({"id": format!("chatcmpl-{base}"), "object": "chat.completion.chunk",
            "created": 0, "model": "mock-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {data}\n\n")
    };
    let mut out = String::new();
    let mut calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                out += &chunk(json!({"role": "assistant", "content": text}), Value::Null)
            }
            Block::Tool(name, args) => calls.push(
                json!({"index": calls.len(), "id": format!("call_{:04}", base + i),
                "type": "function", "function": {"name": name, "arguments": args.to_string()}}),
            ),
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    if !calls.is_empty() {
        out += &chunk(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            Value::Null,
        );
    }
    out += &chunk(json!({}), json!(finish));
    let usage = json!({"id": format!("chatcmpl-{base}"), "object": "chat.completion.chunk", "created": 0,
        "model": "mock-model", "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}});
    out += &format!("data: {usage}\n\ndata: [DONE]\n\n");
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        out,
    )
        .into_response()
}
