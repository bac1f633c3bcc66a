//! The model reviewer's part on the desk (issue 44), in the window and on the web desk: a
//! prompt reaches the person with the reviewer's opinion, named as the model's ("Reviewer
//! (qwen3:8b): would approve — …"), and with its failure when the call failed; after 3
//! failures in a row the desk says "Reviewer unavailable: asking you". The service is real
//! and calls a scripted reviewer over real HTTP on loopback (or a closed loopback port).
//! With `ASSENT_SCREENSHOTS`: `pending-reviewer*.png` (window) and `web-desk-reviewer*.png`.

use std::time::Duration;

use fantoccini::Locator;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::driver::{click, text_of};
use crate::common::ui::{Shell, Ui};
use crate::common::{eventually, shell_request, submit_pending, ASKED_COMMAND};

/// What the scripted reviewer says of every prompt: it would approve.
const RATIONALE: &str = "Runs the project's tests in the repository; nothing leaves the machine.";

/// A Chat Completions server on loopback answering every call with one verdict; its base URL.
/// Plain HTTP/1.1, one request per connection, as the service's client sends it.
async fn scripted_reviewer() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    let verdict = serde_json::json!({
        "outcome": "approve", "risk": "low", "user_authorized": "unclear", "rationale": RATIONALE,
    })
    .to_string();
    let body = serde_json::json!({
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": verdict}}],
    })
    .to_string();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 8192];
                // The head, then as much body as it announces.
                loop {
                    let Ok(n) = conn.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                let (name, value) = l.split_once(':')?;
                                name.eq_ignore_ascii_case("content-length")
                                    .then(|| value.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(answer.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// A loopback port nothing listens on: every call to it fails at once.
async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

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
    let url = scripted_reviewer().await;
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
