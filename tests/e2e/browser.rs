//! The web desk in a real browser: Debian's Chromium, headless, driven by chromedriver (W3C
//! WebDriver) with a virtual authenticator (the WebDriver WebAuthn extension) standing in for
//! a phone's or laptop's passkey. Against the real service on loopback: an invite's link
//! enrols a passkey and signs in; the desk shows the pending prompt with its evidence, on a
//! desktop-sized and a phone-sized window; a decision made there settles the prompt as the
//! person; the used link is refused, and so is an expired one; signing out and in again works
//! with the passkey alone, and a signed-out page decides nothing; a replayed assertion, one
//! made for another ceremony or one with a wrong signature is refused; the session cookie is
//! HttpOnly and useless without the desk's Origin for a change; a person without the
//! approval's role is refused. Run by scripts/test.d/40-e2e.sh (needs chromium and
//! chromium-driver, installed by scripts/deps.sh).
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
use common::browser::Browser;
use common::driver::{click, element, text_of};
use common::{eventually, shell_request, status_of, submit_pending, TestService, ASKED_COMMAND};
use fantoccini::Locator;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(20);

/// A one-time enrolment link for `person` of the service, at its `localhost` name.
async fn invite(svc: &TestService, person: &str) -> String {
    common::browser::invite(svc.dir.path(), svc.port, person).await
}

/// What a fetch from the page answers: `[status, body]`.
const FETCH: &str = "const call = async (method, path, body) => { \
    const r = await fetch(path, {method, headers: {'Content-Type': 'application/json'}, \
      body: body === undefined ? undefined : JSON.stringify(body)}); \
    return [r.status, await r.json().catch(() => null)]; };";

