//! Web Push with real parts: a browser's subscription (keys made by Mozilla's `ece`) whose
//! endpoint is this test's own HTTP receiver on loopback. The receiver checks the VAPID token
//! with OpenSSL against the key `GET /v1/push/key` publishes, and decrypts the body with
//! `ece` (RFC 8291, OpenSSL) — an implementation independent of the service's. A 500 is
//! retried as the fake clock moves, a 410 drops the subscription, each routing step pushes
//! the people it asks (the first step's, then the escalation's), and subscriptions that are
//! not https (off loopback), malformed, hostile or huge are refused.
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxStatus, Uri};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use assent_server::Clock as _;

use crate::common::{shell, Service};

/// One request the receiver got.
struct Got {
    path: String,
    headers: HeaderMap,
    body: Bytes,
}

type Answers = Arc<Mutex<VecDeque<u16>>>;

/// A push service of the test's own on loopback: records each request, answers with the
/// next queued status (201 when none is queued).
struct Receiver {
    origin: String,
    got: mpsc::UnboundedReceiver<Got>,
    answers: Answers,
}

async fn receive(
    State((seen, answers)): State<(mpsc::UnboundedSender<Got>, Answers)>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> AxStatus {
    let status = answers.lock().unwrap().pop_front().unwrap_or(201);
    let _ = seen.send(Got {
        path: uri.path().to_owned(),
        headers,
        body,
    });
    AxStatus::from_u16(status).unwrap()
}

async fn receiver() -> Receiver {
    let (seen, got) = mpsc::unbounded_channel();
    let answers: Answers = Arc::default();
    let app = axum::Router::new()
        .route("/push/{id}", axum::routing::post(receive))
        .with_state((seen, answers.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    Receiver {
        origin: format!("http://127.0.0.1:{port}"),
        got,
        answers,
    }
}

impl Receiver {
    /// The next request, waiting at most 10 s (a push that never comes fails the test).
    async fn next(&mut self) -> Got {
        tokio::time::timeout(Duration::from_secs(10), self.got.recv())
            .await
            .expect("a push arrives within 10 s")
            .expect("the receiver runs")
    }

    /// What arrives within `quiet` (its path), or `None`: how a test sees that a push did not
    /// come, which has no signal to wait for (a step's deliveries all start together, so a
    /// wrongly included person's would arrive with the others').
    async fn stays_quiet(&mut self, quiet: Duration) -> Option<String> {
        tokio::time::timeout(quiet, self.got.recv())
            .await
            .ok()
            .flatten()
            .map(|got| got.path)
    }
}

/// A browser's side: its key pair and auth secret (made by `ece`), at an endpoint.
struct Browser {
    keys: Box<dyn ece::crypto::LocalKeyPair>,
    auth: [u8; 16],
    endpoint: String,
}

impl Browser {
    fn at(endpoint: String) -> Browser {
        let (keys, auth) = ece::generate_keypair_and_auth_secret().unwrap();
        Browser {
            keys,
            auth,
            endpoint,
        }
    }

    /// What `PushSubscription.toJSON()` answers.
    fn to_json(&self) -> Value {
        json!({
            "endpoint": self.endpoint,
            "expirationTime": null,
            "keys": {
                "p256dh": URL_SAFE_NO_PAD.encode(self.keys.pub_as_raw().unwrap()),
                "auth": URL_SAFE_NO_PAD.encode(self.auth),
            }
        })
    }

    /// Decrypts a push body with `ece` (RFC 8291).
    fn decrypt(&self, body: &[u8]) -> Value {
        let components = self.keys.raw_components().unwrap();
        let plain = ece::decrypt(&components, &self.auth, body)
            .expect("the body decrypts with the browser's keys: RFC 8291 aes128gcm");
        serde_json::from_slice(&plain).expect("the payload is JSON")
    }
}

async fn subscribe(svc: &Service, token: &str, body: &Value) -> (StatusCode, Value) {
    svc.post("/v1/push/subscriptions", token, body).await
}

async fn vapid_key(svc: &Service) -> Vec<u8> {
    let (status, body) = svc.get("/v1/push/key", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "the key is published: {body}");
    let key = URL_SAFE_NO_PAD
        .decode(body["key"].as_str().unwrap())
        .expect("the key is base64url without padding, as applicationServerKey takes it");
    assert_eq!((key.len(), key[0]), (65, 4), "an uncompressed P-256 point");
    key
}

/// Checks the `Authorization: vapid t=JWT, k=KEY` of `got` (RFC 8292) with OpenSSL: the key
/// is the published one, the ES256 signature verifies with it, `aud` is the endpoint's
/// origin, `exp` is ahead (at most 24 h) and `sub` is present.
fn check_vapid(got: &Got, key: &[u8], audience: &str) {
    let header = got.headers["authorization"].to_str().unwrap();
    let rest = header
        .strip_prefix("vapid t=")
        .expect("the vapid scheme (RFC 8292 §3)");
    let (token, k) = rest.split_once(", k=").expect("t= and k=");
    assert_eq!(
        URL_SAFE_NO_PAD.decode(k).unwrap(),
        key,
        "k is the key GET /v1/push/key publishes (the browser subscribed with it)"
    );
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT of three parts");
    let head: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
    assert_eq!(head["alg"], "ES256", "VAPID tokens are ES256");
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    assert_eq!(
        claims["aud"], audience,
        "the audience is the push service's origin"
    );
    let exp = claims["exp"].as_i64().unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(
        exp > now && exp <= now + 24 * 3600,
        "exp is ahead, at most 24 h: {exp} vs {now}"
    );
    assert!(
        claims["sub"].as_str().is_some_and(|s| !s.is_empty()),
        "a contact for the push service: {claims}"
    );
    // The signature: r || s, 32 bytes each, over "header.claims", with the published key.
    let raw = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    assert_eq!(raw.len(), 64, "a raw ES256 signature");
    let sig = EcdsaSig::from_private_components(
        BigNum::from_slice(&raw[..32]).unwrap(),
        BigNum::from_slice(&raw[32..]).unwrap(),
    )
    .unwrap();
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let mut ctx = BigNumContext::new().unwrap();
    let point = EcPoint::from_bytes(&group, key, &mut ctx).unwrap();
    let public = EcKey::from_public_key(&group, &point).unwrap();
    let signed = format!("{}.{}", parts[0], parts[1]);
    let digest = openssl::sha::sha256(signed.as_bytes());
    assert!(
        sig.verify(&digest, &public).unwrap(),
        "the token is signed by the service's VAPID key"
    );
}

async fn pending(svc: &Service, run: &str, command: &str) -> Value {
    let asked = svc.submit(&shell(run, command, "unknown", None)).await;
    assert_eq!(asked["status"], "pending", "a person decides it: {asked}");
    asked
}

#[tokio::test]
async fn a_new_prompt_is_pushed_encrypted_signed_and_masked() {
    let svc = Service::start().await;
    let mut push = receiver().await;
    let browser = Browser::at(format!("{}/push/phone", push.origin));
    let (status, body) = subscribe(&svc, &svc.approver, &browser.to_json()).await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "the person subscribes: {body}"
    );
    let key = vapid_key(&svc).await;

    let secret = "sk_live_4f9a8b7c6d5e4f3a2b1c";
    let asked = pending(
        &svc,
        "r-push",
        &format!("curl -H 'Authorization: Bearer {secret}' https://api.example.com/charge"),
    )
    .await;
    let got = push.next().await;
    assert_eq!(
        got.path, "/push/phone",
        "posted to the subscription's endpoint"
    );
    check_vapid(&got, &key, &push.origin);
    assert_eq!(
        got.headers["content-encoding"], "aes128gcm",
        "RFC 8291's content coding"
    );
    let ttl: i64 = got.headers["ttl"].to_str().unwrap().parse().unwrap();
    let approval = svc.approval(asked["approval_id"].as_str().unwrap()).await;
    let expires = chrono::DateTime::parse_from_rfc3339(approval["expires_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    assert_eq!(
        ttl,
        (expires - svc.clock.now()).num_seconds(),
        "the TTL is the prompt's remaining life: a later push helps nobody"
    );
    let urgency = got.headers["urgency"].to_str().unwrap();
    let want = match asked["risk"].as_str().unwrap() {
        "high" | "critical" => "high",
        "medium" => "normal",
        _ => "low",
    };
    assert_eq!(
        urgency, want,
        "the urgency follows the risk ({})",
        asked["risk"]
    );

    let payload = browser.decrypt(&got.body);
    assert_eq!(
        payload["approval_id"], asked["approval_id"],
        "names the prompt"
    );
    assert_eq!(payload["risk"], asked["risk"], "carries its risk");
    assert_eq!(
        payload["summary"], approval["evidence"]["summary"],
        "the summary is the one the desk shows"
    );
    let fields: Vec<&String> = payload.as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        ["approval_id", "open_only", "risk", "summary"],
        "nothing else travels: {payload}"
    );
    // The summary is the desk's, masked at evaluation: the secret never leaves the service.
    let text = payload.to_string();
    assert!(
        !text.contains(secret) && !text.contains(&secret[8..]),
        "the push must not carry the secret, whole or in part: {text}"
    );
    assert!(
        payload["summary"].as_str().unwrap().contains("****"),
        "the secret's place is masked in the summary: {text}"
    );
    assert!(
        got.body.len() < 1024,
        "a small message: {} bytes",
        got.body.len()
    );
}

#[tokio::test]
async fn a_failing_push_is_retried_and_a_gone_subscription_dropped() {
    let svc = Service::start().await;
    let mut push = receiver().await;
    let browser = Browser::at(format!("{}/push/laptop", push.origin));
    let (status, _) = subscribe(&svc, &svc.approver, &browser.to_json()).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "subscribed");

    push.answers.lock().unwrap().extend([500, 503]);
    let asked = pending(&svc, "r-retry", "mvn -B test").await;
    let first = push.next().await;
    assert_eq!(
        browser.decrypt(&first.body)["approval_id"],
        asked["approval_id"],
        "the first attempt"
    );
    // Backoff waits run on the service's clock: move it until the next attempt comes
    // (no real sleep; each step waits briefly for the attempt it allows).
    let mut attempts = vec![first];
    while attempts.len() < 3 {
        svc.clock.advance(chrono::Duration::seconds(1));
        if let Ok(Some(got)) =
            tokio::time::timeout(Duration::from_millis(50), push.got.recv()).await
        {
            attempts.push(got);
        }
        assert!(
            svc.clock.now() - crate::common::start_time() < chrono::Duration::minutes(5),
            "retries come within a few doubled waits"
        );
    }
    let delivered = browser.decrypt(&attempts[2].body);
    assert_eq!(
        delivered["approval_id"], asked["approval_id"],
        "after a 500 and a 503 the third attempt delivers the same prompt"
    );
    let waited = svc.clock.now() - crate::common::start_time();
    assert!(
        waited >= chrono::Duration::seconds(6),
        "the waits doubled (2 s, then 4 s) before the third attempt: {waited}"
    );

    push.answers.lock().unwrap().push_back(410);
    pending(&svc, "r-gone", "mvn -B verify").await;
    let _gone = push.next().await;
    let mut left = Value::Null;
    for _ in 0..200 {
        left = svc.get("/v1/push/subscriptions", &svc.approver).await.1;
        if left.as_array().is_some_and(Vec::is_empty) {
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        left,
        json!([]),
        "410 Gone: the browser unsubscribed, so its subscription is dropped"
    );
}

/// Each step of a routed prompt pushes to exactly the people it asks: two platform admins
/// with a browser each, alice's desk connected and bob away, `escalate_after = "5m"` and the
/// fake clock. The prompt's first step asks alice, so only alice's browser is pushed; five
/// minutes on it escalates to bob, so bob's browser is pushed then — and alice, asked
/// already, is not pushed twice.
#[tokio::test]
async fn each_routing_step_pushes_the_people_it_asks() {
    let policy = assent_core::Policy::from_toml("[routing]\nescalate_after = \"5m\"\n").unwrap();
    let svc = Service::start_with(|c| c.policy = policy).await;
    let dir = crate::common::backend::directory(&svc.data_dir()).await;
    let admin = [assent_core::Role::PlatformAdmin];
    let alice = dir.add_person("alice", &admin).await.unwrap();
    let bob = dir.add_person("bob", &admin).await.unwrap();
    dir.roles("owner", &[], &admin).await.unwrap();
    let (mut alice_push, mut bob_push) = (receiver().await, receiver().await);
    let alice_phone = Browser::at(format!("{}/push/alice", alice_push.origin));
    let bob_phone = Browser::at(format!("{}/push/bob", bob_push.origin));
    for (token, browser) in [(&alice, &alice_phone), (&bob, &bob_phone)] {
        let (status, body) = subscribe(&svc, token, &browser.to_json()).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "each subscribes: {body}");
    }
    let _alice_desk = svc.events_as(&alice, None).await;

    let asked = svc
        .submit(&shell(
            "r-routed-push",
            "aws s3 rm s3://shop-assets/logo.png",
            "trusted",
            None,
        ))
        .await;
    assert_eq!(
        asked["status"], "pending",
        "a platform admin decides it: {asked}"
    );
    let id = asked["approval_id"].clone();
    let first = alice_push.next().await;
    assert_eq!(
        alice_phone.decrypt(&first.body)["approval_id"],
        id,
        "the first step asks alice (present), so her browser gets the prompt"
    );
    assert_eq!(
        bob_push.stays_quiet(Duration::from_millis(500)).await,
        None,
        "bob is away and not asked yet: no push reaches him before the escalation"
    );

    svc.clock.advance(chrono::Duration::minutes(5));
    let second = bob_push.next().await;
    assert_eq!(
        bob_phone.decrypt(&second.body)["approval_id"],
        id,
        "escalated after 5 min, the prompt asks bob too, so his browser gets it now"
    );
    assert_eq!(
        svc.approval(id.as_str().unwrap()).await["asked"]["escalated_to"],
        json!(["bob"]),
        "the push followed the step the approval records"
    );
    assert_eq!(
        alice_push.stays_quiet(Duration::from_millis(500)).await,
        None,
        "alice was asked at the first step: the escalation does not push her again"
    );
}

#[tokio::test]
async fn only_well_formed_subscriptions_of_people_are_kept() {
    let svc = Service::start().await;
    let good = Browser::at("https://push.example.com/wpush/abc".to_owned()).to_json();
    let with = |path: &str, value: Value| {
        let mut body = good.clone();
        let mut at = &mut body;
        for key in path.split('.') {
            at = &mut at[key];
        }
        *at = value;
        body
    };
    let long_endpoint = format!("https://push.example.com/{}", "a".repeat(3000));
    let table = [
        (
            "plain http off loopback",
            with("endpoint", json!("http://push.example.com/x")),
            "https",
        ),
        (
            "another scheme",
            with("endpoint", json!("file:///etc/passwd")),
            "https",
        ),
        (
            "credentials in the URL",
            with("endpoint", json!("https://u:p@push.example.com/x")),
            "user name",
        ),
        (
            "no URL at all",
            with("endpoint", json!("javascript:alert(1)")),
            "https",
        ),
        (
            "a huge endpoint",
            with("endpoint", json!(long_endpoint)),
            "at most",
        ),
        (
            "a short key",
            with("keys.p256dh", json!(URL_SAFE_NO_PAD.encode([4_u8; 33]))),
            "p256dh",
        ),
        (
            "a point off the curve",
            with("keys.p256dh", json!(URL_SAFE_NO_PAD.encode([4_u8; 65]))),
            "p256dh",
        ),
        (
            "not base64url",
            with("keys.p256dh", json!("<script>")),
            "p256dh",
        ),
        (
            "an auth secret of 8 bytes",
            with("keys.auth", json!(URL_SAFE_NO_PAD.encode([1_u8; 8]))),
            "auth",
        ),
        (
            "a huge auth secret",
            with("keys.auth", json!("A".repeat(100_000))),
            "auth",
        ),
        (
            "a negative expiry",
            with("expirationTime", json!(-5)),
            "expirationTime",
        ),
        ("an unknown field", with("extra", json!(1)), "unknown field"),
        (
            "no keys",
            json!({"endpoint": "https://push.example.com/x"}),
            "keys",
        ),
        (
            "not an object",
            json!(["https://push.example.com/x"]),
            "invalid",
        ),
    ];
    for (name, body, says) in table {
        let (status, answer) = subscribe(&svc, &svc.approver, &body).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "{name} is refused: {answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(says),
            "{name}: the error says what is wrong ({says:?}): {message}"
        );
    }
    let (listed_status, listed) = svc.get("/v1/push/subscriptions", &svc.approver).await;
    assert_eq!(
        (listed_status, listed),
        (StatusCode::OK, json!([])),
        "nothing refused was kept"
    );

    // Bodies that are not JSON, duplicate keys, a body past the limit.
    let url = format!("{}/v1/push/subscriptions", svc.url);
    let raw = |body: Vec<u8>, kind: &'static str| {
        svc.http
            .post(&url)
            .bearer_auth(&svc.approver)
            .header("content-type", kind)
            .body(body)
            .send()
    };
    let status = raw(b"endpoint=x".to_vec(), "application/x-www-form-urlencoded")
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "JSON only");
    let duplicated = br#"{"endpoint":"https://a.example/x","endpoint":"http://127.0.0.1:1/x","keys":{"p256dh":"","auth":""}}"#;
    let status = raw(duplicated.to_vec(), "application/json")
        .await
        .unwrap()
        .status();
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "duplicate keys are refused, not guessed"
    );
    let huge = vec![b' '; 600 * 1024];
    let status = raw(huge, "application/json").await.unwrap().status();
    assert_eq!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "a huge body is refused unread"
    );

    // Who may subscribe: a person, for themself — never an agent, never without credentials.
    let (status, _) = subscribe(&svc, &svc.requester, &good).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent cannot be notified of prompts"
    );
    let anonymous = svc
        .http
        .post(&url)
        .json(&good)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(
        anonymous,
        StatusCode::UNAUTHORIZED,
        "nobody subscribes anonymously"
    );
    let foreign = svc
        .http
        .post(&url)
        .header("origin", "https://evil.example")
        .json(&good)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(
        foreign,
        StatusCode::FORBIDDEN,
        "another site's page is refused"
    );

    // Subscribe, see it, remove it by query and by body; removing again is 404.
    let loopback = Browser::at("http://[::1]:9/push/x".to_owned()).to_json();
    for body in [&good, &loopback] {
        let (status, answer) = subscribe(&svc, &svc.approver, body).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "kept: {answer}");
    }
    let (_, listed) = svc.get("/v1/push/subscriptions", &svc.approver).await;
    assert_eq!(
        listed.as_array().unwrap().len(),
        2,
        "both are listed: {listed}"
    );
    let by_query = svc
        .http
        .delete(&url)
        .query(&[("endpoint", "https://push.example.com/wpush/abc")])
        .bearer_auth(&svc.approver)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(by_query, StatusCode::NO_CONTENT, "removed by ?endpoint=");
    let by_body = || {
        svc.http
            .delete(&url)
            .bearer_auth(&svc.approver)
            .json(&json!({"endpoint": "http://[::1]:9/push/x"}))
            .send()
    };
    assert_eq!(
        by_body().await.unwrap().status(),
        StatusCode::NO_CONTENT,
        "removed by body"
    );
    assert_eq!(
        by_body().await.unwrap().status(),
        StatusCode::NOT_FOUND,
        "a second removal finds nothing"
    );
    let unnamed = svc
        .http
        .delete(&url)
        .bearer_auth(&svc.approver)
        .send()
        .await
        .unwrap();
    assert_eq!(
        unnamed.status(),
        StatusCode::BAD_REQUEST,
        "which endpoint must be said"
    );
}
