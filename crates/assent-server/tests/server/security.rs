use std::os::unix::fs::PermissionsExt;

use crate::common::{maven, Service};
use assent_core::Policy;
use assent_server::{App, Config, LaunchError, TokenError};
use reqwest::header::{ACCESS_CONTROL_ALLOW_ORIGIN, CONTENT_TYPE, HOST, ORIGIN};
use reqwest::StatusCode;
use serde_json::json;

async fn raw_submit(
    svc: &Service,
    content_type: &str,
    body: Vec<u8>,
) -> (StatusCode, serde_json::Value) {
    let resp = svc
        .http
        .post(format!("{}/v1/actions", svc.url))
        .bearer_auth(&svc.requester)
        .header(CONTENT_TYPE, content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or(serde_json::Value::Null))
}

#[tokio::test]
async fn tokens_are_required_and_roles_enforced() {
    let svc = Service::start().await;
    let (status, body) = svc.get("/v1/approvals", "wrong-token").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a bad token is 401");
    assert_eq!(
        body["error"]["code"], "unauthorized",
        "errors use the stable shape: {body}"
    );
    let resp = svc
        .http
        .get(format!("{}/v1/grants", svc.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "no token is 401");
    let resp = svc
        .http
        .get(format!("{}/healthz", svc.url))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "healthz answers without a token"
    );
    // `/v1/events` is open to an agent, for its own events only (see agent_events.rs).
    for path in [
        "/v1/approvals",
        "/v1/grants",
        "/v1/audit",
        "/metrics",
        "/v1/metrics",
        "/v1/webhooks",
        "/v1/webhooks/wh_x/deliveries",
    ] {
        let (status, _) = svc.get(path, &svc.requester).await;
        assert_eq!(
            status,
            StatusCode::FORBIDDEN,
            "{path} is for people only; the agent's token is refused"
        );
    }
    let (status, body) = svc.post("/v1/actions", &svc.approver, &maven("r-1")).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a person may ask too (and then can never decide their own request): {body}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn foreign_hosts_browsers_and_query_tokens_are_refused() {
    let svc = Service::start().await;
    let get = |host: String| {
        svc.http
            .get(format!("{}/healthz", svc.url))
            .header(HOST, host)
            .send()
    };
    for host in [
        format!("127.0.0.1:{}", svc.port),
        format!("localhost:{}", svc.port),
        format!("[::1]:{}", svc.port),
    ] {
        assert_eq!(
            get(host.clone()).await.unwrap().status(),
            StatusCode::OK,
            "{host} is a loopback name"
        );
    }
    for host in [
        "evil.example:80".to_owned(),
        format!("evil.example:{}", svc.port),
        format!("127.0.0.1:{}", svc.port.wrapping_add(1)),
        "127.0.0.1".to_owned(),
        format!("localhost.evil.example:{}", svc.port),
    ] {
        let status = get(host.clone()).await.unwrap().status();
        assert_eq!(
            status,
            StatusCode::MISDIRECTED_REQUEST,
            "Host {host} is refused (DNS rebinding)"
        );
    }
    let resp = svc
        .http
        .get(format!("{}/v1/grants", svc.url))
        .bearer_auth(&svc.approver)
        .header(ORIGIN, "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::FORBIDDEN,
        "a browser Origin is refused"
    );
    assert!(
        resp.headers().get(ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
        "no CORS header, ever"
    );

    let (status, _) = svc
        .get(&format!("/v1/grants?token={}", svc.approver), &svc.approver)
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a token in the query string is refused"
    );
    let (status, _) = svc
        .get(
            &format!("/v1/grants?status={}", svc.approver),
            &svc.approver,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a token value anywhere in the query is refused"
    );
    let resp = svc
        .http
        .get(format!(
            "{}/v1/grants?access_token={}",
            svc.url, svc.approver
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::BAD_REQUEST,
        "a query token never authenticates"
    );
    svc.stop().await;
}

#[tokio::test]
async fn state_changes_over_get_and_unknown_routes_are_refused() {
    let svc = Service::start().await;
    for path in [
        "/v1/actions",
        "/v1/approvals/x/decision",
        "/v1/grants/x/revoke",
        "/v1/runs/r/end",
    ] {
        let (status, body) = svc.get(path, &svc.approver).await;
        assert_eq!(
            status,
            StatusCode::METHOD_NOT_ALLOWED,
            "GET {path} changes nothing: {body}"
        );
        assert_eq!(
            body["error"]["code"], "method_not_allowed",
            "405 uses the error shape"
        );
    }
    let (status, body) = svc.get("/v2/nothing", &svc.approver).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "unknown routes are 404");
    assert_eq!(
        body["error"]["code"], "not_found",
        "404 uses the error shape"
    );
    svc.stop().await;
}

#[tokio::test]
async fn hostile_bodies_are_refused() {
    let svc = Service::start().await;
    let good = serde_json::to_vec(&maven("r-1")).unwrap();
    let (status, _) = raw_submit(&svc, "text/plain", good.clone()).await;
    assert_eq!(
        status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "only application/json is read"
    );
    let (status, body) = raw_submit(&svc, "application/json", b"{\"run_id\": ".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "malformed JSON is 400");
    assert_eq!(
        body["error"]["code"], "bad_request",
        "with the error shape: {body}"
    );
    let dup = br#"{"run_id":"a","run_id":"b","task_id":"t","requested_by":"agent","action":{"kind":"shell","command":"ls","cwd":"/tmp"}}"#;
    let (status, body) = raw_submit(&svc, "application/json", dup.to_vec()).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "duplicate keys are refused: {body}"
    );
    let nested = br#"{"run_id":"a","task_id":"t","requested_by":"agent","action":{"kind":"shell","command":"ls","command":"rm -rf /","cwd":"/tmp"}}"#;
    let (status, _) = raw_submit(&svc, "application/json", nested.to_vec()).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "duplicate keys are refused at any depth"
    );
    let mut huge = maven("r-1");
    huge["reason"] = json!("x".repeat(520 * 1024));
    let (status, _) =
        raw_submit(&svc, "application/json", serde_json::to_vec(&huge).unwrap()).await;
    assert_eq!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "bodies over 512 KiB are 413"
    );
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (status, _) = raw_submit(&svc, "application/json", deep.into_bytes()).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "absurd nesting is refused, not a crash"
    );
    let mut unknown = maven("r-1");
    unknown["surprise"] = json!(true);
    let (status, _) = raw_submit(
        &svc,
        "application/json",
        serde_json::to_vec(&unknown).unwrap(),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "unknown fields are refused"
    );
    let mut empty_run = maven("r-1");
    empty_run["run_id"] = json!("");
    let (status, _) = raw_submit(
        &svc,
        "application/json",
        serde_json::to_vec(&empty_run).unwrap(),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an empty run id is refused"
    );
    let (status, _) = raw_submit(&svc, "application/json", good).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "after all that, a good request still works"
    );
    let (status, _) = svc
        .post(
            "/v1/approvals/x/decision",
            &svc.approver,
            &json!({"decision":"maybe"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an unknown decision is refused"
    );
    svc.stop().await;
}

#[tokio::test]
async fn tokens_are_private_files_and_open_ones_refuse_to_start() {
    let svc = Service::start().await;
    let dir = svc.data_dir();
    for name in ["requester.token", "approver.token"] {
        let mode = std::fs::metadata(dir.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{name} is created mode 0600");
    }
    let requester = std::fs::read_to_string(dir.join("requester.token")).unwrap();
    assert_eq!(
        requester.trim(),
        svc.requester,
        "the file holds the token the service checks"
    );
    assert_ne!(svc.requester, svc.approver, "the two tokens differ");
    let (tmp, _) = svc.stop().await;

    std::fs::set_permissions(
        tmp.path().join("approver.token"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let refused = App::open(Config::new(tmp.path(), Policy::default())).await;
    assert!(
        matches!(
            refused,
            Err(LaunchError::Tokens(TokenError::TooOpen { .. }))
        ),
        "a group/other-readable token file stops the start: {refused:?}"
    );

    let fresh = tmp.path().join("fresh").join("assent");
    let app = App::open(Config::new(&fresh, Policy::default()))
        .await
        .unwrap();
    drop(app);
    let dir_mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        dir_mode, 0o700,
        "a data dir created on first start is private"
    );
}
