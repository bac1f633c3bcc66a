//! The desk a person can trust at a glance (issue 22), in the window and on the web desk:
//! friction grows with the risk (a high-risk prompt needs a confirmation naming what is
//! granted, no single key grants it; a medium one keeps its one-key path), the selection moves
//! to the next prompt in order after a decision, a toast says what was granted with Undo that
//! revokes it, deny reasons in one tap and Enter; at 800×600 one column without horizontal
//! overflow, the decision bar in view and the queue reachable by Tab; the policy moves the
//! line for one-act approvals; a prompt whose agent stopped waiting says so. The window's own
//! (the lost-service banner with the desktop's service settings, dark mode from the GTK theme,
//! Esc closing the window) are in window.rs.

use assent_core::{ApprovalStatus, GrantStatus, RiskLevel};
use fantoccini::key::Key;
use fantoccini::Locator;

use crate::common::driver::{click, element, text_of, WAIT};
use crate::common::ui::{Shell, Ui};
use crate::common::{eventually, shell_request, status_of, submit_pending, ASKED_COMMAND};

/// A cloud change the default policy rates high (or worse) and asks about.
pub const S3_SYNC: &str = "aws s3 sync ./dist s3://shop-prod-assets --delete";

/// Types `keys` on the page (its body: the keys reach the window's handlers).
async fn press(client: &fantoccini::Client, keys: &str) {
    client
        .find(Locator::Css("body"))
        .await
        .expect("the page's body")
        .send_keys(keys)
        .await
        .expect("type on the page");
}

pub async fn gone(client: &fantoccini::Client, css: &str, what: &str) {
    eventually(what, WAIT, || async {
        client.find(Locator::Css(css)).await.is_err().then_some(())
    })
    .await;
}

async fn selected(client: &fantoccini::Client) -> String {
    element(client, "[data-testid=prompt-detail]")
        .await
        .attr("data-approval-id")
        .await
        .expect("attribute")
        .expect("the detail names its prompt")
}

