//! A real service on a free port over a real store (SQLite unless `ASSENT_TEST_BACKEND` picks
//! another, see [`backend`]), and a small HTTP/SSE client.

pub mod backend;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use assent_core::Policy;
use assent_server::{App, Config, FakeClock, LaunchError};
use chrono::{TimeZone, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use assent_test_support::pg;
pub mod scripted_reviewer;

pub struct Service {
    pub url: String,
    pub port: u16,
    pub requester: String,
    pub approver: String,
    pub clock: Arc<FakeClock>,
    pub dir: Arc<tempfile::TempDir>,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), LaunchError>>>,
}

pub fn start_time() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap()
}

impl Service {
    pub async fn start() -> Service {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> Service {
        let dir = Arc::new(tempfile::tempdir().unwrap());
        let clock = Arc::new(FakeClock::new(start_time()));
        Self::start_in(dir, clock, tweak).await
    }

    pub async fn start_in(
        dir: Arc<tempfile::TempDir>,
        clock: Arc<FakeClock>,
        tweak: impl FnOnce(&mut Config),
    ) -> Service {
        let mut config = Config::new(dir.path(), Policy::default());
        config.clock = clock.clone();
        config.home = "/home/dev".to_owned();
        // No periodic tick: the sweeper sleeps until the next deadline and wakes when the
        // fake clock moves; an hour-long safety cap never fires within a test.
        config.expiry_recheck = Duration::from_secs(3600);
        tweak(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let store = backend::open_store(&config.data_dir).await;
        let app = App::over(config, store).await.unwrap();
        let tokens = app.tokens().unwrap().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(app.serve(listener, async move {
            let _ = stopped.await;
        }));
        Service {
            url: format!("http://127.0.0.1:{port}"),
            port,
            requester: tokens.requester,
            approver: tokens.approver,
            clock,
            dir,
            http: reqwest::Client::new(),
            stop: Some(stop),
            handle: Some(handle),
        }
    }

    /// Stops the service and waits until it has closed its database.
    pub async fn stop(mut self) -> (Arc<tempfile::TempDir>, Arc<FakeClock>) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.handle.take() {
            handle.await.unwrap().unwrap();
        }
        (self.dir.clone(), self.clock.clone())
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    pub async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        let resp = self
            .http
            .get(format!("{}{path}", self.url))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        read(resp).await
    }

    pub async fn post(&self, path: &str, token: &str, body: &Value) -> (StatusCode, Value) {
        let resp = self
            .http
            .post(format!("{}{path}", self.url))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap();
        read(resp).await
    }

    /// `GET /metrics` as the approver: the Prometheus text.
    pub async fn prometheus(&self) -> String {
        let resp = self
            .http
            .get(format!("{}/metrics", self.url))
            .bearer_auth(&self.approver)
            .send()
            .await
            .unwrap();
        assert_eq!(
            resp.status(),
            StatusCode::OK,
            "Prometheus text for the approver"
        );
        resp.text().await.unwrap()
    }

    pub async fn submit(&self, body: &Value) -> Value {
        self.submit_as(&self.requester, body).await
    }

    /// [`Service::submit`] with another agent's `token`.
    pub async fn submit_as(&self, token: &str, body: &Value) -> Value {
        let (status, answer) = self.post("/v1/actions", token, body).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "a well-formed submission is answered: {answer}"
        );
        answer
    }

    pub async fn decide(&self, approval_id: &str, body: &Value) -> (StatusCode, Value) {
        self.post(
            &format!("/v1/approvals/{approval_id}/decision"),
            &self.approver,
            body,
        )
        .await
    }

    pub async fn approve_for_run(&self, approval_id: &str) -> Value {
        let (status, answer) = self
            .decide(
                approval_id,
                &json!({"decision":"approve","scope":"run","expires_in_seconds":3600}),
            )
            .await;
        assert_eq!(
            status,
            StatusCode::OK,
            "approving for the run is allowed: {answer}"
        );
        answer
    }

