//! The model reviewer's part on the desk (issue 44), in the window and on the web desk: a
//! prompt reaches the person with the reviewer's opinion, named as the model's ("Reviewer
//! (qwen3:8b): would approve — …"), and with its failure when the call failed; after 3
//! failures in a row the desk says "Reviewer unavailable: asking you". The service is real
//! and calls a scripted reviewer over real HTTP on loopback (or a closed loopback port).
//! With `ASSENT_SCREENSHOTS`: `pending-reviewer*.png` (window) and `web-desk-reviewer*.png`.

use std::time::Duration;

use fantoccini::Locator;

use crate::common::driver::{click, text_of};
use crate::common::scripted_reviewer::{closed_port, scripted_reviewer};
use crate::common::ui::{Shell, Ui};
use crate::common::{eventually, shell_request, submit_pending, ASKED_COMMAND};

/// What the scripted reviewer says of every prompt, with its verdict: it would approve.
const RATIONALE: &str = "Runs the project's tests in the repository; nothing leaves the machine.";

fn policy(url: &str, timeout: &str) -> String {
    format!(
        "[reviewer]\napi = \"openai\"\nurl = \"{url}\"\nmodel = \"qwen3:8b\"\nmode = \"advise\"\ntimeout = \"{timeout}\"\n"
    )
}

/// A screenshot of the desk as it is: the window's screen, or the browser's page.
async fn shot(ui: &Ui, window: &str, web: &str) {
    match ui.shell() {
        Shell::Window => ui.screenshot(window),
        Shell::Browser => {
            let Ok(dir) = std::env::var("ASSENT_SCREENSHOTS") else {
                return;
            };
            let png = ui
                .client
                .screenshot()
                .await
                .expect("a screenshot of the page");
            let path = std::path::Path::new(&dir).join(web);
            std::fs::write(&path, png)
                .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        }
    }
}

/// The text of `[data-testid=review]` in the detail of prompt `id`, once it says `wanted`.
async fn review_of(ui: &Ui, id: &str, wanted: &str) -> String {
    let css = format!("[data-testid=prompt-detail][data-approval-id='{id}'] [data-testid=review]");
    eventually(
        &format!("the reviewer's part: {wanted}"),
        Duration::from_secs(30),
        || async {
            let text = match ui.client.find(Locator::Css(&css)).await {
                Ok(found) => found.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            text.contains(wanted).then_some(text)
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_reaches_the_person_with_the_reviewers_opinion_named_as_a_models() {
    let url = scripted_reviewer("approve", RATIONALE, std::time::Duration::ZERO).await;
    let ui = Ui::own(crate::SHELL, Some(&policy(&url, "5s"))).await;
    let id = submit_pending(
        &ui.requester,
        &shell_request("run-review", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    click(
        &ui.client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let line = review_of(&ui, &id, "would approve").await;
    assert!(
        line.contains(&format!("Reviewer (qwen3:8b): would approve — {RATIONALE}")),
        "the detail names the model and says its opinion with its rationale: {line}"
    );
    assert!(
        ui.client
            .find(Locator::Css("[data-testid=reviewer-banner]"))
            .await
            .is_err(),
        "a reviewer that answers is no outage"
    );
    // Advise mode decides nothing: the person still decides.
    text_of(&ui.client, "[data-testid=allow-once]").await;
    shot(&ui, "pending-reviewer.png", "web-desk-reviewer.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_review_is_said_and_three_in_a_row_say_the_reviewer_is_unavailable() {
    let url = closed_port().await;
    let ui = Ui::own(crate::SHELL, Some(&policy(&url, "1s"))).await;
    let mut last = String::new();
    for (run, command) in [
        ("run-f1", "npm install left-pad"),
        ("run-f2", "npm install is-odd"),
        ("run-f3", ASKED_COMMAND),
    ] {
        last = submit_pending(&ui.requester, &shell_request(run, command, "/work/shop")).await;
        // One prompt at a time: each call fails before the next opens.
        let css = format!("[data-testid=prompt][data-approval-id='{last}']");
        text_of(&ui.client, &css).await;
        click(&ui.client, &css).await;
        review_of(&ui, &last, "failed").await;
    }
    let line = review_of(&ui, &last, "failed").await;
    assert!(
        line.contains("Reviewer (qwen3:8b) failed: the reviewer could not be reached")
            && line.ends_with("— asking you"),
        "the failure, the model named, and that the person decides: {line}"
    );
    let banner = eventually(
        "the reviewer-unavailable banner",
        Duration::from_secs(30),
        || async {
            let found = ui
                .client
                .find(Locator::Css("[data-testid=reviewer-banner]"))
                .await
                .ok()?;
            found.text().await.ok()
        },
    )
    .await;
    assert_eq!(
        banner, "Reviewer unavailable: asking you",
        "3 failures in a row: the desk says so"
    );
    text_of(&ui.client, "[data-testid=allow-once]").await;
    shot(
        &ui,
        "pending-reviewer-failed.png",
        "web-desk-reviewer-failed.png",
    )
    .await;
}
