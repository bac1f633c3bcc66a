//! A pushed prompt in a real browser: Debian's Chromium, headless, driven by chromedriver,
//! on the web desk after enrolling a passkey (so the desk's service worker is registered and
//! the person is signed in). No push service can be reached here, so the DevTools protocol
//! delivers the message to the worker (`ServiceWorker.deliverPushMessage`, through
//! chromedriver's `goog/cdp/execute`); the notifications the worker shows are read back with
//! `registration.getNotifications()`: "Allow once" and "Deny" for a low-risk prompt, only
//! "Review in the desk" for a high-risk one or one the service marks open-only. Run by
//! scripts/test.d/40-e2e.sh (needs chromium and chromium-driver).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assent_core::Role;
use common::driver::{click, element};
use common::{eventually, shell_request, submit_pending, TestService, ASKED_COMMAND};
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(20);
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver on a free port, a Chromium session on a fresh profile with a virtual
/// authenticator (to enrol and sign in), and the DevTools protocol through the driver.
struct Browser {
    driver: Child,
    port: u16,
    client: Client,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    async fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| {
                panic!("{CHROMEDRIVER} must run (apt-get install chromium-driver): {err}")
            });
        eventually("chromedriver to listen", WAIT, || async {
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .ok()
        })
        .await;
        let profile = tempfile::tempdir().unwrap();
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1280,800",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a Chromium session");
        let session = client.session_id().await.unwrap().unwrap();
        let browser = Browser {
            driver,
            port,
            client,
            session,
            _profile: profile,
        };
        browser
            .driver_post(
                "webauthn/authenticator",
                &json!({
                    "protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
                    "hasUserVerification": true, "isUserVerified": true,
                }),
            )
            .await;
        browser
    }

    async fn driver_post(&self, what: &str, body: &Value) -> Value {
        let resp = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/session/{}/{what}",
                self.port, self.session
            ))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let answer: Value = resp.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{what} {body}: {answer}");
        answer
    }

    /// One DevTools protocol command, through chromedriver.
    async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.driver_post("goog/cdp/execute", &json!({"cmd": cmd, "params": params}))
            .await
    }

    /// Runs `script` in the page (a promise is awaited) and returns its value.
    async fn run(&self, script: &str) -> Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|err| panic!("{script}: {err}"))
    }

    async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The notifications the desk's worker shows now: `[{tag, title, body, actions}]`.
const SHOWN: &str = "const reg = await navigator.serviceWorker.ready; \
    const shown = await reg.getNotifications(); \
    return shown.map(n => ({tag: n.tag, title: n.title, body: n.body, \
      actions: (n.actions || []).map(a => a.title)}));";

#[tokio::test]
async fn a_pushed_prompt_is_shown_with_the_actions_its_risk_allows() {
    let svc = TestService::start().await;
    svc.person("alice", &[Role::TaskAuthor, Role::RepoMaintainer])
        .await;
    let directory = assent_server::Directory::open(svc.dir.path())
        .await
        .unwrap();
    let desk = format!("http://localhost:{}", svc.port);
    let link = directory.invite("alice", "15m", &desk).await.unwrap().link;
    directory.close().await;
    let request = shell_request("run-push", ASKED_COMMAND, "/home/dev/shop");
    let approval_id = submit_pending(&svc.requester(), &request).await;

    let browser = Browser::start().await;
    let page = &browser.client;
    page.goto(&link).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    element(
        page,
        &format!("[data-testid=prompt][data-approval-id='{approval_id}']"),
    )
    .await;

    // The desk registered its worker; the person allowed notifications (the permission a
    // press of "Notify me on this device" asks for).
    let scope = browser
        .run("const reg = await navigator.serviceWorker.ready; return reg.scope;")
        .await;
    assert_eq!(
        scope,
        json!(format!("{desk}/desk/")),
        "the desk's worker is active, scoped to the desk"
    );
    browser
        .cdp(
            "Browser.grantPermissions",
            json!({"origin": desk, "permissions": ["notifications"]}),
        )
        .await;
    browser.cdp("ServiceWorker.enable", json!({})).await;

    // What the service pushes (the payload of `crate::push::message`), delivered to the
    // worker by the browser itself: a low-risk prompt, then a high-risk one.
    let low = json!({"approval_id": approval_id, "risk": "low",
        "summary": "Run `mvn -B test` in shop", "open_only": false});
    let high = json!({"approval_id": "a-high", "risk": "high",
        "summary": "Run `git push --force` in shop", "open_only": false});
    let stepped = json!({"approval_id": "a-step", "risk": "medium",
        "summary": "Run `npm publish` in shop", "open_only": true});
    for data in [&low, &high, &stepped] {
        browser
            .cdp(
                "ServiceWorker.deliverPushMessage",
                json!({"origin": desk, "registrationId": "0", "data": data.to_string()}),
            )
            .await;
    }
    let shown = eventually("the worker to show three notifications", WAIT, || async {
        let shown = browser.run(SHOWN).await;
        (shown.as_array().map_or(0, Vec::len) >= 3).then_some(shown)
    })
    .await;
    let by_tag = |tag: &str| {
        shown
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["tag"] == tag)
            .cloned()
            .unwrap_or_else(|| panic!("a notification tagged {tag}: {shown}"))
    };
    let low_shown = by_tag(&format!("approval-{approval_id}"));
    assert_eq!(
        low_shown["actions"],
        json!(["Allow once", "Deny"]),
        "a low-risk prompt can be answered from the notification: {low_shown}"
    );
    assert_eq!(
        low_shown["body"], "Run `mvn -B test` in shop",
        "the notification says what is asked"
    );
    assert!(
        low_shown["title"].as_str().unwrap().contains("low"),
        "and how risky it is: {low_shown}"
    );
    let high_shown = by_tag("approval-a-high");
    assert_eq!(
        high_shown["actions"],
        json!(["Review in the desk"]),
        "a high-risk prompt is only opened, never approved from a notification: {high_shown}"
    );
    let stepped_shown = by_tag("approval-a-step");
    assert_eq!(
        stepped_shown["actions"],
        json!(["Review in the desk"]),
        "what the service marks open-only (a step-up) is only opened: {stepped_shown}"
    );

    // A message that is not the service's (junk) still shows a plain, safe prompt.
    browser
        .cdp(
            "ServiceWorker.deliverPushMessage",
            json!({"origin": desk, "registrationId": "0", "data": "<img src=x onerror=alert(1)>"}),
        )
        .await;
    let junk = eventually("the worker to show the junk message", WAIT, || async {
        let shown = browser.run(SHOWN).await;
        shown
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["tag"] == "approval")
            .cloned()
    })
    .await;
    assert_eq!(
        junk["actions"],
        json!(["Review in the desk"]),
        "a message that is no prompt offers no decision: {junk}"
    );
    browser.close().await;
}
