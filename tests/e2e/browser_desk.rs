//! The web desk's suite (`e2e_browser_desk`): the desk's stories (desk_stories.rs and its
//! modules, which the window's suite runs through the app) in Chromium on `/desk/` of a real
//! service on loopback, signed in with a passkey enrolled from an invite (a WebDriver virtual
//! authenticator), and what the browser is for: every view on a 360×740 phone (Chromium's
//! device mode: a mobile viewport, twice the pixel density, touch) and on a 1280×800 desktop
//! window: nothing runs off the side of any view; a batch and its evidence are shown; the
//! decide buttons are on screen, big enough to tap and not covered; a decision with a chosen
//! scope and expiry settles the prompt as the person; a grant is revoked; History says what
//! was decided. With `ASSENT_SCREENSHOTS` it writes `web-desk-phone-*.png` and
//! `web-desk-desktop-*.png` (docs/web-desk.md shows them). Run by scripts/test.d/40-e2e.sh
//! (needs chromium and chromium-driver, installed by scripts/deps.sh).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;
#[path = "desk_stories.rs"]
mod stories;

use assent_core::{ApprovalStatus, GrantStatus, ScopeKind};
use fantoccini::Locator;
use serde_json::{json, Value};

use common::driver::{click, element, text_of, WAIT};
use common::ui::{Shell, Ui};
use common::{eventually, shell_request, status_of, submit_pending, ASKED_COMMAND};

/// The desk's stories run in the browser.
const SHELL: Shell = Shell::Browser;

/// A window the desk is looked at in.
#[derive(Clone, Copy)]
enum Screen {
    Phone,
    Desktop,
}

impl Screen {
    fn name(self) -> &'static str {
        match self {
            Screen::Phone => "phone",
            Screen::Desktop => "desktop",
        }
    }
}

/// A command long enough to run off a phone's screen unless the page wraps it.
const LONG: &str = "for f in src/*.js; do node --check \"$f\"; done && npm run build && curl -X POST -H \"Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyz\" https://api.github.com/repos/acme/shop/actions/workflows/deploy.yml/dispatches";

/// How the current view lays out: how far the page (and its scrolling `main`) is wider than
/// the screen, and, to name the culprit, which elements stick out past its right edge and
/// which spill their content (an unbroken word) out of their own box.
async fn overflow(ui: &Ui) -> Value {
    ui.client
        .execute(
            "const d = document.documentElement;
             const wide = [...document.querySelectorAll('body *')]
               .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && e.getClientRects().length)
               .filter((e) => !e.closest('pre.diff, .sr-only'))
               .slice(0, 8)
               .map((e) => `${e.tagName.toLowerCase()}.${e.className}[${e.dataset.testid ?? ''}] ${Math.round(e.getBoundingClientRect().right)}`);
             const main = document.querySelector('main');
             const spill = [...main.querySelectorAll('*')]
               .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible')
               .slice(-3)
               .map((e) => `${e.tagName.toLowerCase()}.${e.className}[${e.dataset.testid ?? ''}] ${e.scrollWidth}/${e.clientWidth}`);
             return { by: d.scrollWidth - window.innerWidth, main: main.scrollWidth - main.clientWidth,
                      width: window.innerWidth, wide, spill };",
            Vec::new(),
        )
        .await
        .expect("measure the page")
}

/// Asserts that `view` does not run off the side of the screen.
async fn fits(ui: &Ui, screen: Screen, view: &str) {
    let measured = overflow(ui).await;
    assert!(
        measured["by"].as_i64().is_some_and(|by| by <= 0)
            && measured["main"].as_i64().is_some_and(|by| by <= 0),
        "on the {} the {view} view scrolls sideways: nothing may run off the screen's edge: {measured}",
        screen.name()
    );
    if let Screen::Phone = screen {
        assert_eq!(
            measured["width"],
            json!(360),
            "the phone's layout viewport is 360 px wide"
        );
    }
}

/// Where the decide button `css` is once scrolled to: its box, and whether a tap at its
/// centre lands on it (nothing covers it).
async fn reachable(ui: &Ui, css: &str) -> Value {
    element(&ui.client, css).await;
    ui.client
        .execute(
            "const b = document.querySelector(arguments[0]);
             b.scrollIntoView({ block: 'nearest' });
             const r = b.getBoundingClientRect();
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height,
                      width: window.innerWidth, innerHeight: window.innerHeight,
                      tappable: !!hit && (hit === b || b.contains(hit)) };",
            vec![json!(css)],
        )
        .await
        .expect("measure a button")
}