/// A prompt decided elsewhere while the person reads it stays on screen, marked with who
/// decided it and how, its buttons disabled; a click and a key after that decide nothing —
/// not it, and not the prompt listed beside it, which the detail never switches to by itself
/// (issue 42). The person moves on with *Next prompt*.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_decided_elsewhere_stays_on_screen_and_a_click_decides_nothing() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);
    let other = submit_pending(
        requester,
        &shell_request("run-other", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let read = submit_pending(
        requester,
        &shell_request("run-read", "npm install left-pad", "/work/shop"),
    )
    .await;
    let item = |id: &str| format!("[data-testid=prompt][data-approval-id='{id}']");
    text_of(&client, &item(&other)).await;
    click(&client, &item(&read)).await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{read}']");
    element(&client, &format!("{detail} [data-testid=allow-once]")).await;
    let recommended = text_of(
        &client,
        &format!("{detail} [data-testid=ev-recommendation]"),
    )
    .await;
    assert!(
        !recommended.is_empty(),
        "precondition: a waiting prompt says what is recommended"
    );

    reviewer
        .decide(
            &read,
            &assent_protocol::DecisionRequest::Deny {
                reason: "not now".to_owned(),
            },
        )
        .await
        .expect("denied from another client");
    let said = text_of(
        &client,
        &format!("{detail} [data-testid=decided-elsewhere-text]"),
    )
    .await;
    assert!(
        said.starts_with("Decided by ") && said.contains("denied — “not now”"),
        "the prompt on screen says who decided it, when and how: {said}"
    );
    gone(&client, &item(&read), "the denied prompt to leave the list").await;
    assert!(
        client
            .find(Locator::Css(&format!(
                "{detail} [data-testid=ev-recommendation]"
            )))
            .await
            .is_err(),
        "decided elsewhere, no \"Recommended: …\" invites a decision beside disabled buttons"
    );
    let shown = text_of(&client, &detail).await;
    assert!(
        !shown.contains("Recommended"),
        "nowhere in the detail: {shown}"
    );
    ui.screenshot("decided-elsewhere.png");
    let once = element(&client, &format!("{detail} [data-testid=allow-once]")).await;
    assert_eq!(
        once.attr("disabled").await.expect("attribute").as_deref(),
        Some("true"),
        "its buttons are disabled"
    );
    // The click the issue saw approve another prompt, and a key: neither decides anything.
    let _ = once.click().await;
    press(&client, "a").await;
    assert_eq!(
        selected(&client).await,
        read,
        "the detail still shows the prompt the person read, not the other one"
    );
    assert_eq!(
        status_of(reviewer, &other).await,
        ApprovalStatus::Requested,
        "the prompt never read was not decided by the click or the key"
    );
    assert_eq!(
        status_of(reviewer, &read).await,
        ApprovalStatus::Denied,
        "the prompt decided elsewhere stays as it was decided"
    );

    click(&client, "[data-testid=move-on]").await;
    assert_eq!(
        selected(&client).await,
        other,
        "Next prompt: the person moves on to the other one"
    );
    gone(
        &client,
        "[data-testid=decided-elsewhere]",
        "the mark to go with the prompt it was about",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_risky_grant_needs_a_confirmation_says_what_it_granted_and_undo_revokes_it() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);

    // Newest first: medium (top), the high-risk sync, medium (bottom).
    let bottom = submit_pending(
        requester,
        &shell_request("run-bottom", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let sync = submit_pending(requester, &shell_request("run-sync", S3_SYNC, "/work/shop")).await;
    let top = submit_pending(
        requester,
        &shell_request("run-top", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let risk = reviewer
        .approval(&sync, None)
        .await
        .expect("the sync prompt")
        .facts
        .risk;
    assert!(
        risk >= RiskLevel::High,
        "precondition: the policy rates {S3_SYNC} high or critical, got {risk:?}"
    );
    let sync_item = format!("[data-testid=prompt][data-approval-id='{sync}']");
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{top}']"),
    )
    .await;
    click(&client, &sync_item).await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{sync}']");
    element(
        &client,
        &format!("{detail} [data-testid=decide][data-deliberate=yes]"),
    )
    .await;

    press(&client, "a").await;
    let confirm = text_of(&client, "[data-testid=confirm-text]").await;
    assert!(
        confirm.starts_with("Allow aws s3 sync") && confirm.contains(" once "),
        "the confirm step names what will be granted and its scope: {confirm}"
    );
    assert!(confirm.contains("until"), "and until when: {confirm}");
    ui.screenshot("confirm-high-risk.png");
    press(&client, "r").await;
    press(&client, "a").await;
    assert_eq!(
        status_of(reviewer, &sync).await,
        ApprovalStatus::Requested,
        "no key grants a high-risk prompt: a, r, a left it waiting"
    );
    press(&client, &Key::Escape.to_string()).await;
    gone(
        &client,
        "[data-testid=confirm]",
        "Esc to cancel the confirm step",
    )
    .await;
    assert!(
        ui.shows_the_desk().await,
        "Esc cancelled the confirm step and did not close the desk"
    );

    press(&client, "a").await;
    click(&client, "[data-testid=confirm-grant]").await;
    gone(&client, &sync_item, "the confirmed prompt to leave Pending").await;
    assert_eq!(
        status_of(reviewer, &sync).await,
        ApprovalStatus::ApprovedOnce,
        "the confirmation granted exactly the once it named"
    );
    let toast = text_of(&client, "[data-testid=toast-text]").await;
    assert!(
        toast.starts_with("Allowed aws s3 sync")
            && toast.contains("once")
            && toast.contains("until"),
        "the toast says what was granted and until when: {toast}"
    );
    assert!(toast.contains("run-sync"), "and to whom (the run): {toast}");
    assert_eq!(
        selected(&client).await,
        bottom,
        "the selection moved to the next prompt in order, not back to the top"
    );
    ui.screenshot("toast-undo.png");

    click(&client, "[data-testid=undo]").await;
    let note = text_of(&client, "[data-testid=toast-note]").await;
    assert!(
        note.contains("before the agent used it"),
        "Undo says the grant was revoked unused: {note}"
    );
    let grants = reviewer.grants(false).await.expect("grants");
    let grant = grants
        .iter()
        .find(|g| g.grant.approval_id == sync)
        .expect("the sync's grant");
    assert_eq!(
        grant.status,
        GrantStatus::Revoked,
        "Undo revoked the grant in the service, not only in the window"
    );

    // A medium prompt keeps its one-key path.
    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{top}']"),
    )
    .await;
    element(&client, "[data-testid=decide][data-deliberate=no]").await;
    press(&client, "r").await;
    gone(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{top}']"),
        "r to approve a medium prompt at once",
    )
    .await;
    assert_eq!(
        status_of(reviewer, &top).await,
        ApprovalStatus::ApprovedForRun,
        "one key is enough for a medium prompt"
    );

    // A deny reason in one tap, on the prompt the person picks (the detail moved there by
    // itself after the decision: a click right then decides nothing, it was aimed at the last).
    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{bottom}']"),
    )
    .await;
    let chip = format!(
        "[data-testid=prompt-detail][data-approval-id='{bottom}'] [data-testid=deny-reason]"
    );
    let chips = client
        .find_all(Locator::Css(&chip))
        .await
        .expect("the deny reasons");
    let mut labels = Vec::new();
    for c in &chips {
        labels.push(c.text().await.expect("label"));
    }
    assert_eq!(
        labels,
        [
            "Deny: use the staging environment",
            "Deny: out of scope",
            "Deny: ask me first"
        ],
        "the three reasons an agent can act on, each one tap"
    );
    chips[1].click().await.expect("tap a reason");
    text_of(&client, "[data-testid=pending-empty]").await;
    let denied = reviewer.approval(&bottom, None).await.expect("approval");
    assert_eq!(
        (denied.status, denied.decision_reason.as_deref()),
        (ApprovalStatus::Denied, Some("out of scope")),
        "one tap denied with that reason, which the agent gets"
    );

    // Enter in the reason field denies with what was typed.
    let typed = submit_pending(
        requester,
        &shell_request("run-enter", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let reason = element(
        &client,
        &format!("[data-testid=prompt-detail][data-approval-id='{typed}'] [data-testid=reason]"),
    )
    .await;
    reason
        .send_keys(&format!("use the fixtures{}", Key::Enter))
        .await
        .expect("type a reason and Enter");
    text_of(&client, "[data-testid=pending-empty]").await;
    let denied = reviewer.approval(&typed, None).await.expect("approval");
    assert_eq!(
        (denied.status, denied.decision_reason.as_deref()),
        (ApprovalStatus::Denied, Some("use the fixtures")),
        "Enter submitted the typed reason"
    );
}

/// How the page lays out: horizontal overflow, the header's height, the split's display, and
/// whether the decision bar is inside the viewport.
async fn layout(client: &fantoccini::Client) -> serde_json::Value {
    client
        .execute(
            "const d = document.documentElement;
             const bar = document.querySelector('[data-testid=decide]');
             const r = bar ? bar.getBoundingClientRect() : null;
             return {
               overflow: d.scrollWidth - d.clientWidth,
               width: window.innerWidth,
               height: window.innerHeight,
               header: document.querySelector('header.top').getBoundingClientRect().height,
               split: getComputedStyle(document.querySelector('.split')).display,
               bar_in_view: !!r && r.top >= 0 && r.bottom <= window.innerHeight + 1,
               link_in_view: document.querySelector('[data-testid=link]').getBoundingClientRect().right <= window.innerWidth + 1,
               mutation_above_bar: (() => {
                 const m = document.querySelector('[data-testid=ev-mutation]');
                 if (!m || !r) return null;
                 const b = m.getBoundingClientRect();
                 return b.top >= 0 && b.bottom <= r.top + 1;
               })(),
             };",
            Vec::new(),
        )
        .await
        .expect("measure the page")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_800_by_600_one_column_no_horizontal_overflow_and_the_queue_by_tab() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester) = (ui.client.clone(), &ui.requester);
    let long = "for f in src/*.js; do node --check \"$f\"; done && npm run build && curl -X POST -H \"Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\" https://api.github.com/repos/acme/shop/actions/workflows/deploy.yml/dispatches";
    submit_pending(requester, &shell_request("run-long", long, "/work/shop")).await;
    let id = submit_pending(
        requester,
        &shell_request("run-small", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    client
        .set_window_size(800, 600)
        .await
        .expect("resize the window");
    let resized = eventually("the window to be 800 px wide", WAIT, || async {
        let m = layout(&client).await;
        (m["width"].as_i64().is_some_and(|w| w <= 800)).then_some(m)
    })
    .await;
    // A browser's own bars take part of its window (Chromium's, 143 px here): the window grows
    // by them, so the page itself is 800×600 as in the desk's window.
    let bars = 600
        - resized["height"]
            .as_i64()
            .expect("the page's height is measured");
    if bars > 0 {
        client
            .set_window_size(800, 600 + u32::try_from(bars).expect("bars are positive"))
            .await
            .expect("resize the window");
    }
    let measured = eventually("the page to be 800×600", WAIT, || async {
        let m = layout(&client).await;
        let page = (m["width"].as_i64(), m["height"].as_i64());
        (page.0.is_some_and(|w| w <= 800) && page.1.is_some_and(|h| (590..=610).contains(&h)))
            .then_some(m)
    })
    .await;
    assert_eq!(
        measured["overflow"],
        serde_json::json!(0),
        "no horizontal overflow at 800×600: {measured}"
    );
    assert!(
        measured["header"].as_f64().is_some_and(|h| h < 60.0),
        "the header stays one line: {measured}"
    );
    assert_eq!(
        measured["split"],
        serde_json::json!("flex"),
        "below 900 px the queue and the detail are one column: {measured}"
    );
    assert_eq!(
        measured["link_in_view"],
        serde_json::json!(true),
        "the connection state stays on screen: {measured}"
    );
    // The long prompt: its evidence is longer than the screen, the decision bar stays in view.
    click(&client, "[data-testid=prompt]:last-child").await;
    let measured = layout(&client).await;
    assert_eq!(
        measured["bar_in_view"],
        serde_json::json!(true),
        "the decision bar is visible without scrolling to it: {measured}"
    );
    assert_eq!(
        measured["mutation_above_bar"],
        serde_json::json!(true),
        "a high-risk prompt's \"May change\" is on screen at first sight, not under the bar: {measured}"
    );
    assert_eq!(
        measured["overflow"],
        serde_json::json!(0),
        "a long command does not widen the page: {measured}"
    );
    ui.screenshot("pending-800x600.png");

    // Tab from the top of the page reaches the queue: k presses in one go, from the body.
    // The body is focused (not just the active element blurred): Chromium keeps its
    // sequential-focus starting point at a blurred element, so Tab would go on from the
    // prompt just clicked instead of from the top.
    let mut reached = None;
    for k in 1..=15 {
        client
            .execute(
                "document.activeElement && document.activeElement.blur(); \
                 document.body.tabIndex = -1; document.body.focus(); \
                 document.body.removeAttribute('tabindex');",
                Vec::new(),
            )
            .await
            .expect("start from the page");
        press(&client, &Key::Tab.to_string().repeat(k)).await;
        let on = client
            .execute(
                "return document.activeElement && document.activeElement.dataset.testid || ''",
                Vec::new(),
            )
            .await
            .expect("focus");
        if on == serde_json::json!("prompt") {
            reached = Some(k);
            break;
        }
    }
    let reached = reached.is_some();
    assert!(reached, "the queue's prompts are reachable by Tab");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_policy_moves_the_line_for_one_act_approvals() {
    // This policy lets a high-risk prompt be approved in one act.
    let ui = Ui::own(crate::SHELL, Some("[desk]\nquick_up_to = \"high\"\n")).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);
    let sync = submit_pending(requester, &shell_request("run-line", S3_SYNC, "/work/shop")).await;
    let approval = reviewer.approval(&sync, None).await.expect("the prompt");
    assert_eq!(
        (approval.facts.risk, approval.quick_up_to),
        (RiskLevel::High, RiskLevel::High),
        "precondition: a high prompt, and the service says where the policy put the line"
    );
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{sync}']");
    element(
        &client,
        &format!("{detail} [data-testid=decide][data-deliberate=no]"),
    )
    .await;
    press(&client, "a").await;
    gone(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{sync}']"),
        "one key to approve where the policy allows it",
    )
    .await;
    assert_eq!(
        status_of(reviewer, &sync).await,
        ApprovalStatus::ApprovedOnce,
        "quick_up_to = high: a key approved the high prompt without a confirm step"
    );
}

/// An agent whose gate gave up: the service announces the stop (`approval.waiting`) and the
/// window says so, with when, instead of showing the prompt as live — even though the window
/// opened after the agent started waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_whose_agent_stopped_waiting_says_so() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester) = (ui.client.clone(), &ui.requester);
    let id = submit_pending(
        requester,
        &shell_request("run-gave-up", "npm install left-pad", "/work/shop"),
    )
    .await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    // The agent's gate long-polls for a second, then gives up.
    let waited = requester
        .approval(&id, Some(std::time::Duration::from_secs(1)))
        .await
        .expect("the gate's long poll");
    assert_eq!(
        waited.status,
        ApprovalStatus::Requested,
        "nobody decided while it waited"
    );
    let line = text_of(&client, "[data-testid=stopped-waiting]").await;
    assert!(
        line.starts_with("The agent stopped waiting at ")
            && line.ends_with("approving covers a retry."),
        "the detail says the agent stopped waiting and what approving still does: {line}"
    );
    ui.screenshot("pending-agent-stopped.png");
}

/// Under `[approvals] step_up`, only a passkey made for the prompt approves it. The window
/// holds none: it says so, shows where (the web desk's page), offers no approve button and
/// a key approves nothing; Deny still works there. The browser's desk asks the passkey and
/// the same click approves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_held_for_a_passkey_is_approved_only_where_a_passkey_is() {
    let ui = Ui::own(crate::SHELL, Some("[approvals]\nstep_up = \"low\"\n")).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);
    let held = submit_pending(
        requester,
        &shell_request("run-held", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let url = reviewer
        .approval(&held, None)
        .await
        .expect("the prompt")
        .step_up_url
        .expect("precondition: the service says a passkey confirms it, and where");
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{held}']");
    element(&client, &detail).await;
    match crate::SHELL {
        Shell::Window => {
            let note = text_of(&client, &format!("{detail} [data-testid=step-up-note]")).await;
            assert!(
                note.contains("passkey") && note.contains(&url),
                "the window says a passkey in the browser approves it, and where: {note}"
            );
            ui.screenshot("step-up-window.png");
            for button in ["allow-once", "allow-run", "approve"] {
                assert!(
                    client
                        .find(Locator::Css(&format!("{detail} [data-testid={button}]")))
                        .await
                        .is_err(),
                    "no {button} button the service would refuse"
                );
            }
            press(&client, "a").await;
            let said = text_of(&client, &format!("{detail} [data-testid=decide-error]")).await;
            assert!(
                said.contains("passkey"),
                "a key says why it approved nothing: {said}"
            );
            assert_eq!(
                status_of(reviewer, &held).await,
                ApprovalStatus::Requested,
                "neither a click nor a key approved it in the window"
            );
            click(&client, &format!("{detail} [data-testid=deny-reason]")).await;
            gone(
                &client,
                &format!("[data-testid=prompt][data-approval-id='{held}']"),
                "Deny needs no passkey",
            )
            .await;
            assert_eq!(
                status_of(reviewer, &held).await,
                ApprovalStatus::Denied,
                "denied from the window"
            );
        }
        Shell::Browser => {
            assert!(
                client
                    .find(Locator::Css(&format!(
                        "{detail} [data-testid=step-up-note]"
                    )))
                    .await
                    .is_err(),
                "the browser holds the passkey: no note sends the person elsewhere"
            );
            click(&client, &format!("{detail} [data-testid=allow-run]")).await;
            gone(
                &client,
                &format!("[data-testid=prompt][data-approval-id='{held}']"),
                "the passkey's step-up approves it",
            )
            .await;
            assert_eq!(
                status_of(reviewer, &held).await,
                ApprovalStatus::ApprovedForRun,
                "approved in the browser with the passkey made for it"
            );
        }
    }
}
