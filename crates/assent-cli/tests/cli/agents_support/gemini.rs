//! The Gemini API side of the scripted model (what Gemini CLI 0.61 speaks, from
//! `GOOGLE_GEMINI_BASE_URL`): `POST /v1beta/models/{model}:generateContent` and
//! `:streamGenerateContent?alt=sse`. The main conversation (a request offering
//! `run_shell_command`) is answered from the script by how many model turns it holds; a side
//! request with a JSON schema (the router's classifier, the next-speaker check) gets an answer
//! made from its schema; anything else a text.

use std::sync::{Arc, Mutex};

use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::model::{Block, Seen, Shared};

/// Whether `path` is a Gemini API call.
pub fn is_gemini(path: &str) -> bool {
    path.contains(":generateContent") || path.contains(":streamGenerateContent")
}

/// A Gemini request of the main conversation: it offers the shell tool.
pub fn is_main(body: &Value) -> bool {
    body["tools"].as_array().is_some_and(|tools| {
        tools.iter().any(|t| {
            t["functionDeclarations"]
                .as_array()
                .is_some_and(|f| f.iter().any(|d| d["name"] == "run_shell_command"))
        })
    })
}

/// The tool results in a Gemini conversation's `contents`: each `functionResponse`'s output, or
/// its error (`Tool execution blocked: …`).
pub fn tool_results(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for content in body["contents"].as_array().into_iter().flatten() {
        for part in content["parts"].as_array().into_iter().flatten() {
            let response = &part["functionResponse"]["response"];
            if response.is_null() {
                continue;
            }
            let text = response["output"]
                .as_str()
                .or_else(|| response["error"].as_str())
                .map_or_else(|| response.to_string(), str::to_owned);
            out.push(text);
        }
    }
    out
}

pub(super) fn answer(shared: &Arc<Mutex<Shared>>, path: String, body: Value) -> Response {
    let stream = path.contains(":streamGenerateContent");
    let blocks = {
        let mut shared = shared.lock().unwrap();
        shared.seen.push(Seen {
            method: "POST".into(),
            path,
            body: body.clone(),
        });
        if is_main(&body) {
            let done = body["contents"]
                .as_array()
                .map_or(0, |c| c.iter().filter(|c| c["role"] == "model").count());
            shared
                .script
                .get(done)
                .cloned()
                .unwrap_or_else(|| vec![Block::Text("done.".into())])
        } else if let Some(schema) = schema_of(&body) {
            vec![Block::Text(from_schema(schema).to_string())]
        } else {
            vec![Block::Text("ok".into())]
        }
    };
    let response = response(&blocks);
    if stream {
        (
            [
                ("content-type", "text/event-stream"),
                ("cache-control", "no-cache"),
            ],
            format!("data: {response}\r\n\r\n"),
        )
            .into_response()
    } else {
        axum::Json(response).into_response()
    }
}

fn schema_of(body: &Value) -> Option<&Value> {
    let config = &body["generationConfig"];
    [&config["responseJsonSchema"], &config["responseSchema"]]
        .into_iter()
        .find(|s| s.is_object())
}

/// A value the schema accepts: first enum value, numbers at their minimum (or 1), every
/// property filled.
fn from_schema(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let kind = schema["type"]
        .as_str()
        .unwrap_or("object")
        .to_ascii_lowercase();
    match kind.as_str() {
        "string" => json!("scripted"),
        "integer" | "number" => match schema["minimum"].as_f64() {
            Some(n) if n >= 1.0 => schema["minimum"].clone(),
            _ => json!(1),
        },
        "boolean" => json!(false),
        "array" => json!([]),
        _ => {
            let mut out = Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                out.insert(name.clone(), from_schema(property));
            }
            Value::Object(out)
        }
    }
}

fn response(blocks: &[Block]) -> Value {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let base = NEXT.fetch_add(100, std::sync::atomic::Ordering::Relaxed);
    let parts: Vec<Value> = blocks
        .iter()
        .enumerate()
        .map(|(i, block)| match block {
            Block::Tool(name, args) => json!({"functionCall": {
                "name": name, "args": args, "id": format!("call_{:04}", base + i)
            }}),
            Block::Text(text) => json!({ "text": text }),
        })
        .collect();
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
        "modelVersion": "scripted"
    })
}