async fn assert_reachable(ui: &Ui, screen: Screen, css: &str) {
    let b = reachable(ui, css).await;
    let inside = b["left"].as_f64().is_some_and(|l| l >= 0.0)
        && b["right"].as_f64() <= b["width"].as_f64()
        && b["top"].as_f64().is_some_and(|t| t >= 0.0)
        && b["bottom"].as_f64() <= b["innerHeight"].as_f64().map(|h| h + 1.0);
    assert!(
        inside && b["tappable"] == json!(true),
        "on the {} {css} is on screen and nothing covers it: {b}",
        screen.name()
    );
    if let Screen::Phone = screen {
        assert!(
            b["height"].as_f64().is_some_and(|h| h >= 40.0),
            "on a phone {css} is big enough for a thumb (at least 40 px tall): {b}"
        );
    }
}

/// The decide button `css` right after the prompt is opened, nothing scrolled: on screen, and
/// a tap at its centre lands on it — the bar is held at the bottom, as in the window.
async fn assert_in_view_unscrolled(ui: &Ui, screen: Screen, css: &str) {
    element(&ui.client, css).await;
    let b = ui
        .client
        .execute(
            "const b = document.querySelector(arguments[0]);
             const r = b.getBoundingClientRect();
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return { top: r.top, bottom: r.bottom, innerHeight: window.innerHeight,
                      scrolled: document.querySelector('main').scrollTop,
                      tappable: !!hit && (hit === b || b.contains(hit)) };",
            vec![json!(css)],
        )
        .await
        .expect("measure a button");
    assert!(
        b["scrolled"] == json!(0)
            && b["top"].as_f64().is_some_and(|t| t >= 0.0)
            && b["bottom"].as_f64() <= b["innerHeight"].as_f64().map(|h| h + 1.0)
            && b["tappable"] == json!(true),
        "on the {} opening a prompt shows {css} without scrolling: {b}",
        screen.name()
    );
}

/// Evidence a person reads before deciding: once scrolled to, it is on screen and nothing
/// (the decide bar, a toast) is drawn over it — a command hidden under the buttons is false
/// evidence.
async fn assert_readable(ui: &Ui, screen: Screen, css: &str) {
    let b = reachable(ui, css).await;
    assert!(
        b["top"].as_f64().is_some_and(|t| t >= 0.0)
            && b["bottom"].as_f64() <= b["innerHeight"].as_f64().map(|h| h + 1.0)
            && b["tappable"] == json!(true),
        "on the {} {css} can be read: on screen, nothing drawn over it: {b}",
        screen.name()
    );
}

/// The text of `css`, hidden or not.
async fn text_content(ui: &Ui, css: &str) -> String {
    let answer = ui
        .client
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            vec![json!(css)],
        )
        .await
        .expect("read the page");
    answer.as_str().unwrap_or_default().to_owned()
}

