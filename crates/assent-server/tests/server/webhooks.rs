//! Signed webhooks with a durable outbox (issue 45 §2): a platform admin registers a URL; a
//! person's decision reaches a receiver on loopback as a POST signed as Standard Webhooks do
//! (verified here with the `standardwebhooks` reference crate); failures are retried with
//! backoff on the fake clock under one `webhook-id`; the outbox survives the service's death;
//! an agent's webhook hears that agent only; a name that resolves to a private address is
//! refused after DNS (a stub resolver — nothing leaves this machine); hostile registrations
//! get a clear 4xx.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use assent_core::Role;
use assent_server::{Clock, WebhookResolver, WebhookResolving};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus, Uri};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::common::{self, shell, Service};

/// What a receiver answers, request by request (then 200).
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Status(u16),
    /// Never answers: the attempt times out.
    Hang,
}

/// One request a receiver got.
#[derive(Debug)]
pub struct Received {
    pub path: String,
    pub headers: HeaderMap,
    pub body: String,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a delivery's body is JSON")
    }

    pub fn id(&self) -> String {
        self.headers["webhook-id"].to_str().unwrap().to_owned()
    }

    /// Checks the signature with the Standard Webhooks reference library (timestamp window
    /// included), as a receiver would.
    pub fn verify(&self, secret: &str) {
        let mut headers = http::HeaderMap::new();
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let value = self.headers[name].to_str().unwrap();
            headers.insert(name, value.parse().unwrap());
        }
        standardwebhooks::Webhook::new(secret)
            .unwrap()
            .verify(self.body.as_bytes(), &headers)
            .expect("the delivery verifies with the webhook's secret");
    }
}

#[derive(Clone)]
struct Script {
    answers: Arc<Mutex<VecDeque<Answer>>>,
    got: mpsc::UnboundedSender<Received>,
}

/// A webhook receiver on a free loopback port.
pub struct Receiver {
    pub url: String,
    pub port: u16,
    got: mpsc::UnboundedReceiver<Received>,
    server: tokio::task::JoinHandle<()>,
}

