//! End-to-end through the window, with WebDriver (tauri-driver + WebKitWebDriver) driving the
//! real app binary, which embeds the real service: a submitted request appears in Pending
//! with its evidence; "Allow for this run" settles it; the grant appears in Grants with a
//! countdown; revoke moves it to revoked; a run paused by an unanswered prompt is shown and
//! resumed from the window. Run by scripts/test.d/40-e2e.sh under Xvfb +
//! dbus-run-session, one suite at a time (tauri-driver's ports are fixed).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

use assent_core::{ApprovalStatus, ScopeKind};
use common::driver::{click, session, start_driver, text_of, WAIT};
use common::{
    eventually, screenshot, shell_request, status_of, submit_pending, Desk, ASKED_COMMAND,
};
use fantoccini::Locator;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_to_grant_to_revoked_through_the_window() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, approver) = desk.wait_ready(WAIT).await;

    let frozen = client
        .execute("return Object.isFrozen(Object.prototype)", Vec::new())
        .await
        .expect("run a script in the page");
    assert_eq!(
        frozen,
        serde_json::json!(true),
        "freezePrototype is on: agent text can never pollute Object.prototype"
    );

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
    assert_eq!(
        status_of(&approver, &approval_id).await,
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_paused_by_an_unanswered_prompt_is_resumed_from_the_window() {
    // Prompts of this desk's embedded service time out after 2 s and pause their run.
    let desk = Desk::with_policy("approval_timeout_seconds = 2\nfallback_on_timeout = \"pause\"\n");
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, approver) = desk.wait_ready(WAIT).await;

    let request = shell_request("run-paused", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;
    let held = "[data-testid=held-run-paused]";
    let line = text_of(&client, held).await;
    assert!(
        line.contains("run-paused") && line.contains("paused awaiting a person"),
        "once nobody answered in time, Pending shows the paused run and why: {line}"
    );
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Expired,
        "the unanswered prompt expired"
    );
    let paused = approver.paused_runs().await.expect("paused runs");
    assert_eq!(
        paused.len(),
        1,
        "the service holds exactly this run: {paused:?}"
    );

    click(&client, "[data-testid=resume-run-paused]").await;
    eventually("the paused run to leave the window", WAIT, || async {
        client.find(Locator::Css(held)).await.is_err().then_some(())
    })
    .await;
    assert!(
        approver
            .paused_runs()
            .await
            .expect("paused runs")
            .is_empty(),
        "the click resumed the run in the service, not only in the window"
    );

    client.close().await.expect("end the session");
}