    pub async fn approval(&self, approval_id: &str) -> Value {
        let (status, approval) = self
            .get(&format!("/v1/approvals/{approval_id}"), &self.approver)
            .await;
        assert_eq!(status, StatusCode::OK, "the approval exists: {approval}");
        approval
    }

    /// Long-polls approval `id` as the requester while the fake clock reaches `expires_at`
    /// (after the poll has started): what the waiting agent is answered.
    pub async fn wait_across_expiry(
        &self,
        id: &str,
        expires_at: chrono::DateTime<Utc>,
    ) -> (StatusCode, Value) {
        let path = format!("/v1/approvals/{id}?wait=30");
        let waiter = self.get(&path, &self.requester);
        let timeout = async {
            tokio::task::yield_now().await;
            self.clock.set(expires_at);
        };
        tokio::join!(waiter, timeout).0
    }

    /// The audit trail of run `run`, as the approver reads it.
    pub async fn audit(&self, run: &str) -> Vec<Value> {
        let (status, body) = self
            .get(&format!("/v1/audit?run_id={run}"), &self.approver)
            .await;
        assert_eq!(
            status,
            StatusCode::OK,
            "the approver reads the audit: {body}"
        );
        body["events"].as_array().unwrap().clone()
    }

    /// Opens `/v1/events`, optionally resuming after `last_event_id`.
    pub async fn events(&self, last_event_id: Option<&str>) -> SseReader {
        self.events_as(&self.approver, last_event_id).await
    }

    /// Opens `/v1/events` as the person holding `token` (their desk is then connected).
    pub async fn events_as(&self, token: &str, last_event_id: Option<&str>) -> SseReader {
        let mut req = self
            .http
            .get(format!("{}/v1/events", self.url))
            .bearer_auth(token);
        if let Some(id) = last_event_id {
            req = req.header("Last-Event-ID", id);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(
            resp.status(),
            StatusCode::OK,
            "the approver may read the event stream"
        );
        SseReader {
            response: resp,
            buffer: String::new(),
        }
    }
}

async fn read(resp: reqwest::Response) -> (StatusCode, Value) {
    let status = resp.status();
    let text = resp.text().await.unwrap();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}

/// One server-sent event, or a comment line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sse {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
    pub comment: Option<String>,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

pub struct SseReader {
    response: reqwest::Response,
    buffer: String,
}

impl SseReader {
    /// The next event or comment; fails the test if none comes within 10 s.
    pub async fn next(&mut self) -> Sse {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                return parse_block(&block);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.response.chunk())
                .await
                .expect("an event arrives within 10 s")
                .unwrap()
                .expect("the stream stays open");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The next event that is not a comment.
    pub async fn next_event(&mut self) -> Sse {
        loop {
            let sse = self.next().await;
            if sse.comment.is_none() {
                return sse;
            }
        }
    }
}

fn parse_block(block: &str) -> Sse {
    let mut sse = Sse {
        id: None,
        event: None,
        data: String::new(),
        comment: None,
    };
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix(':') {
            sse.comment = Some(rest.trim().to_owned());
        } else if let Some((field, value)) = line.split_once(':') {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => sse.id = Some(value.to_owned()),
                "event" => sse.event = Some(value.to_owned()),
                "data" => sse.data.push_str(value),
                _ => {}
            }
        }
    }
    sse
}

/// A shell action request.
pub fn shell(run: &str, command: &str, trust: &str, key: Option<&str>) -> Value {
    let mut body = json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": command, "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop", "repo_trust": trust},
        "reason": "run the tests"
    });
    if let Some(key) = key {
        body["idempotency_key"] = json!(key);
    }
    body
}

/// `mvn -B test` in an unknown repo: an ask with profile maven-test offering `run`.
pub fn maven(run: &str) -> Value {
    shell(run, "mvn -B test", "unknown", None)
}
