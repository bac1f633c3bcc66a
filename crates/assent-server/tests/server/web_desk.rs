//! The web desk over plain HTTP (no browser): the page is served with a strict CSP; the API
//! takes a browser only from the desk's own origin, only without a token, and only with a
//! session; invites are single-person, short-lived and refused once expired (fake clock).
//! The ceremonies themselves, with a real authenticator, are in `tests/e2e/browser.rs`.
use crate::common::Service;
use chrono::Duration;
use reqwest::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, ORIGIN, SET_COOKIE};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The desk's own origin as a browser at `http://localhost:PORT` names it.
fn own(svc: &Service) -> String {
    format!("http://localhost:{}", svc.port)
}

/// A browser's POST: `Host` and `Origin` as the page at `origin` sends them, no token.
async fn browser_post(
    svc: &Service,
    origin: &str,
    path: &str,
    body: &Value,
) -> (StatusCode, Value) {
    let resp = svc
        .http
        .post(format!("{}{path}", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header(ORIGIN, origin)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn code_of(link: &str) -> String {
    link.rsplit_once('#')
        .map(|(_, code)| code.to_owned())
        .unwrap()
}

#[tokio::test]
async fn the_page_is_served_at_desk_with_a_strict_policy() {
    let svc = Service::start().await;
    for path in ["/desk/", "/desk/enrol"] {
        let resp = svc
            .http
            .get(format!("{}{path}", svc.url))
            .send()
            .await
            .unwrap();
        // Without a built UI the page says how to build it; either way the policy holds.
        let csp = resp.headers().get(CONTENT_SECURITY_POLICY).cloned();
        let csp = csp
            .and_then(|v| v.to_str().ok().map(str::to_owned))
            .unwrap_or_default();
        assert!(
            csp.contains("default-src 'self'")
                && csp.contains("script-src 'self'")
                && csp.contains("frame-ancestors 'none'"),
            "{path}: every desk answer carries the strict CSP: {csp:?}"
        );
        assert!(
            !csp.contains("unsafe"),
            "{path}: no unsafe-inline or unsafe-eval: {csp}"
        );
    }
    let resp = svc
        .http
        .get(format!("{}/desk", svc.url))
        .send()
        .await
        .unwrap();
    assert!(
        resp.url().path() == "/desk/" || resp.status().is_redirection(),
        "/desk leads to /desk/, where the page's relative paths resolve"
    );
}

#[tokio::test]
async fn a_browser_is_heard_only_from_the_desks_own_origin_and_never_with_a_token() {
    let svc = Service::start().await;
    let (status, body) =
        browser_post(&svc, "http://evil.example", "/v1/session/start", &json!({})).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "another site's page is refused: {body}"
    );

    let (status, body) = browser_post(&svc, &own(&svc), "/v1/session/start", &json!({})).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the desk's own page may start a sign-in: {body}"
    );
    assert_eq!(
        body["publicKey"]["rpId"], "localhost",
        "the relying party is the host name"
    );
    assert_eq!(
        body["publicKey"]["userVerification"], "required",
        "a passkey must verify its user (PIN, biometrics)"
    );
    assert!(
        body["ceremony"].as_str().is_some_and(|c| !c.is_empty()),
        "the ceremony is named: {body}"
    );

    // The desk's origin with a bearer token: a page must never hold one.
    let resp = svc
        .http
        .get(format!("{}/v1/me", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header(ORIGIN, own(&svc))
        .bearer_auth(&svc.approver)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::FORBIDDEN,
        "a token from a page is refused even on the desk's origin"
    );

    // The desk's origin without a session.
    let resp = svc
        .http
        .get(format!("{}/v1/approvals?status=pending", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header(ORIGIN, own(&svc))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::UNAUTHORIZED,
        "no session: nothing is shown"
    );
    let resp = svc
        .http
        .get(format!("{}/v1/me", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header(
            "cookie",
            "assent_session=assent_s_0123456789abcdef0123456789abcdef01234567",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::UNAUTHORIZED,
        "a made-up session cookie is no session"
    );

    let resp = svc
        .http
        .get(format!("{}/v1/me", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header("sec-fetch-site", "cross-site")
        .bearer_auth(&svc.approver)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::FORBIDDEN,
        "another site's request reaches no API route"
    );
}

#[tokio::test]
async fn passkeys_are_refused_at_an_ip_address_with_the_name_to_use_instead() {
    let svc = Service::start().await;
    let resp = svc
        .http
        .post(format!("{}/v1/session/start", svc.url))
        .header(ORIGIN, &svc.url)
        .header(CONTENT_TYPE, "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "WebAuthn refuses an IP address as relying party: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("localhost"),
        "the answer says which address works instead: {body}"
    );
}

#[tokio::test]
async fn an_invite_works_for_its_person_until_it_expires() {
    let svc = Service::start().await;
    let dir = crate::common::backend::directory(&svc.data_dir()).await;
    // A person without roles: may invite themselves, nobody else.
    let bob = dir.add_person("bob", &[]).await.unwrap();

    let (status, invite) = svc
        .post(
            "/v1/invites",
            &svc.approver,
            &json!({"person": "bob", "for": "15m"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the owner (platform_admin) invites bob: {invite}"
    );
    let link = invite["link"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("http://localhost:{}/desk/enrol#", svc.port)),
        "the link opens the desk by name (passkeys need one), the code in the fragment: {link}"
    );
    assert_eq!(invite["person"], "bob");

    let code = code_of(link);
    let (status, body) = browser_post(
        &svc,
        &own(&svc),
        "/v1/passkeys/register/start",
        &json!({"invite": code}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "an open invite starts a registration: {body}"
    );
    assert_eq!(
        body["publicKey"]["user"]["name"], "bob",
        "the passkey is made for bob"
    );
    assert_eq!(
        body["publicKey"]["authenticatorSelection"]["residentKey"], "required",
        "a discoverable passkey: signing in asks no name"
    );

    let (status, _) = browser_post(
        &svc,
        &own(&svc),
        "/v1/passkeys/register/start",
        &json!({"invite": "00ff00ff00ff00ff00ff"}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an unknown code starts nothing"
    );

    svc.clock.advance(Duration::minutes(16));
    let (status, body) = browser_post(
        &svc,
        &own(&svc),
        "/v1/passkeys/register/start",
        &json!({"invite": code}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an expired invite enrols nothing: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("expired"),
        "the answer says it expired (ask for a new one): {body}"
    );

    let (status, body) = svc
        .post("/v1/invites", &bob, &json!({"person": "owner"}))
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "without platform_admin, no invite for someone else: {body}"
    );
    let (status, body) = svc.post("/v1/invites", &bob, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "anyone may invite themselves (a new device): {body}"
    );
    let (status, _) = svc
        .post("/v1/invites", &svc.approver, &json!({"person": "nobody"}))
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "no invite for a person who does not exist"
    );
    let (status, _) = svc
        .post("/v1/invites", &svc.approver, &json!({"for": "3d"}))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an invite works for at most a day"
    );
    let (status, _) = svc.post("/v1/invites", &svc.requester, &json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an agent invites nobody");

    let audit = svc.get("/v1/audit", &svc.approver).await.1;
    let invited = audit["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["decision"] == "invited")
        .count();
    assert_eq!(
        invited, 2,
        "each invite made is audited (bob's, and bob's own)"
    );
}

#[tokio::test]
async fn ceremonies_refuse_garbage_and_finish_once() {
    let svc = Service::start().await;
    let hostile = [
        json!({}),
        json!("x".repeat(10_000)),
        json!({"id": "AAAA", "rawId": "AAAA", "type": "public-key",
            "response": {"clientDataJSON": "e30", "authenticatorData": "AAAA", "signature": "AAAA"}}),
    ];
    for credential in hostile {
        // A fresh ceremony each time: each finishes once, whatever it was given.
        let (_, start) = browser_post(&svc, &own(&svc), "/v1/session/start", &json!({})).await;
        let body = json!({"ceremony": start["ceremony"], "credential": credential});
        let (status, answer) = browser_post(&svc, &own(&svc), "/v1/session/finish", &body).await;
        assert!(
            status == StatusCode::BAD_REQUEST || status == StatusCode::FORBIDDEN,
            "a malformed or forged assertion signs nobody in: {status} {answer}"
        );
    }
    let (status, _) = browser_post(
        &svc,
        &own(&svc),
        "/v1/session/finish",
        &json!({"ceremony": "c_nope", "credential": {}}),
    )
    .await;
    assert!(
        status.is_client_error(),
        "an unknown ceremony finishes nothing"
    );
    let resp = svc
        .http
        .post(format!("{}/v1/session/end", svc.url))
        .header(HOST, format!("localhost:{}", svc.port))
        .header(ORIGIN, own(&svc))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::NO_CONTENT,
        "signing out without a session is harmless"
    );
    let cleared = resp
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        cleared.contains("Max-Age=0") && cleared.contains("HttpOnly"),
        "the cookie is cleared: {cleared}"
    );
}
