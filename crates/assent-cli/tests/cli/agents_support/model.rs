//! A scripted model on a free loopback port speaking the Anthropic Messages API (streaming SSE
//! and plain JSON). Each request of the agent's main conversation is answered from the script
//! by how many assistant turns the conversation already holds; everything else the agent asks
//! (titles, token counts, quota probes) gets a harmless answer and is logged. Every request is
//! recorded, so a test can read the tool results the agent sent back: what it actually saw.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};

/// One block of a scripted assistant turn.
#[derive(Clone, Debug)]
pub enum Block {
    /// A tool call: the tool's name and its input.
    Tool(&'static str, Value),
    Text(String),
}

/// A request the agent made: method, path and body (JSON when it parsed).
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub body: Value,
}

#[derive(Default)]
pub(super) struct Shared {
    pub(super) script: Vec<Vec<Block>>,
    pub(super) seen: Vec<Seen>,
    /// Main-conversation requests of the Responses API answered so far (Codex's turns).
    pub(super) responses_turns: usize,
}

/// The running server; stopped when dropped (its runtime thread ends with the process).
pub struct ModelServer {
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl ModelServer {
    /// Serves `script`: turn `i` answers the main conversation once it holds `i` assistant
    /// messages; past the end, a final "done." text.
    pub fn start(script: Vec<Vec<Block>>) -> ModelServer {
        let shared = Arc::new(Mutex::new(Shared {
            script,
            ..Shared::default()
        }));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let app = Router::new().fallback(answer).with_state(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        ModelServer {
            url: format!("http://{addr}"),
            shared,
            _stop: stop,
        }
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.shared.lock().unwrap().seen.clone()
    }

    /// The main conversation's requests (those offering the agent's tools).
    pub fn turns(&self) -> Vec<Value> {
        self.seen()
            .into_iter()
            .filter(|s| is_main(&s.body))
            .map(|s| s.body)
            .collect()
    }

    /// The text of every tool result the agent sent back, in order (the last request holds
    /// the whole conversation).
    pub fn tool_results(&self) -> Vec<String> {
        let Some(last) = self.turns().into_iter().last() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for message in last["messages"].as_array().cloned().unwrap_or_default() {
            for block in message["content"].as_array().cloned().unwrap_or_default() {
                if block["type"] == "tool_result" {
                    out.push(text_of(&block["content"]));
                }
            }
        }
        out.extend(super::gemini::tool_results(&last));
        if super::chat::is_main(&last) {
            return super::chat::tool_results(&last);
        }
        for item in last["input"].as_array().cloned().unwrap_or_default() {
            if item["type"] == "function_call_output" {
                out.push(text_of(&item["output"]));
            }
        }
        out
    }

    /// A readable log of the requests, for failure messages.
    pub fn log(&self) -> String {
        self.seen()
            .iter()
            .map(|s| {
                let tools = s.body["tools"].as_array().map_or(0, Vec::len);
                let messages = s.body["messages"].as_array().map_or(0, Vec::len);
                format!(
                    "{} {} (tools {tools}, messages {messages})",
                    s.method, s.path
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A tool result's content: a string or a list of text blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The agent's main conversation offers its shell tool (Claude Code's `Bash`, Codex's
/// `exec_command`, Gemini CLI's `run_shell_command`); side requests (titles, Codex's automatic reviewer) are not it.
pub(super) fn is_main(body: &Value) -> bool {
    if super::gemini::is_main(body) || super::chat::is_main(body) {
        return true;
    }
    body["tools"].as_array().is_some_and(|tools| {
        tools
            .iter()
            .any(|t| t["name"] == "Bash" || t["name"] == "exec_command")
    }) && !super::responses::is_reviewer(body)
}

async fn answer(
    State(shared): State<Arc<Mutex<Shared>>>,
    method: Method,
    uri: Uri,
    _headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let path = uri.path().to_owned();
    if super::chat::is_chat(&path) {
        return super::chat::answer(&shared, path, body);
    }
    if super::gemini::is_gemini(&path) {
        return super::gemini::answer(&shared, path, body);
    }
    if path.ends_with("/responses") {
        return super::responses::answer(&shared, method.as_str(), path, body);
    }
    let blocks = {
        let mut shared = shared.lock().unwrap();
        shared.seen.push(Seen {
            method: method.to_string(),
            path: path.clone(),
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
            vec![Block::Text("ok".into())]
        }
    };
    if !path.ends_with("/messages") {
        // count_tokens and anything else: harmless JSON.
        return axum::Json(json!({"input_tokens": 1})).into_response();
    }
    let model = body["model"].as_str().unwrap_or("scripted").to_owned();
    if body["stream"] == true {
        sse(&model, &blocks).into_response()
    } else {
        axum::Json(message(&model, &blocks)).into_response()
    }
}

fn stop_reason(blocks: &[Block]) -> &'static str {
    if blocks.iter().any(|b| matches!(b, Block::Tool(..))) {
        "tool_use"
    } else {
        "end_turn"
    }
}

fn tool_id(i: usize) -> String {
    format!("toolu_{:024}", rand_id() + i as u64)
}

/// Unique enough ids per answer (the agent matches results to ids).
fn rand_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(100, std::sync::atomic::Ordering::Relaxed)
}

fn message(model: &str, blocks: &[Block]) -> Value {
    let base = rand_id();
    let content: Vec<Value> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| match b {
            Block::Tool(name, input) => json!({
                "type": "tool_use", "id": format!("toolu_{:024}", base + i as u64),
                "name": name, "input": input
            }),
            Block::Text(t) => json!({"type": "text", "text": t}),
        })
        .collect();
    json!({
        "id": format!("msg_{base}"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason(blocks), "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 10}
    })
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn sse(model: &str, blocks: &[Block]) -> impl IntoResponse {
    let base = rand_id();
    let mut out = event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_{base}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}
        }}),
    );
    for (index, block) in blocks.iter().enumerate() {
        let (start, delta) = match block {
            Block::Tool(name, input) => (
                json!({"type": "tool_use", "id": tool_id(index), "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            ),
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
        };
        out += &event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        );
        out += &event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
        out += &event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    out += &event(
        "message_delta",
        &json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason(blocks), "stop_sequence": null},
            "usage": {"output_tokens": 10}}),
    );
    out += &event("message_stop", &json!({"type": "message_stop"}));
    (
        [
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache"),
        ],
        out,
    )
}
