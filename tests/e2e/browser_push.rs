//! A pushed prompt in a real browser: Debian's Chromium, headless, driven by chromedriver,
//! on the web desk after enrolling a passkey (so the desk's service worker is registered and
//! the person is signed in). No push service can be reached here, so the DevTools protocol
//! delivers the message to the worker (`ServiceWorker.deliverPushMessage`, through
//! chromedriver's `goog/cdp/execute`); the notifications the worker shows are read back with
//! `registration.getNotifications()`: "Allow once" and "Deny" for a low-risk prompt, only
//! "Review in the desk" for a high-risk one or one the service marks open-only. And the
//! buttons pressed as a person presses them: Chromium hands the notification to the session
//! bus's notification server (the suite's own, as on a Linux desktop), which presses "Allow
//! once" or "Deny"; the worker decides through the session. Run by scripts/test.d/40-e2e.sh
//! under dbus-run-session (needs chromium and chromium-driver).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use std::time::Duration;

use assent_core::{ApprovalStatus, Role};
use assent_protocol::DecisionRequest;
use common::browser::Browser;
use common::driver::{click, element};
use common::notification_server::{Call, NotificationServer, PressOrder};
use common::{eventually, shell_request, status_of, submit_pending, TestService, ASKED_COMMAND};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(20);

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
    let desk = format!("http://localhost:{}", svc.port);
    let link = common::browser::invite(svc.dir.path(), svc.port, "alice").await;
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

/// What the service pushes about `approval` (`push::message::payload` on the default policy:
/// a low-risk prompt with a "once" scope may be answered from the notification).
fn pushed(approval: &assent_protocol::Approval) -> Value {
    json!({
        "approval_id": approval.approval_id,
        "risk": approval.facts.risk,
        "summary": approval.evidence.summary,
        "open_only": false,
    })
}

/// The next notification Chromium hands the session's notification server (its id and its
/// actions as `[key, label, key, label, …]`), with what it showed, as Notify's body.
async fn shown_natively(server: &mut NotificationServer, what: &str) -> (u32, Vec<String>, String) {
    loop {
        match server.next(WAIT).await {
            Some(Call::Notify {
                id, actions, body, ..
            }) => return (id, actions, body),
            Some(Call::Close { .. }) => continue,
            None => panic!("Chromium shows {what} through org.freedesktop.Notifications"),
        }
    }
}

/// The key of the action labelled `label` in a Notify call's `[key, label, …]` list.
fn key_of(actions: &[String], label: &str) -> String {
    actions
        .chunks(2)
        .find(|pair| pair.get(1).is_some_and(|l| l == label))
        .and_then(|pair| pair.first().cloned())
        .unwrap_or_else(|| panic!("an action labelled {label:?} in {actions:?}"))
}

/// A press on a pushed notification's button, made as a person makes it: Chromium (signed
/// in as alice on the desk) shows the worker's notification on the session's notification
/// server, the server presses "Allow once" or "Deny" (`ActionInvoked`, what GNOME Shell
/// sends), Chromium gives the worker its `notificationclick` with that action, and the worker
/// decides through alice's session. A press on a prompt someone decided meanwhile decides
/// nothing and says who did.
#[tokio::test]
async fn allow_once_and_deny_on_a_pushed_notification_decide_through_the_session() {
    // Chromium looks for a notification server as it starts: own the name first.
    let mut notifications = NotificationServer::start().await;
    let svc = TestService::start().await;
    svc.person("alice", &[Role::TaskAuthor, Role::RepoMaintainer])
        .await;
    let link = common::browser::invite(svc.dir.path(), svc.port, "alice").await;
    let desk = format!("http://localhost:{}", svc.port);
    let mut prompts = Vec::new();
    for run in ["run-allow", "run-deny", "run-meanwhile"] {
        let request = shell_request(run, ASKED_COMMAND, "/home/dev/shop");
        prompts.push(submit_pending(&svc.requester(), &request).await);
    }
    let [allow, deny, meanwhile] = prompts.as_slice() else {
        unreachable!("three prompts")
    };

    let browser = Browser::start().await;
    let page = &browser.client;
    page.goto(&link).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    element(
        page,
        &format!("[data-testid=prompt][data-approval-id='{allow}']"),
    )
    .await;
    browser
        .run("await navigator.serviceWorker.ready; return true;")
        .await;
    browser
        .cdp(
            "Browser.grantPermissions",
            json!({"origin": desk, "permissions": ["notifications"]}),
        )
        .await;
    browser.cdp("ServiceWorker.enable", json!({})).await;
    let deliver = |approval: &assent_protocol::Approval| {
        let data = pushed(approval).to_string();
        let desk = desk.clone();
        let browser = &browser;
        async move {
            browser
                .cdp(
                    "ServiceWorker.deliverPushMessage",
                    json!({"origin": desk, "registrationId": "0", "data": data}),
                )
                .await;
        }
    };
    let approver = svc.approver();

    for (id, label, want) in [
        (allow, "Allow once", ApprovalStatus::ApprovedOnce),
        (deny, "Deny", ApprovalStatus::Denied),
    ] {
        let approval = approver.approval(id, None).await.unwrap();
        deliver(&approval).await;
        let (shown, actions, body) = shown_natively(&mut notifications, "the pushed prompt").await;
        assert!(
            body.contains(&approval.evidence.summary),
            "the notification says what is asked: {body}"
        );
        assert_eq!(
            actions
                .chunks(2)
                .filter_map(|pair| pair.get(1).cloned())
                .filter(|l| l == "Allow once" || l == "Deny")
                .collect::<Vec<_>>(),
            ["Allow once", "Deny"],
            "a low-risk prompt's notification has both buttons: {actions:?}"
        );
        notifications
            .press(shown, &key_of(&actions, label), PressOrder::ActionFirst)
            .await;
        let decided = eventually(&format!("{label} to decide {id}"), WAIT, || async {
            let now = approver.approval(id, None).await.unwrap();
            (now.status != ApprovalStatus::Requested).then_some(now)
        })
        .await;
        assert_eq!(
            decided.status, want,
            "{label} on the notification decides the prompt: {decided:?}"
        );
        assert_eq!(
            decided.decided_by.as_deref(),
            Some("alice"),
            "the worker decided through alice's session, as alice"
        );
    }
    assert_eq!(
        status_of(&approver, meanwhile).await,
        ApprovalStatus::Requested,
        "each press decided only its own prompt"
    );

    // Pushed, then decided elsewhere before the press: the press says so and changes nothing.
    let approval = approver.approval(meanwhile, None).await.unwrap();
    deliver(&approval).await;
    let (shown, actions, _) = shown_natively(&mut notifications, "the third prompt").await;
    approver
        .decide(
            meanwhile,
            &DecisionRequest::Deny {
                reason: "not this one".to_owned(),
            },
        )
        .await
        .expect("the owner denies it from another desk");
    notifications
        .press(
            shown,
            &key_of(&actions, "Allow once"),
            PressOrder::ActionFirst,
        )
        .await;
    let (_, _, said) = shown_natively(&mut notifications, "what the press found").await;
    assert!(
        said.contains("Already denied by owner"),
        "a press on a prompt decided meanwhile says by whom: {said}"
    );
    assert_eq!(
        status_of(&approver, meanwhile).await,
        ApprovalStatus::Denied,
        "the late press approved nothing"
    );
    browser.close().await;
}
