//! End-to-end through the window, with WebDriver (tauri-driver + WebKitWebDriver) driving the
//! real app binary, which embeds the real service: a submitted request appears in Pending
//! with its evidence; "Allow for this run" settles it; the grant appears in Grants with a
//! countdown; revoke moves it to revoked. Run by scripts/test.d/40-e2e.sh under Xvfb +
//! dbus-run-session, one suite at a time (tauri-driver's ports are fixed).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assent_core::{ApprovalStatus, ScopeKind};
use common::{
    app_binary, eventually, screenshot, shell_request, submit_pending, Desk, ASKED_COMMAND,
};
use fantoccini::{Client, ClientBuilder, Locator};

const WAIT: Duration = Duration::from_secs(30);
const DRIVER: &str = "http://127.0.0.1:4444";

/// tauri-driver, stopped with SIGTERM (SIGKILL would leave WebKitWebDriver on port 4445).
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

fn tauri_driver() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    home.map(|h| h.join("bin").join("tauri-driver"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("tauri-driver"))
}

async fn start_driver(desk: &Desk) -> Driver {
    let mut command = Command::new(tauri_driver());
    command.stdout(Stdio::null()).stderr(Stdio::inherit());
    desk.configure(&mut command);
    let driver = Driver(
        command
            .spawn()
            .expect("tauri-driver (scripts/deps.d/50-desktop.sh installs it)"),
    );
    eventually("tauri-driver to listen", WAIT, || async {
        tokio::net::TcpStream::connect("127.0.0.1:4444").await.ok()
    })
    .await;
    driver
}

async fn session() -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "tauri:options".into(),
        serde_json::json!({ "application": app_binary() }),
    );
    caps.insert("browserName".into(), serde_json::json!("wry"));
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(DRIVER)
        .await
        .expect("a WebDriver session on the app")
}

/// Waits for `css`; on a timeout the panic carries the page, to see what was shown instead.
async fn element(client: &Client, css: &str) -> fantoccini::elements::Element {
    match client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
    {
        Ok(element) => element,
        Err(err) => {
            let page = client.source().await.unwrap_or_default();
            let page: String = page.chars().take(4000).collect();
            panic!("{css} must appear: {err}\npage:\n{page}")
        }
    }
}

async fn text_of(client: &Client, css: &str) -> String {
    element(client, css).await.text().await.expect("text")
}

async fn click(client: &Client, css: &str) {
    element(client, css)
        .await
        .click()
        .await
        .unwrap_or_else(|err| panic!("{css} must be clickable: {err}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_to_grant_to_revoked_through_the_window() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, approver) = desk.wait_ready(WAIT).await;

    let request = shell_request("run-window", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;

    let prompt = format!("[data-testid=prompt][data-approval-id='{approval_id}']");
    text_of(&client, &prompt).await;
    let command = text_of(&client, "[data-testid=ev-command]").await;
    assert!(
        command.contains(ASKED_COMMAND),
        "Pending shows the command: {command}"
    );
    let run = text_of(&client, "[data-testid=ev-run]").await;
    assert_eq!(run, "run-window", "Pending shows the run");
    let repo = text_of(&client, "[data-testid=ev-repo]").await;
    assert_eq!(repo, "shop", "Pending shows the repo");
    let reasons = text_of(&client, "[data-testid=ev-reasons]").await;
    assert!(
        !reasons.trim().is_empty(),
        "Pending shows the policy's reasons"
    );
    let agent_reason = text_of(&client, "[data-testid=ev-reason]").await;
    assert_eq!(
        agent_reason, request.reason,
        "Pending shows the agent's reason"
    );
    screenshot("pending.png");

    click(&client, "[data-testid=allow-run]").await;
    eventually("the prompt to leave Pending", WAIT, || async {
        client
            .find(Locator::Css(&prompt))
            .await
            .is_err()
            .then_some(())
    })
    .await;
    let approval = approver
        .approval(&approval_id, None)
        .await
        .expect("approval");
    assert_eq!(
        approval.status,
        ApprovalStatus::ApprovedForRun,
        "approved for this run"
    );

    click(&client, "[data-testid=tab-grants]").await;
    let row = "[data-testid=grant][data-status=active]";
    let countdown = text_of(&client, &format!("{row} [data-testid=countdown]")).await;
    assert!(
        countdown.contains(':') && countdown != "expired",
        "the grant shows a live countdown: {countdown}"
    );
    let scope = text_of(&client, &format!("{row} [data-testid=scope]")).await;
    assert_eq!(scope, "run", "the grant's scope is the run");
    let grant = approver
        .grants(true)
        .await
        .expect("grants")
        .into_iter()
        .find(|g| g.grant.approval_id == approval_id)
        .expect("the service holds the grant");
    assert_eq!(grant.grant.scope_kind, ScopeKind::Run, "a run-scoped grant");
    screenshot("grants.png");

    click(&client, &format!("{row} [data-testid=revoke]")).await;
    let revoked = format!(
        "[data-testid=grant][data-grant-id='{}'][data-status=revoked]",
        grant.grant.grant_id
    );
    text_of(&client, &revoked).await;
    let after = approver.grants(false).await.expect("grants");
    let status = after
        .iter()
        .find(|g| g.grant.grant_id == grant.grant.grant_id)
        .map(|g| g.status);
    assert_eq!(
        status,
        Some(assent_core::GrantStatus::Revoked),
        "revoked in the service"
    );

    client.close().await.expect("end the session");
}
