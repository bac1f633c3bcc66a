//! The window's suite (`e2e_webdriver`): WebDriver (tauri-driver + WebKitWebDriver) driving
//! the real app binary, which embeds the real service. It runs the desk's stories
//! (desk_stories.rs and its modules, which the web desk's suite runs in Chromium too) in the
//! window, and what only the window has: the lost-service banner of a desk signed in with a
//! token, whose Settings say the environment chose the service (the web desk is served by the
//! service itself, and has no service settings); dark mode from the system's GTK theme; Esc
//! with nothing to cancel closing the window while the tray's service stays. Run by
//! scripts/test.d/40-e2e.sh under Xvfb + dbus-run-session, one suite at a time (tauri-driver's
//! ports are fixed).
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

use fantoccini::Locator;

use common::driver::{click, element, session, start_driver, start_driver_with, text_of, WAIT};
use common::ui::Shell;
use common::{
    eventually, screenshot, shell_request, submit_pending, x_window_titled, Desk, TestService,
    ASKED_COMMAND,
};
use stories::desk::{gone, S3_SYNC};

/// The desk's stories run in the window.
const SHELL: Shell = Shell::Window;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_service_is_one_plain_banner_that_clears_when_it_is_back() {
    let mut service = TestService::start().await;
    let desk = Desk::signed_in(&service.url(), &service.tokens.approver);
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let requester = service.requester();
    let id = submit_pending(
        &requester,
        &shell_request("run-lost", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    assert!(
        client
            .find(Locator::Css("[data-testid=link-banner]"))
            .await
            .is_err(),
        "no banner while connected"
    );

    service.stop().await;
    let banner = text_of(&client, "[data-testid=link-banner-text]").await;
    assert_eq!(
        banner,
        format!(
            "Can't reach Assent at {}; agents asking now are refused; retrying…",
            service.url()
        ),
        "one plain sentence: where, what it means for agents, that it retries"
    );
    let header = text_of(&client, "header.top").await;
    assert!(
        !header.to_lowercase().contains("error") && header.contains("not connected"),
        "the header says the state in two words, no error chain: {header}"
    );
    element(&client, "[data-testid=retry-now]").await;
    text_of(&client, "[data-testid=offline-note]").await;
    let allow = element(&client, "[data-testid=allow-run]").await;
    assert!(
        !allow.is_enabled().await.expect("enabled?"),
        "while the service is out of reach no button pretends to decide"
    );
    click(&client, "[data-testid=link-banner] summary").await;
    let details = text_of(&client, "[data-testid=link-banner-details]").await;
    assert!(
        !details.trim().is_empty(),
        "the raw error is behind Details"
    );
    screenshot("lost-service.png");

    service.restart().await;
    // Retry now, unless the desk's own retry was quicker.
    if let Ok(retry) = client.find(Locator::Css("[data-testid=retry-now]")).await {
        let _ = retry.click().await;
    }
    gone(
        &client,
        "[data-testid=link-banner]",
        "the banner to clear once the service is back",
    )
    .await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let link = text_of(&client, "[data-testid=link]").await;
    assert_eq!(link, "connected", "the header says so too");

    // This desk got its service from ASSENT_URL + ASSENT_TOKEN: Settings says they win.
    click(&client, "[data-testid=tab-settings]").await;
    let note = text_of(&client, "[data-testid=env-override]").await;
    assert!(
        note.starts_with("ASSENT_URL and ASSENT_TOKEN are set in the environment"),
        "Settings says the environment chooses the service, instead of silently ignoring a save: {note}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dark_mode_follows_the_system() {
    let desk = Desk::new();
    let _driver = start_driver_with(&desk, &[("GTK_THEME", "Adwaita:dark")]).await;
    let client = session().await;
    let (requester, _reviewer) = desk.wait_ready(WAIT).await;
    let id = submit_pending(
        &requester,
        &shell_request("run-dark", S3_SYNC, "/work/shop"),
    )
    .await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let seen = client
        .execute(
            "const bg = getComputedStyle(document.documentElement).backgroundColor;
             const [r, g, b] = bg.match(/\\d+/g).map(Number);
             return { dark: matchMedia('(prefers-color-scheme: dark)').matches, luminance: (r + g + b) / 3, bg };",
            Vec::new(),
        )
        .await
        .expect("read the colours");
    assert_eq!(
        seen["dark"],
        serde_json::json!(true),
        "the system's dark preference reaches the page: {seen}"
    );
    assert!(
        seen["luminance"].as_f64().is_some_and(|l| l < 60.0),
        "and the page is dark: {seen}"
    );
    screenshot("pending-dark.png");
}

/// Insights in the system's dark theme (issue 42 §3): every label on the page reads against
/// what is behind it (WCAG's 4.5:1 for text), and each chart's canvas is drawn in the dark
/// scheme's ink, not the light one's dark grey on a dark card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insights_labels_read_in_dark_mode() {
    let desk = Desk::new();
    let _driver = start_driver_with(&desk, &[("GTK_THEME", "Adwaita:dark")]).await;
    let client = session().await;
    let (requester, reviewer) = desk.wait_ready(WAIT).await;
    let decided = submit_pending(
        &requester,
        &shell_request("run-dark-a", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    reviewer
        .decide(
            &decided,
            &assent_protocol::DecisionRequest::Deny {
                reason: "not now".to_owned(),
            },
        )
        .await
        .expect("deny one");
    submit_pending(
        &requester,
        &shell_request("run-dark-b", S3_SYNC, "/work/shop"),
    )
    .await;
    click(&client, "[data-testid=tab-insights]").await;
    element(&client, "[data-testid=insights-figures]").await;
    // Every chart drawn: a canvas with pixels painted.
    let charts = eventually("the charts to be drawn", WAIT, || async {
        let n = client
            .execute(
                "const cs = [...document.querySelectorAll('.chart canvas')];
                 const drawn = cs.filter((c) => c.width > 0 && c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v !== 0));
                 return cs.length > 0 && drawn.length === cs.length ? cs.length : null;",
                Vec::new(),
            )
            .await
            .expect("look at the canvases");
        n.as_u64()
    })
    .await;
    let seen = client
        .execute(
            "const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
             const lum = ([r, g, b]) => {
               const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
             };
             const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
             const behind = (e) => {
               for (let n = e; n; n = n.parentElement) {
                 const c = rgb(getComputedStyle(n).backgroundColor);
                 if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c;
               }
               return rgb(getComputedStyle(document.documentElement).backgroundColor);
             };
             const view = document.querySelector('main');
             const worst = [];
             for (const e of view.querySelectorAll('*')) {
               const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
               if (!own || !e.getClientRects().length || e.closest('.sr-only')) continue;
               const r = ratio(rgb(getComputedStyle(e).color), behind(e));
               if (r < 4.5) worst.push(`${e.tagName.toLowerCase()}.${e.className} \"${e.textContent.trim().slice(0, 30)}\" ${r.toFixed(2)}`);
             }
             // The ink a chart draws its labels with, and whether its canvas holds it.
             const inks = [...document.querySelectorAll('.chart .plot')].map((p) => {
               const ink = getComputedStyle(p).getPropertyValue('--fg-soft').trim();
               const probe = document.createElement('span');
               probe.style.color = ink; p.appendChild(probe);
               const want = rgb(getComputedStyle(probe).color); probe.remove();
               const c = p.querySelector('canvas');
               const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
               let inked = 0;
               for (let i = 0; i < px.length; i += 4)
                 if (px[i + 3] > 200 && Math.abs(px[i] - want[0]) < 24 && Math.abs(px[i + 1] - want[1]) < 24 && Math.abs(px[i + 2] - want[2]) < 24) inked++;
               return { ratio: ratio(want, behind(p)), inked };
             });
             return { dark: matchMedia('(prefers-color-scheme: dark)').matches, worst, inks };",
            Vec::new(),
        )
        .await
        .expect("measure the colours");
    assert_eq!(
        seen["dark"],
        serde_json::json!(true),
        "precondition: the system's dark preference reaches the page: {seen}"
    );
    assert_eq!(
        seen["worst"],
        serde_json::json!([]),
        "every label of Insights reads against its background in dark mode (4.5:1 at least): {seen}"
    );
    let inks = seen["inks"].as_array().expect("the charts' inks");
    assert_eq!(
        inks.len() as u64,
        charts,
        "each chart's ink was measured: {seen}"
    );
    for ink in inks {
        assert!(
            ink["ratio"].as_f64().is_some_and(|r| r >= 4.5),
            "a chart's labels are drawn in an ink that reads on the dark card: {seen}"
        );
        assert!(
            ink["inked"].as_u64().is_some_and(|n| n > 20),
            "and its canvas really holds text in that ink (not the light scheme's grey): {seen}"
        );
    }
    screenshot("insights-dark.png");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_with_nothing_to_cancel_closes_the_window_and_the_desk_stays() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (_requester, reviewer) = desk.wait_ready(WAIT).await;
    text_of(&client, "[data-testid=pending-empty]").await;
    // Esc with nothing to cancel closes the window; the desk stays. The key is dispatched by
    // the page a moment after this call returns: a WebDriver key action whose window closes
    // under it never gets its answer.
    client
        .execute(
            "setTimeout(() => document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })), 100)",
            Vec::new(),
        )
        .await
        .expect("queue an Esc");
    eventually("Esc to close the window", WAIT, || async {
        (!x_window_titled("Assent")).then_some(())
    })
    .await;
    assert!(
        reviewer.health().await.is_ok(),
        "the embedded service (the desk) still runs after the window closed"
    );
}

/// A prompt the policy's step-up holds: the window's "Confirm in the browser" has the tray
/// open the page the service named for it in the person's browser (`xdg-open`, here a program
/// on `PATH` that writes down the address), and decides nothing itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_in_the_browser_opens_the_prompts_page_from_the_window() {
    let desk = Desk::with_policy("[approvals]\nstep_up = \"low\"\n");
    let opener = common::Opener::in_dir(desk.dir.path());
    let path = opener.path();
    let _driver = start_driver_with(&desk, &[("PATH", path.as_str())]).await;
    let client = session().await;
    let (requester, reviewer) = desk.wait_ready(WAIT).await;
    let id = submit_pending(
        &requester,
        &shell_request("run-held-window", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{id}']");
    click(&client, &format!("{detail} [data-testid=step-up-open]")).await;
    let page = format!("http://localhost:{}/desk/#/pending/{id}", desk.port);
    let line = opener.first_opened().await;
    assert_eq!(
        line.trim(),
        page,
        "the button opens the web desk on exactly this prompt, where the passkey approves it"
    );
    assert_eq!(
        common::status_of(&reviewer, &id).await,
        assent_core::ApprovalStatus::Requested,
        "opening the page decided nothing"
    );
}