/// Every view of the web desk on `screen`: pending with a batch and its evidence, a decision
/// with a scope and an expiry, grants with revoke, history, insights, campaigns, settings.
async fn every_view_works_on(screen: Screen) {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let ui = Ui::own(SHELL, None).await;
    let browser = ui.browser().expect("the web desk's browser");
    if let Screen::Phone = screen {
        browser.emulate_phone(360, 740).await;
    }
    let shot = |view: &str| format!("web-desk-{}-{view}.png", screen.name());

    // Two maven goals of one run join one prompt (a batch); a long command; a cloud change.
    let batch = submit_pending(
        &ui.requester,
        &shell_request("run-batch", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let joined = submit_pending(
        &ui.requester,
        &shell_request("run-batch", "mvn -q verify", "/work/shop"),
    )
    .await;
    assert_eq!(
        joined, batch,
        "precondition: two maven goals of one run are one prompt"
    );
    let long = submit_pending(
        &ui.requester,
        &shell_request("run-long", LONG, "/work/shop"),
    )
    .await;
    let page = &ui.client;
    let item = |id: &str| format!("[data-testid=prompt][data-approval-id='{id}']");
    let detail = |id: &str| format!("[data-testid=prompt-detail][data-approval-id='{id}']");
    element(page, &item(&batch)).await;
    element(page, &item(&long)).await;

    // The long command wraps instead of widening the page; its decision bar is reachable.
    click(page, &item(&long)).await;
    let command = text_content(&ui, &format!("{} [data-testid=ev-command]", detail(&long))).await;
    assert!(
        command.contains("node --check"),
        "the long command is shown: {command}"
    );
    fits(&ui, screen, "pending (a long command)").await;
    assert_readable(
        &ui,
        screen,
        &format!("{} [data-testid=ev-command]", detail(&long)),
    )
    .await;
    assert_reachable(
        &ui,
        screen,
        &format!("{} [data-testid=allow-once]", detail(&long)),
    )
    .await;
    assert_reachable(
        &ui,
        screen,
        &format!("{} [data-testid=deny]", detail(&long)),
    )
    .await;

    // The batch: its decide bar at once, its evidence and both of its requests.
    page.execute("document.querySelector('main').scrollTop = 0", Vec::new())
        .await
        .expect("scroll to the top");
    click(page, &item(&batch)).await;
    for button in ["allow-once", "deny"] {
        assert_in_view_unscrolled(
            &ui,
            screen,
            &format!("{} [data-testid={button}]", detail(&batch)),
        )
        .await;
    }
    let count = text_of(page, &format!("{} [data-testid=ev-count]", detail(&batch))).await;
    assert_eq!(count, "2", "the batch says how many requests it holds");
    for evidence in ["ev-command", "ev-count"] {
        assert_readable(
            &ui,
            screen,
            &format!("{} [data-testid={evidence}]", detail(&batch)),
        )
        .await;
    }
    let members = text_content(&ui, &format!("{} details", detail(&batch))).await;
    assert!(
        members.contains("2 requests in this batch")
            && members.contains(ASKED_COMMAND)
            && members.contains("mvn -q verify"),
        "the batch lists each request: {members}"
    );
    let reason = text_of(page, &format!("{} [data-testid=ev-reason]", detail(&batch))).await;
    assert_eq!(
        reason, "run the test suite before committing",
        "the evidence carries the agent's reason"
    );
    fits(&ui, screen, "pending (a batch)").await;
    for button in ["allow-once", "allow-run", "deny", "deny-reason"] {
        assert_reachable(
            &ui,
            screen,
            &format!("{} [data-testid={button}]", detail(&batch)),
        )
        .await;
    }
    page.execute("document.querySelector('main').scrollTop = 0", Vec::new())
        .await
        .expect("scroll to the top");
    browser.screenshot(&shot("pending")).await;

    // Decide with a scope and an expiry: the run, for 45 minutes.
    click(page, &format!("{} details.custom summary", detail(&batch))).await;
    element(page, &format!("{} [data-testid=scope]", detail(&batch)))
        .await
        .select_by_value("run")
        .await
        .expect("choose the run's scope");
    element(
        page,
        &format!("{} [data-testid=custom-minutes]", detail(&batch)),
    )
    .await
    .send_keys("45")
    .await
    .expect("type the expiry");
    fits(&ui, screen, "pending (another scope and expiry)").await;
    assert_reachable(
        &ui,
        screen,
        &format!("{} [data-testid=approve]", detail(&batch)),
    )
    .await;
    browser.screenshot(&shot("decide")).await;
    click(page, &format!("{} [data-testid=approve]", detail(&batch))).await;
    eventually("the batch to leave Pending", WAIT, || async {
        page.find(Locator::Css(&item(&batch)))
            .await
            .is_err()
            .then_some(())
    })
    .await;
    let settled = ui.reviewer.approval(&batch, None).await.expect("the batch");
    assert_eq!(
        (settled.status, settled.decided_by.as_deref()),
        (ApprovalStatus::ApprovedForRun, Some("owner")),
        "approved for the run, by the person signed in on the browser"
    );
    let grant = ui
        .reviewer
        .grants(true)
        .await
        .expect("grants")
        .into_iter()
        .find(|g| g.grant.approval_id == batch)
        .expect("the decision made a grant");
    let lasts = grant.grant.expires_at - grant.grant.created_at;
    assert_eq!(
        (grant.grant.scope_kind, lasts.num_minutes()),
        (ScopeKind::Run, 45),
        "the grant has the scope and the expiry chosen on the {}",
        screen.name()
    );
    // The detail moved to it by itself: the person picks it before deciding (a click right
    // after such a move decides nothing).
    click(page, &item(&long)).await;
    click(
        page,
        &format!("{} [data-testid=deny-reason]", detail(&long)),
    )
    .await;
    text_of(page, "[data-testid=pending-empty]").await;
    fits(&ui, screen, "pending (empty)").await;

    // Grants: the run's grant with its countdown, revoked from here.
    click(page, "[data-testid=tab-grants]").await;
    let row = format!(
        "[data-testid=grant][data-grant-id='{}']",
        grant.grant.grant_id
    );
    let countdown = text_of(page, &format!("{row} [data-testid=countdown]")).await;
    assert!(
        countdown.contains(':'),
        "the grant counts down: {countdown}"
    );
    fits(&ui, screen, "grants").await;
    assert_reachable(&ui, screen, &format!("{row} [data-testid=revoke]")).await;
    browser.screenshot(&shot("grants")).await;
    click(page, &format!("{row} [data-testid=revoke]")).await;
    text_of(page, &format!("{row}[data-status=revoked]")).await;
    let after = ui.reviewer.grants(false).await.expect("grants");
    assert_eq!(
        after
            .iter()
            .find(|g| g.grant.grant_id == grant.grant.grant_id)
            .map(|g| g.status),
        Some(GrantStatus::Revoked),
        "revoked in the service from the {}",
        screen.name()
    );
    fits(&ui, screen, "grants (revoked)").await;

    // History: what was decided, by whom, the scope.
    click(page, "[data-testid=tab-history]").await;
    let approved =
        format!("[data-testid=audit-row][data-decision=approved][data-approval-id='{batch}']");
    let by = text_of(page, &format!("{approved} [data-testid=audit-by]")).await;
    assert_eq!(by, "owner (Task author)", "History names who decided");
    let scope = text_of(page, &format!("{approved} [data-testid=audit-scope]")).await;
    assert_eq!(scope, "This run", "History shows the scope, in words");
    text_of(
        page,
        &format!("[data-testid=remembered-denial][data-approval-id='{long}']"),
    )
    .await;
    fits(&ui, screen, "history").await;
    browser.screenshot(&shot("history")).await;

    // Insights, campaigns, settings: each fits.
    click(page, "[data-testid=tab-insights]").await;
    element(page, "[data-testid=figure-prompts]").await;
    fits(&ui, screen, "insights").await;
    let broken = ui
        .client
        .execute(
            "const ctx = document.createElement('canvas').getContext('2d');
             const broken = [];
             for (const cell of document.querySelectorAll('[data-testid=rules-table] td, [data-testid=rules-table] th')) {
               const s = getComputedStyle(cell);
               ctx.font = s.font;
               const room = cell.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
               for (const word of cell.textContent.split(/\\s+/)) {
                 if (word && ctx.measureText(word).width > room + 1) broken.push(word);
               }
             }
             return document.querySelector('[data-testid=rules-table]') ? broken : null;",
            Vec::new(),
        )
        .await
        .expect("measure the rules table");
    assert_eq!(
        broken,
        json!([]),
        "on the {} the rules table is there and breaks no word across lines",
        screen.name()
    );
    browser.screenshot(&shot("insights")).await;
    click(page, "[data-testid=tab-campaigns]").await;
    element(page, "[data-testid=campaigns]").await;
    fits(&ui, screen, "campaigns").await;
    click(page, "[data-testid=tab-settings]").await;
    element(page, "[data-testid=passkey]").await;
    fits(&ui, screen, "settings").await;
    assert_reachable(&ui, screen, "[data-testid=sign-out]").await;
    browser.screenshot(&shot("settings")).await;
    assert_eq!(
        status_of(&ui.reviewer, &long).await,
        ApprovalStatus::Denied,
        "the long prompt was denied with a reason in one tap"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_view_works_on_a_360_px_phone() {
    every_view_works_on(Screen::Phone).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_view_works_on_a_desktop_window() {
    every_view_works_on(Screen::Desktop).await;
}