#[tokio::test]
async fn a_passkey_from_an_invite_signs_in_and_decides_in_the_browser() {
    // The service's own log on failure (an internal error names its cause only there).
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let svc = TestService::start().await;
    svc.person("alice", &[Role::TaskAuthor, Role::RepoMaintainer])
        .await;
    let link = invite(&svc, "alice").await;
    let request = shell_request("run-web", ASKED_COMMAND, "/home/dev/shop");
    let approval_id = submit_pending(&svc.requester(), &request).await;

    let browser = Browser::start().await;
    let page = &browser.client;
    page.goto(&link).await.unwrap();
    element(page, "[data-testid=enrol]").await;
    browser.screenshot("web-enrol.png").await;
    click(page, "[data-testid=enrol-passkey]").await;

    // Enrolled and signed in: the desk itself, at /desk/, with the prompt.
    let prompt = format!("[data-testid=prompt][data-approval-id='{approval_id}']");
    element(page, &prompt).await;
    let url = page.current_url().await.unwrap();
    assert_eq!(
        url.path(),
        "/desk/",
        "after enrolling, the link's page becomes the desk"
    );
    assert!(
        url.fragment().is_none_or(|f| f.is_empty()),
        "the invite's code leaves the address bar"
    );
    let me = text_of(page, "[data-testid=me]").await;
    assert!(me.contains("alice"), "the desk says who signed in: {me}");
    let command = text_of(page, "[data-testid=prompt-detail]").await;
    assert!(
        command.contains("mvn"),
        "the prompt names the command: {command}"
    );

    let (value, cookie) = browser
        .cookie("assent_session")
        .await
        .expect("a session cookie is set");
    assert!(
        cookie.contains("HttpOnly"),
        "the page's scripts cannot read the session: {cookie}"
    );
    assert!(
        cookie.contains("SameSite=Strict"),
        "no other site's request carries it: {cookie}"
    );
    let stolen = browser.run("return document.cookie").await;
    assert!(
        !stolen
            .as_str()
            .unwrap_or_default()
            .contains("assent_session"),
        "document.cookie holds no session"
    );

    browser.screenshot("web-desk-desktop.png").await;
    page.set_window_size(360, 780).await.unwrap();
    element(page, &prompt).await;
    let overflow = browser
        .run("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        .await;
    assert!(
        overflow.as_i64().unwrap_or(i64::MAX) <= 0,
        "on a 360 px phone nothing runs off the side of the page (overflow {overflow})"
    );
    browser.screenshot("web-desk-phone.png").await;
    page.set_window_size(1280, 800).await.unwrap();

    // The session alone, without the page's Origin, changes nothing; with it, reads work.
    let http = reqwest::Client::new();
    let forged = http
        .post(format!("{}/v1/approvals/{approval_id}/decision", svc.url()))
        .header("host", format!("localhost:{}", svc.port))
        .header("cookie", format!("assent_session={value}"))
        .json(&json!({"decision": "deny", "reason": "forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        forged.status().as_u16(),
        403,
        "a change with the cookie but no Origin is refused"
    );
    let foreign = http
        .post(format!("{}/v1/approvals/{approval_id}/decision", svc.url()))
        .header("host", format!("localhost:{}", svc.port))
        .header("origin", "http://evil.example")
        .header("cookie", format!("assent_session={value}"))
        .json(&json!({"decision": "deny", "reason": "forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        foreign.status().as_u16(),
        403,
        "another site's Origin is refused, cookie or not"
    );
    assert_eq!(
        status_of(&svc.approver(), &approval_id).await,
        ApprovalStatus::Requested,
        "nothing forged was decided"
    );

    click(page, "[data-testid=prompt-detail] [data-testid=allow-run]").await;
    eventually(
        "the prompt to leave the browser's Pending",
        WAIT,
        || async {
            page.find(Locator::Css(&prompt))
                .await
                .is_err()
                .then_some(())
        },
    )
    .await;
    assert_eq!(
        status_of(&svc.approver(), &approval_id).await,
        ApprovalStatus::ApprovedForRun,
        "decided from the browser"
    );
    let audit = svc.approver().audit(None, Some("run-web")).await.unwrap();
    let approved = audit
        .iter()
        .find(|e| {
            e.approval_id.as_deref() == Some(approval_id.as_str())
                && e.decision == assent_core::AuditDecision::Approved
        })
        .expect("the approval is audited");
    assert_eq!(
        approved.approver.as_deref(),
        Some("alice"),
        "the audit names the person of the session"
    );

    // The link was used: it enrols nothing more.
    page.goto(&link).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    let error = text_of(page, "[data-testid=enrol-error]").await;
    assert!(error.contains("used"), "a used invite says so: {error}");

    // Sign out, then in again with the passkey alone (no name asked).
    page.goto(&format!("http://localhost:{}/desk/", svc.port))
        .await
        .unwrap();
    click(page, "[data-testid=tab-settings]").await;
    element(page, "[data-testid=passkey]").await;
    click(page, "[data-testid=sign-out]").await;
    element(page, "[data-testid=sign-in]").await;
    browser.screenshot("web-sign-in.png").await;
    let signed_out = browser
        .run(&format!(
            "{FETCH} return await call('POST', '/v1/approvals/{approval_id}/decision', {{decision: 'deny', reason: 'after sign-out'}});"
        ))
        .await;
    assert_eq!(
        signed_out[0], 401,
        "signed out, the page has no session: the desk's own origin alone decides nothing: {signed_out}"
    );
    click(page, "[data-testid=sign-in-passkey]").await;
    element(page, "[data-testid=me]").await;
    let me = eventually("the desk to say who signed in again", WAIT, || async {
        let text = text_of(page, "[data-testid=me]").await;
        text.contains("alice").then_some(text)
    })
    .await;
    assert!(me.contains("alice"), "signed in again as alice");

    // A replayed assertion, one made for another ceremony, or one whose signature is wrong,
    // signs nobody in.
    let statuses = browser
        .run(&format!(
            "{FETCH} \
             const [, s1] = await call('POST', '/v1/session/start', {{}}); \
             const got = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s1.publicKey)}}); \
             const credential = got.toJSON(); \
             const [first] = await call('POST', '/v1/session/finish', {{ceremony: s1.ceremony, credential}}); \
             const [again] = await call('POST', '/v1/session/finish', {{ceremony: s1.ceremony, credential}}); \
             const [, s2] = await call('POST', '/v1/session/start', {{}}); \
             const [other] = await call('POST', '/v1/session/finish', {{ceremony: s2.ceremony, credential}}); \
             const [, s3] = await call('POST', '/v1/session/start', {{}}); \
             const got3 = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s3.publicKey)}}); \
             const own = got3.toJSON(); const sig = own.response.signature; \
             const flipped = sig.slice(0, 12) + (sig[12] === 'A' ? 'B' : 'A') + sig.slice(13); \
             const forged = {{...own, response: {{...own.response, signature: flipped}}}}; \
             const [wrong] = await call('POST', '/v1/session/finish', {{ceremony: s3.ceremony, credential: forged}}); \
             return [first, again, other, wrong];"
        ))
        .await;
    assert_eq!(
        statuses,
        json!([200, 403, 403, 403]),
        "an assertion counts once, for its own ceremony only, and only with its own signature"
    );

    // bob holds no role the prompt needs: enrolled and signed in, he is still refused.
    let second = submit_pending(
        &svc.requester(),
        &shell_request("run-web-2", ASKED_COMMAND, "/home/dev/shop"),
    )
    .await;
    svc.person("bob", &[]).await;
    page.goto(&invite(&svc, "bob").await).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    element(
        page,
        &format!("[data-testid=prompt][data-approval-id='{second}']"),
    )
    .await;
    let refused = browser
        .run(&format!(
            "{FETCH} return await call('POST', '/v1/approvals/{second}/decision', {{decision: 'deny', reason: 'not mine'}});"
        ))
        .await;
    assert_eq!(
        refused[0], 403,
        "a person without the approval's role is refused: {refused}"
    );
    assert_eq!(
        status_of(&svc.approver(), &second).await,
        ApprovalStatus::Requested,
        "bob's refusal decided nothing"
    );
    browser.close().await;
}

#[tokio::test]
async fn with_step_up_an_approval_needs_a_passkey_made_for_it() {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    // As a person writes it in policy.toml (the file's key once was read and then dropped).
    let policy = assent_core::Policy::from_toml("[approvals]\nstep_up = \"low\"\n").unwrap();
    let svc = TestService::with_policy(policy).await;
    svc.person("alice", &[Role::TaskAuthor, Role::RepoMaintainer])
        .await;
    let carol = svc.client(
        &svc.person("carol", &[Role::TaskAuthor, Role::RepoMaintainer])
            .await,
    );
    let first = submit_pending(
        &svc.requester(),
        &shell_request("run-up-1", ASKED_COMMAND, "/home/dev/shop"),
    )
    .await;
    let second = submit_pending(
        &svc.requester(),
        &shell_request("run-up-2", ASKED_COMMAND, "/home/dev/shop"),
    )
    .await;
    let third = submit_pending(
        &svc.requester(),
        &shell_request("run-up-3", ASKED_COMMAND, "/home/dev/shop"),
    )
    .await;
    assert!(
        first != second && second != third,
        "three runs, three prompts"
    );
    let listed = svc.approver().approval(&first, None).await.unwrap();
    assert_eq!(
        listed.step_up_url.as_deref(),
        Some(format!("http://localhost:{}/desk/#/pending/{first}", svc.port).as_str()),
        "the prompt tells every desk where a passkey confirms it, so none offers a click \
         the service would refuse"
    );

    // A token alone — the CLI's, the desktop's — cannot approve it.
    let refused = carol
        .decide(
            &first,
            &assent_protocol::DecisionRequest::Approve {
                scope: assent_core::ScopeKind::Once,
                expires_in_seconds: 600,
                max_uses: None,
                reason: None,
                path_patterns: None,
            },
        )
        .await
        .expect_err("a token alone does not approve under step-up");
    let text = refused.to_string();
    assert!(
        text.contains("passkey") && text.contains("/desk/"),
        "the refusal says where to confirm: {text}"
    );

    let browser = Browser::start().await;
    let page = &browser.client;
    page.goto(&invite(&svc, "alice").await).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    let prompt = format!("[data-testid=prompt][data-approval-id='{first}']");
    click(page, &prompt).await;
    click(page, "[data-testid=prompt-detail] [data-testid=allow-run]").await;
    eventually("the stepped-up approval to settle", WAIT, || async {
        (status_of(&svc.approver(), &first).await == ApprovalStatus::ApprovedForRun).then_some(())
    })
    .await;

    // A proof made for one approval decides no other, and counts once.
    let statuses = browser
        .run(&format!(
            "{FETCH} \
             const [, s] = await call('POST', '/v1/approvals/{third}/step-up', {{}}); \
             const got = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s.publicKey)}}); \
             const step_up = {{ceremony: s.ceremony, credential: got.toJSON()}}; \
             const approve = {{decision: 'approve', scope: 'once', expires_in_seconds: 600, step_up}}; \
             const [other, body] = await call('POST', '/v1/approvals/{second}/decision', approve); \
             const [, s2] = await call('POST', '/v1/approvals/{second}/step-up', {{}}); \
             const got2 = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s2.publicKey)}}); \
             const proof = {{ceremony: s2.ceremony, credential: got2.toJSON()}}; \
             const [own] = await call('POST', '/v1/approvals/{second}/decision', {{...approve, step_up: proof}}); \
             return [other, body.error.code, own];"
        ))
        .await;
    assert_eq!(
        statuses,
        json!([403, "step_up_required", 200]),
        "a proof for another approval is refused; one made for this approval decides it"
    );
    assert_eq!(
        status_of(&svc.approver(), &second).await,
        ApprovalStatus::ApprovedOnce,
        "approved with its own proof"
    );

    // A forged signature is refused, and the ceremony it spent cannot be replayed with the
    // real assertion afterwards: each step-up proves one press of the passkey, once.
    let statuses = browser
        .run(&format!(
            "{FETCH} \
             const [, s] = await call('POST', '/v1/approvals/{third}/step-up', {{}}); \
             const got = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s.publicKey)}}); \
             const good = {{ceremony: s.ceremony, credential: got.toJSON()}}; \
             const bad = JSON.parse(JSON.stringify(good)); \
             const sig = bad.credential.response.signature; \
             bad.credential.response.signature = sig.slice(0, 20) + (sig[20] === 'A' ? 'B' : 'A') + sig.slice(21); \
             const approve = {{decision: 'approve', scope: 'once', expires_in_seconds: 600}}; \
             const [forged, fb] = await call('POST', '/v1/approvals/{third}/decision', {{...approve, step_up: bad}}); \
             const [replayed, rb] = await call('POST', '/v1/approvals/{third}/decision', {{...approve, step_up: good}}); \
             return [forged, fb.error.code, replayed, rb.error.code];"
        ))
        .await;
    assert_eq!(
        statuses,
        json!([403, "step_up_required", 403, "step_up_required"]),
        "a wrong signature approves nothing, and its ceremony is spent for the real one too"
    );
    assert_eq!(
        status_of(&svc.approver(), &third).await,
        ApprovalStatus::Requested,
        "neither the forged nor the replayed proof approved the third prompt"
    );
    browser.close().await;
}

#[tokio::test]
async fn an_expired_invite_enrols_nothing_in_the_browser() {
    // The service runs an hour ahead of the directory that made the 15-minute invite.
    let ahead = chrono::Utc::now() + chrono::Duration::hours(1);
    let svc =
        TestService::with_clock(std::sync::Arc::new(assent_server::FakeClock::new(ahead))).await;
    svc.person("alice", &[Role::TaskAuthor]).await;
    let link = invite(&svc, "alice").await;

    let browser = Browser::start().await;
    let page = &browser.client;
    page.goto(&link).await.unwrap();
    click(page, "[data-testid=enrol-passkey]").await;
    let error = text_of(page, "[data-testid=enrol-error]").await;
    assert!(
        error.contains("expired"),
        "an expired invite says so, and enrols no passkey: {error}"
    );
    assert!(
        browser.cookie("assent_session").await.is_none(),
        "nor does it sign anyone in"
    );
    browser.close().await;
}

/// A person may hold several passkeys (a laptop's and a phone's) and remove any of them: a
/// removed passkey signs in no more, the others keep working, and removing the last one ends
/// the person's sessions (a session with no passkey behind it would outlive its proof).
#[tokio::test]
async fn a_person_holds_several_passkeys_and_removes_them() {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let svc = TestService::start().await;
    svc.person("alice", &[Role::TaskAuthor, Role::RepoMaintainer])
        .await;
    let desk = format!("http://localhost:{}/desk/", svc.port);

    // Two devices, each with its own authenticator, each enrolled from its own invite.
    let laptop = Browser::start().await;
    laptop
        .client
        .goto(&invite(&svc, "alice").await)
        .await
        .unwrap();
    click(&laptop.client, "[data-testid=enrol-passkey]").await;
    element(&laptop.client, "[data-testid=me]").await;
    // The phone's link is made in the laptop's Settings, as a person adding their phone does.
    laptop.client.goto(&desk).await.unwrap();
    click(&laptop.client, "[data-testid=tab-settings]").await;
    click(&laptop.client, "[data-testid=invite-make]").await;
    let shown = text_of(&laptop.client, "[data-testid=invite-link] code").await;
    assert!(
        shown.starts_with(&format!("http://localhost:{}/desk/enrol#", svc.port)),
        "Settings makes a one-time enrolment link on the desk's own origin: {shown}"
    );
    let phone = Browser::start().await;
    phone.client.goto(&shown).await.unwrap();
    click(&phone.client, "[data-testid=enrol-passkey]").await;
    element(&phone.client, "[data-testid=me]").await;

    let listed = phone
        .run(&format!(
            "{FETCH} return await call('GET', '/v1/passkeys');"
        ))
        .await;
    assert_eq!(listed[0], 200, "the list is the person's own: {listed}");
    let keys = listed[1].as_array().cloned().unwrap_or_default();
    assert_eq!(
        keys.len(),
        2,
        "both devices' passkeys are alice's: {listed}"
    );
    let laptop_key = laptop
        .run(&format!(
            "{FETCH} return await call('GET', '/v1/passkeys');"
        ))
        .await;
    assert_eq!(
        laptop_key[1], listed[1],
        "each device sees the same two passkeys of the same person"
    );

    // Which one is the laptop's: the credential its own authenticator answers with.
    let held = laptop
        .run(
            "const opts = {publicKey: {challenge: new Uint8Array(32), rpId: 'localhost', \
               userVerification: 'required'}}; \
             const got = await navigator.credentials.get(opts); return got.id;",
        )
        .await;
    let laptop_id = held
        .as_str()
        .expect("the laptop's credential id")
        .to_owned();
    assert!(
        keys.iter().any(|k| k["id"] == laptop_id.as_str()),
        "the laptop's credential is one of alice's two: {laptop_id} in {listed}"
    );
    // From the phone, remove the laptop's passkey.
    let removed = phone
        .run(&format!(
            "{FETCH} const [s] = await call('DELETE', '/v1/passkeys/{laptop_id}'); \
             const [, after] = await call('GET', '/v1/passkeys'); return [s, after.length];"
        ))
        .await;
    assert_eq!(
        removed,
        json!([204, 1]),
        "the laptop's passkey is removed; the phone's stays"
    );

    // The laptop signs out; its removed passkey no longer signs in.
    laptop.client.goto(&desk).await.unwrap();
    click(&laptop.client, "[data-testid=tab-settings]").await;
    click(&laptop.client, "[data-testid=sign-out]").await;
    element(&laptop.client, "[data-testid=sign-in]").await;
    let again = laptop
        .run(&format!(
            "{FETCH} const [, s] = await call('POST', '/v1/session/start', {{}}); \
             const got = await navigator.credentials.get({{publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(s.publicKey)}}); \
             const [status] = await call('POST', '/v1/session/finish', {{ceremony: s.ceremony, credential: got.toJSON()}}); \
             const [me] = await call('GET', '/v1/me'); return [status, me];"
        ))
        .await;
    assert_eq!(
        again,
        json!([403, 401]),
        "a removed passkey signs in no more, and the laptop holds no session"
    );

    // The phone removes its own, last passkey: its session ends with it.
    let last = phone
        .run(&format!(
            "{FETCH} const [, keys] = await call('GET', '/v1/passkeys'); \
             const [s] = await call('DELETE', '/v1/passkeys/' + keys[0].id); \
             const [me] = await call('GET', '/v1/me'); return [s, me];"
        ))
        .await;
    assert_eq!(
        last,
        json!([204, 401]),
        "removing the last passkey ends the person's session on the phone too"
    );
    laptop.close().await;
    phone.close().await;
}