impl Receiver {
    pub async fn start(answers: Vec<Answer>) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Receiver::on(listener, answers)
    }

    pub fn on(listener: tokio::net::TcpListener, answers: Vec<Answer>) -> Receiver {
        let port = listener.local_addr().unwrap().port();
        let (tx, got) = mpsc::unbounded_channel();
        let script = Script {
            answers: Arc::new(Mutex::new(answers.into())),
            got: tx,
        };
        let app = axum::Router::new().fallback(take).with_state(script);
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Receiver {
            url: format!("http://127.0.0.1:{port}/hook"),
            port,
            got,
            server,
        }
    }

    /// The next request (a test fails rather than waits forever).
    pub async fn next(&mut self) -> Received {
        tokio::time::timeout(Duration::from_secs(20), self.got.recv())
            .await
            .expect("a delivery arrives within 20 s")
            .expect("the receiver runs")
    }

    /// Whatever arrived already, without waiting.
    pub fn already(&mut self) -> Vec<Received> {
        let mut seen = Vec::new();
        while let Ok(r) = self.got.try_recv() {
            seen.push(r);
        }
        seen
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn take(
    State(script): State<Script>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> AxumStatus {
    let answer = script.answers.lock().unwrap().pop_front();
    let _ = script.got.send(Received {
        path: uri.path().to_owned(),
        headers,
        body,
    });
    match answer {
        None => AxumStatus::OK,
        Some(Answer::Status(code)) => AxumStatus::from_u16(code).unwrap(),
        Some(Answer::Hang) => std::future::pending().await,
    }
}

/// Registers a webhook as the owner (a platform admin): (id, secret).
pub async fn register(s: &Service, body: Value) -> (String, String) {
    let (status, created) = s.post("/v1/webhooks", &s.approver, &body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the owner registers a webhook: {created}"
    );
    (
        created["id"].as_str().unwrap().to_owned(),
        created["secret"].as_str().unwrap().to_owned(),
    )
}

/// A webhook's deliveries, as the owner reads them.
pub async fn deliveries(s: &Service, id: &str) -> Vec<Value> {
    let (status, list) = s
        .get(&format!("/v1/webhooks/{id}/deliveries"), &s.approver)
        .await;
    assert_eq!(status, StatusCode::OK, "deliveries are listed: {list}");
    list["deliveries"].as_array().unwrap().clone()
}

/// Waits (real time, bounded) until the newest delivery of `id` has `n` recorded attempts:
/// the moment the fake clock may be moved past its retry.
pub async fn until_attempts(s: &Service, id: &str, n: usize) -> Value {
    for _ in 0..1000 {
        let list = deliveries(s, id).await;
        if let Some(first) = list.first() {
            if first["attempts"].as_array().unwrap().len() >= n {
                return first.clone();
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the delivery never had {n} attempts recorded");
}

/// Opens a prompt for the requester in run `run`: its approval id.
async fn ask(s: &Service, run: &str) -> String {
    let answer = s.submit(&shell(run, "npm test", "unknown", None)).await;
    answer["approval_id"]
        .as_str()
        .expect("npm test in an unknown repo asks a person")
        .to_owned()
}

fn at(value: &Value) -> chrono::DateTime<chrono::Utc> {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_decision_reaches_the_receiver_signed_with_who_why_scope_and_grant() {
    let s = Service::start().await;
    let mut receiver = Receiver::start(vec![]).await;
    let (id, secret) = register(
        &s,
        json!({"url": receiver.url, "events": ["approval.settled"]}),
    )
    .await;
    assert!(
        secret.starts_with("whsec_"),
        "a Standard Webhooks secret: {secret}"
    );

    let denied = ask(&s, "r-deny").await;
    let (status, _) = s
        .decide(
            &denied,
            &json!({"decision":"deny","reason":"not on a Friday"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the owner denies");
    let got = receiver.next().await;
    got.verify(&secret);
    assert_eq!(got.path, "/hook", "posted to the registered path");
    let body = got.json();
    assert_eq!(body["type"], "approval.settled", "the event type: {body}");
    assert!(body["timestamp"].is_string(), "the event's time: {body}");
    let data = &body["data"];
    assert_eq!(
        data["approval_id"],
        denied.as_str(),
        "which approval: {data}"
    );
    assert_eq!(data["decision"], "denied", "the decision: {data}");
    assert_eq!(
        data["reason"], "not on a Friday",
        "the person's reason: {data}"
    );
    assert_eq!(data["decided_by"], "owner", "who decided: {data}");
    assert_eq!(data["requester"], "default", "whose request: {data}");
    assert!(
        data.get("grant_id").is_none(),
        "a denial grants nothing: {data}"
    );

    let approved = ask(&s, "r-approve").await;
    let decided = s.approve_for_run(&approved).await;
    let got = receiver.next().await;
    got.verify(&secret);
    let data = got.json()["data"].clone();
    assert_eq!(data["decision"], "approved", "approved: {data}");
    assert_eq!(data["scope"], "run", "the scope granted: {data}");
    assert_eq!(
        data["grant_id"], decided["grant"]["grant_id"],
        "the grant it issued: {data} vs {decided}"
    );
    assert_eq!(
        at(&data["grant_expires_at"]),
        at(&decided["grant"]["expires_at"]),
        "and until when it covers: {data} vs {decided}"
    );
    assert_eq!(
        data["scope"], decided["grant"]["scope_kind"],
        "the grant's own scope: {decided}"
    );
    assert_ne!(got.id(), "", "a webhook-id");

    let listed = until_attempts(&s, &id, 1).await;
    assert_eq!(
        listed["state"], "delivered",
        "the newest is delivered: {listed}"
    );
    assert_eq!(
        listed["id"],
        got.id().as_str(),
        "listed under its webhook-id"
    );
    assert_eq!(listed["type"], "approval.settled", "its type");
    assert_eq!(
        listed["attempts"][0]["status"], 200,
        "the attempt's status is recorded: {listed}"
    );
    assert!(
        listed["attempts"][0]["latency_ms"].is_u64(),
        "and its latency: {listed}"
    );

    let (status, list) = s.get("/v1/webhooks", &s.approver).await;
    assert_eq!(status, StatusCode::OK, "webhooks are listed");
    assert_eq!(
        list["webhooks"][0]["id"],
        id.as_str(),
        "the one registered: {list}"
    );
    assert!(
        !list.to_string().contains(&secret) && !list.to_string().contains("whsec_"),
        "the secret is never answered again: {list}"
    );
    s.stop().await;
}

#[tokio::test]
async fn failures_are_retried_with_backoff_on_the_fake_clock_under_one_webhook_id() {
    let s = Service::start_with(|c| c.webhook_timeout = Duration::from_millis(300)).await;
    let mut receiver =
        Receiver::start(vec![Answer::Status(503), Answer::Hang, Answer::Status(200)]).await;
    let (id, secret) = register(&s, json!({"url": receiver.url})).await;
    let approval = ask(&s, "r-1").await;
    s.approve_for_run(&approval).await;
    let decided_at = s.clock.now();

    let first = receiver.next().await;
    first.verify(&secret);
    let listed = until_attempts(&s, &id, 1).await;
    assert_eq!(listed["state"], "pending", "a 503 is retried: {listed}");
    assert_eq!(
        listed["attempts"][0]["status"], 503,
        "its status is recorded"
    );
    assert_eq!(
        at(&listed["next_attempt_at"]),
        decided_at + chrono::TimeDelta::seconds(5),
        "the first retry is 5 s later on the service's clock: {listed}"
    );
    assert!(
        receiver.already().is_empty(),
        "nothing is retried before the clock moves"
    );

    s.clock.advance(chrono::TimeDelta::seconds(5));
    let second = receiver.next().await;
    let listed = until_attempts(&s, &id, 2).await;
    assert!(
        listed["attempts"][1]["status"].is_null()
            && listed["attempts"][1]["error"]
                .as_str()
                .unwrap()
                .contains("timeout"),
        "an answer that never comes is a timeout, retried: {listed}"
    );
    assert_eq!(
        at(&listed["next_attempt_at"]),
        decided_at + chrono::TimeDelta::seconds(5) + chrono::TimeDelta::minutes(5),
        "then it backs off to 5 minutes: {listed}"
    );

    s.clock.advance(chrono::TimeDelta::minutes(5));
    let third = receiver.next().await;
    third.verify(&secret);
    let listed = until_attempts(&s, &id, 3).await;
    assert_eq!(
        listed["state"], "delivered",
        "the third attempt lands: {listed}"
    );
    assert_eq!(
        (second.id(), third.id()),
        (first.id(), first.id()),
        "every retry carries the same webhook-id"
    );
    assert_eq!(
        (second.body.as_str(), third.body.as_str()),
        (first.body.as_str(), first.body.as_str()),
        "and the same body"
    );
    s.stop().await;
}

#[tokio::test]
async fn a_delivery_never_answered_gives_up_after_a_day() {
    let s = Service::start().await;
    // Nothing listens here: every attempt is refused at once.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (id, _) = register(&s, json!({"url": format!("http://127.0.0.1:{port}/hook")})).await;
    let approval = ask(&s, "r-1").await;
    s.approve_for_run(&approval).await;
    let mut n = 1;
    loop {
        let listed = until_attempts(&s, &id, n).await;
        if listed["state"] != "pending" {
            assert_eq!(listed["state"], "failed", "it ends failed: {listed}");
            assert_eq!(n, 8, "after eight attempts over a day: {listed}");
            assert!(
                listed["attempts"][0]["error"].is_string(),
                "each attempt says why: {listed}"
            );
            break;
        }
        assert!(n < 8, "no attempt after a day: {listed}");
        s.clock.set(at(&listed["next_attempt_at"]));
        n += 1;
    }
    s.stop().await;
}

#[tokio::test]
async fn the_outbox_is_written_with_the_decision_and_survives_the_services_death() {
    let s = Service::start().await;
    // The receiver is down while the service decides; it comes back on the same port.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = format!("http://127.0.0.1:{port}/hook");
    let (id, secret) = register(&s, json!({"url": url})).await;
    let approval = ask(&s, "r-1").await;
    s.approve_for_run(&approval).await;
    let listed = deliveries(&s, &id).await;
    assert_eq!(
        listed.len(),
        1,
        "the delivery exists as soon as the decision is answered (same transaction): {listed:?}"
    );
    let first_try = until_attempts(&s, &id, 1).await;
    assert_eq!(
        first_try["state"], "pending",
        "refused, to be retried: {first_try}"
    );

    let (dir, clock) = s.stop().await;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let mut receiver = Receiver::on(listener, vec![]);
    let s = Service::start_in(dir, clock, |_| {}).await;
    s.clock.advance(chrono::TimeDelta::seconds(5));
    let got = receiver.next().await;
    got.verify(&secret);
    assert_eq!(
        got.id(),
        first_try["id"].as_str().unwrap(),
        "the restarted service delivers what the dead one could not, under the same id"
    );
    let listed = until_attempts(&s, &id, 2).await;
    assert_eq!(
        listed["state"], "delivered",
        "delivered after the restart: {listed}"
    );
    s.stop().await;
}

#[tokio::test]
async fn a_webhook_kept_across_a_restart_gets_the_next_events_outbox_rows() {
    let s = Service::start().await;
    // Nobody listens on the discard port: deliveries stay pending, which is all this needs.
    let (id, _) = register(&s, json!({"url": "http://127.0.0.1:9/hook"})).await;
    let (dir, clock) = s.stop().await;
    let s = Service::start_in(dir, clock, |_| {}).await;
    let approval = ask(&s, "r-1").await;
    s.approve_for_run(&approval).await;
    let listed = deliveries(&s, &id).await;
    assert!(
        !listed.is_empty(),
        "a store that opens with a webhook registered writes the outbox rows of the events it \
         commits (a store without one skips that statement): {listed:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn an_agents_webhook_hears_only_that_agents_events() {
    let s = Service::start().await;
    let other = common::backend::directory(&s.data_dir())
        .await
        .add_agent("other-agent")
        .await
        .unwrap();
    let mut receiver = Receiver::start(vec![]).await;
    let (everyone, _) = register(&s, json!({"url": format!("{}/all", receiver.url)})).await;
    let (theirs, _) = register(
        &s,
        json!({"url": format!("{}/other", receiver.url), "agent": "other-agent",
               "events": ["approval.settled", "grant.created"]}),
    )
    .await;

    let mine = ask(&s, "our-run").await;
    let their = s
        .submit_as(&other, &shell("their-run", "npm test", "unknown", None))
        .await;
    s.approve_for_run(&mine).await;
    s.approve_for_run(their["approval_id"].as_str().unwrap())
        .await;

    let mut paths = Vec::new();
    for _ in 0..4 {
        let got = receiver.next().await;
        paths.push((
            got.path.clone(),
            got.json()["type"].as_str().unwrap().to_owned(),
            got.body.contains("their-run"),
        ));
    }
    paths.sort();
    assert_eq!(
        paths,
        vec![
            ("/hook/all".to_owned(), "approval.settled".to_owned(), false),
            ("/hook/all".to_owned(), "approval.settled".to_owned(), true),
            (
                "/hook/other".to_owned(),
                "approval.settled".to_owned(),
                true
            ),
            ("/hook/other".to_owned(), "grant.created".to_owned(), true),
        ],
        "everyone's webhook hears both settlements; the agent's hears its own only"
    );
    let agent_rows = deliveries(&s, &theirs).await;
    assert_eq!(
        agent_rows.len(),
        2,
        "no row was ever written for another agent's event: {agent_rows:?}"
    );
    assert_eq!(
        deliveries(&s, &everyone).await.len(),
        2,
        "settled events only by default"
    );
    s.stop().await;
}

/// A resolver answering from a table, recording what it was asked.
#[derive(Debug, Default)]
struct Stub {
    table: HashMap<String, Vec<IpAddr>>,
    asked: Mutex<Vec<String>>,
}

impl WebhookResolver for Stub {
    fn resolve(&self, host: &str) -> WebhookResolving {
        self.asked.lock().unwrap().push(host.to_owned());
        let answer = self.table.get(host).cloned();
        Box::pin(
            async move { answer.ok_or_else(|| std::io::Error::other("no such name in the stub")) },
        )
    }
}

#[tokio::test]
async fn a_name_resolving_to_a_private_address_is_refused_after_dns() {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let stub = Arc::new(Stub {
        table: HashMap::from([
            ("hooks.example.test".to_owned(), vec![ip("10.1.2.3")]),
            (
                "rebound.example.test".to_owned(),
                vec![ip("93.184.215.14"), ip("169.254.169.254")],
            ),
            ("localhost".to_owned(), vec![ip("127.0.0.1")]),
        ]),
        asked: Mutex::default(),
    });
    let resolver = stub.clone();
    let s = Service::start_with(move |c| c.webhook_resolver = resolver).await;
    let mut receiver = Receiver::start(vec![]).await;
    let (private, _) = register(&s, json!({"url": "https://hooks.example.test/x"})).await;
    let (rebound, _) = register(&s, json!({"url": "https://rebound.example.test/x"})).await;
    let (local, secret) = register(
        &s,
        json!({"url": format!("http://localhost:{}/hook", receiver.port)}),
    )
    .await;
    let approval = ask(&s, "r-1").await;
    s.approve_for_run(&approval).await;

    let got = receiver.next().await;
    got.verify(&secret);
    let local_row = until_attempts(&s, &local, 1).await;
    assert_eq!(
        local_row["state"], "delivered",
        "a loopback name is fine: {local_row}"
    );
    let private_row = until_attempts(&s, &private, 1).await;
    let why = private_row["attempts"][0]["error"].as_str().unwrap();
    assert!(
        why.contains("refused") && why.contains("10.1.2.3") && why.contains("private"),
        "a name resolving to a private address is refused, saying so: {why}"
    );
    assert!(
        private_row["attempts"][0]["status"].is_null(),
        "nothing answered: it was never sent"
    );
    let rebound_row = until_attempts(&s, &rebound, 1).await;
    let why = rebound_row["attempts"][0]["error"].as_str().unwrap();
    assert!(
        why.contains("169.254.169.254") && why.contains("metadata"),
        "one metadata address among public ones refuses the name: {why}"
    );
    let asked = stub.asked.lock().unwrap().clone();
    for host in ["hooks.example.test", "rebound.example.test", "localhost"] {
        assert!(
            asked.iter().any(|h| h == host),
            "{host} was resolved at delivery time: {asked:?}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn hostile_registrations_get_a_clear_4xx() {
    let s = Service::start().await;
    let dir = common::backend::directory(&s.data_dir()).await;
    let agent = dir.add_agent("ci-bot").await.unwrap();
    let approver_only = dir
        .add_person("bob", &[Role::RepoMaintainer])
        .await
        .unwrap();
    let good = json!({"url": "https://hooks.example.com/assent"});

    let raw = s
        .http
        .post(format!("{}/v1/webhooks", s.url))
        .bearer_auth(&s.approver)
        .header("content-type", "application/json")
        .body("{\"url\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(
        raw.status(),
        StatusCode::BAD_REQUEST,
        "malformed JSON is 400"
    );

    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            json!({"url": format!("https://hooks.example.com/{}", "a".repeat(5000))}),
            StatusCode::BAD_REQUEST,
            "at most 2048",
        ),
        (
            json!({"url": "http://hooks.example.com/x"}),
            StatusCode::BAD_REQUEST,
            "https://",
        ),
        (
            json!({"url": "https://10.0.0.7/x"}),
            StatusCode::BAD_REQUEST,
            "allow_private",
        ),
        (
            json!({"url": "https://169.254.169.254/latest"}),
            StatusCode::BAD_REQUEST,
            "metadata",
        ),
        (
            json!({"url": "not a url"}),
            StatusCode::BAD_REQUEST,
            "not a URL",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "events": ["approval.nope"]}),
            StatusCode::BAD_REQUEST,
            "unknown event type",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "events": ["approval.settled", "approval.settled"]}),
            StatusCode::BAD_REQUEST,
            "named twice",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "agent": "ci-bot", "events": ["policy.changed"]}),
            StatusCode::BAD_REQUEST,
            "not about an agent",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "agent": "nobody-here"}),
            StatusCode::NOT_FOUND,
            "no agent named",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "agent": "owner"}),
            StatusCode::NOT_FOUND,
            "no agent named",
        ),
        (
            json!({"url": "https://hooks.example.com/x", "secret": "whsec_mine"}),
            StatusCode::BAD_REQUEST,
            "unknown field",
        ),
        (json!({"url": 7}), StatusCode::BAD_REQUEST, ""),
    ];
    for (body, expected, says) in cases {
        let (status, answer) = s.post("/v1/webhooks", &s.approver, &body).await;
        assert_eq!(status, expected, "{body} is refused: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(says),
            "the refusal says why ({says}): {answer}"
        );
    }

    let (status, answer) = s.post("/v1/webhooks", &agent, &good).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "agents never manage webhooks: {answer}"
    );
    let (status, _) = s.get("/v1/webhooks", &s.requester).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "nor list them");
    let (status, answer) = s.post("/v1/webhooks", &approver_only, &good).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a person without platform_admin: {answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("platform_admin"),
        "says which role it takes: {answer}"
    );

    let (status, answer) = s
        .post(
            "/v1/webhooks",
            &s.approver,
            &json!({"url": "https://10.0.0.7/x", "allow_private": true}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "allow_private lets a private address in: {answer}"
    );
    let (id, secret) = register(&s, good.clone()).await;
    let (status, answer) = s.post("/v1/webhooks", &s.approver, &good).await;
    assert_eq!(status, StatusCode::CONFLICT, "the same URL twice: {answer}");
    assert!(
        answer["error"]["message"].as_str().unwrap().contains(&id),
        "names the twin: {answer}"
    );

    let delete = |path: String, token: String| {
        let http = s.http.clone();
        let url = format!("{}{path}", s.url);
        async move {
            http.delete(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(
        delete(format!("/v1/webhooks/{id}"), agent.clone()).await,
        StatusCode::FORBIDDEN,
        "an agent cannot remove one"
    );
    assert_eq!(
        delete("/v1/webhooks/wh_nope".to_owned(), s.approver.clone()).await,
        StatusCode::NOT_FOUND,
        "an unknown id is 404"
    );
    let (status, _) = s.get("/v1/webhooks/wh_nope/deliveries", &s.approver).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "deliveries of an unknown id: 404"
    );
    let (status, _) = s
        .get(
            &format!("/v1/webhooks/{id}/deliveries?limit=0"),
            &s.approver,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a limit out of range");
    assert_eq!(
        delete(format!("/v1/webhooks/{id}"), s.approver.clone()).await,
        StatusCode::NO_CONTENT,
        "the owner removes it"
    );
    assert_eq!(
        delete(format!("/v1/webhooks/{id}"), s.approver.clone()).await,
        StatusCode::NOT_FOUND,
        "removed once"
    );

    let (status, audit) = s.get("/v1/audit?limit=100", &s.approver).await;
    assert_eq!(status, StatusCode::OK, "the audit is readable");
    let text = audit.to_string();
    assert!(
        text.contains("webhook_added") && text.contains("webhook_removed"),
        "creation and removal are audited: {audit}"
    );
    assert!(!text.contains(&secret), "the secret is never in the audit");
    s.stop().await;
}
