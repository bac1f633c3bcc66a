//! A scripted model reviewer over real HTTP on loopback: answers Chat Completions
//! (`POST …/chat/completions`) and Messages (`POST …/messages`) as told, and records every
//! request (path, headers, body) so tests can read exactly what left the service.
#![allow(
    dead_code,
    reason = "shared with on_postgres, which runs only some stories"
)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// How the scripted reviewer answers.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// This verdict text, in the wire format the request came in.
    Verdict(String),
    /// Obeys the evidence: when the request's evidence holds a JSON object with an
    /// "outcome", answers it back as its verdict; otherwise `fallback`.
    Obedient { fallback: String },
    /// This HTTP status, no verdict.
    Status(u16),
    /// This text as the whole message content (the format's envelope around it).
    Raw(String),
    /// Never answers (until the server is dropped).
    Hang,
    /// This verdict text once the test calls [`ScriptedReviewer::release`], one answer per
    /// release (the test acts while the call is under way).
    Held(String),
}

#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the reviewer is sent JSON")
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8")
    }
}

struct Shared {
    behaviour: Behaviour,
    seen: Vec<Seen>,
    /// Permits for held answers.
    released: Arc<tokio::sync::Semaphore>,
}

pub struct ScriptedReviewer {
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedReviewer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedReviewer {
    /// Serves on a free loopback port; `url` is the base (`http://127.0.0.1:PORT/v1`).
    pub async fn start(behaviour: Behaviour) -> ScriptedReviewer {
        let shared = Arc::new(Mutex::new(Shared {
            behaviour,
            seen: Vec::new(),
            released: Arc::new(tokio::sync::Semaphore::new(0)),
        }));
        let app = axum::Router::new()
            .fallback(axum::routing::post(answer))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        ScriptedReviewer {
            url: format!("http://127.0.0.1:{port}/v1"),
            shared,
            task,
        }
    }

    /// The policy's `[reviewer]` section naming this reviewer (model `scripted`, `up_to =
    /// "medium"`) in `mode`, with `timeout`.
    pub fn section(&self, mode: &str, timeout: &str) -> String {
        format!(
            "[reviewer]\napi = \"openai\"\nurl = \"{}\"\nmodel = \"scripted\"\nmode = \"{mode}\"\nup_to = \"medium\"\ntimeout = \"{timeout}\"\n",
            self.url
        )
    }

    pub fn set(&self, behaviour: Behaviour) {
        self.shared.lock().unwrap().behaviour = behaviour;
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.shared.lock().unwrap().seen.clone()
    }

    /// Lets one held call answer.
    pub fn release(&self) {
        self.shared.lock().unwrap().released.add_permits(1);
    }

    /// Stops answering: the port refuses connections from now on.
    pub fn kill(&self) {
        self.task.abort();
    }
}

/// A verdict as the reviewer writes it.
pub fn verdict(outcome: &str, risk: &str, rationale: &str) -> String {
    json!({"outcome": outcome, "risk": risk, "user_authorized": "unclear", "rationale": rationale})
        .to_string()
}

async fn answer(
    State(shared): State<Arc<Mutex<Shared>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let (behaviour, released) = {
        let mut shared = shared.lock().unwrap();
        shared.seen.push(Seen {
            path: path.clone(),
            headers,
            body: body.to_vec(),
        });
        (shared.behaviour.clone(), shared.released.clone())
    };
    let text = match behaviour {
        Behaviour::Verdict(text) | Behaviour::Raw(text) => text,
        Behaviour::Held(text) => {
            released.acquire().await.unwrap().forget();
            text
        }
        Behaviour::Obedient { fallback } => obeyed(&body).unwrap_or(fallback),
        Behaviour::Status(code) => {
            return (StatusCode::from_u16(code).unwrap(), "scripted failure").into_response()
        }
        Behaviour::Hang => {
            std::future::pending::<()>().await;
            unreachable!()
        }
    };
    let messages = path.ends_with("/messages");
    let envelope = match (messages, serde_json::from_str::<Value>(&text)) {
        // Messages: a well-formed object comes back as the forced tool call's input.
        (true, Ok(input)) if input.is_object() => json!({
            "type": "message", "role": "assistant", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "verdict", "input": input}],
        }),
        (true, _) => json!({
            "type": "message", "role": "assistant", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}],
        }),
        (false, _) => json!({
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
        }),
    };
    axum::Json(envelope).into_response()
}

/// The first JSON object with an "outcome" inside any string of the user message: what a
/// model that obeys the evidence would answer.
fn obeyed(body: &[u8]) -> Option<String> {
    let body: Value = serde_json::from_slice(body).ok()?;
    let user = body["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "user")?["content"]
        .as_str()?
        .to_owned();
    let start = user
        .find("{\\\"outcome\\\"")
        .or_else(|| user.find("{\"outcome\""))?;
    let rest = &user[start..];
    let end = rest.find('}')?;
    let found = rest[..=end].replace("\\\"", "\"");
    serde_json::from_str::<Value>(&found).ok()?;
    Some(found)
}
