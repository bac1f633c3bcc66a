//! The OpenAI Responses API side of the scripted model (what Codex speaks): streaming SSE
//! `response.created`, `response.output_item.added|done`, `response.completed`. Codex's
//! automatic reviewer ("guardian", under `--approve-for-me`) sends its own requests; it is
//! answered `deny`, so a command only runs when a hook allowed it or no ask was needed.

use std::sync::{Arc, Mutex};

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::model::{is_main, Block, Seen, Shared};

/// A request of Codex's automatic reviewer, not of the conversation.
pub fn is_reviewer(body: &Value) -> bool {
    body.to_string().contains("guardian_review")
}

pub(super) fn answer(
    shared: &Arc<Mutex<Shared>>,
    method: &str,
    path: String,
    body: Value,
) -> Response {
    let blocks = {
        let mut shared = shared.lock().unwrap();
        shared.seen.push(Seen {
            method: method.to_owned(),
            path,
            body: body.clone(),
        });
        if is_reviewer(&body) {
            vec![Block::Text(
                json!({"outcome": "deny", "risk_level": "high",
                    "rationale": "scripted reviewer: only Assent decides here"})
                .to_string(),
            )]
        } else if is_main(&body) {
            let turn = shared.responses_turns;
            shared.responses_turns += 1;
            shared
                .script
                .get(turn)
                .cloned()
                .unwrap_or_else(|| vec![Block::Text("done.".into())])
        } else {
            vec![Block::Text("ok".into())]
        }
    };
    sse(&blocks).into_response()
}

fn item(i: usize, block: &Block) -> Value {
    match block {
        Block::Tool(name, arguments) => json!({
            "type": "function_call", "id": format!("fc_{i}"), "call_id": format!("call_{i:04}"),
            "name": name, "arguments": arguments.to_string()
        }),
        Block::Text(text) => json!({
            "type": "message", "id": format!("msg_{i}"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]
        }),
    }
}

fn event(data: &Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap_or("")
    )
}

fn sse(blocks: &[Block]) -> impl IntoResponse {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let base = NEXT.fetch_add(100, std::sync::atomic::Ordering::Relaxed);
    let id = format!("resp_{base}");
    let mut out = event(&json!({"type": "response.created", "response": {"id": id}}));
    for (index, block) in blocks.iter().enumerate() {
        let item = item(base + index, block);
        out += &event(
            &json!({"type": "response.output_item.added", "output_index": index, "item": item}),
        );
        out += &event(
            &json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    out += &event(&json!({"type": "response.completed", "response": {
        "id": id,
        "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 10,
                  "output_tokens_details": null, "total_tokens": 20}
    }}));
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        out,
    )
}
