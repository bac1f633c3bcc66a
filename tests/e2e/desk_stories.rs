//! The desk's stories, run in both shells (`crate::SHELL`): by the window's suite
//! (`e2e_webdriver`, tests/e2e/window.rs) through the real app with tauri-driver +
//! WebKitWebDriver, and by the web desk's (`e2e_browser_desk`, tests/e2e/browser_desk.rs) in
//! Chromium signed in with a passkey. The window says who is signed in; a
//! submitted request appears in Pending with its evidence; "Allow for this run" settles it;
//! History names what was decided, by whom, in which role, the scope and until when; the grant
//! appears in Grants with a countdown; revoke moves it to revoked; a run paused by an
//! unanswered prompt is shown and resumed from the desk. The decide form's buttons ask for
//! the lifetimes the policy allows; a denial made on the desk answers the same request of
//! the run at once, History lists it as remembered with *Undo*, and after Undo the request
//! asks again. Against a service of several
//! people, the desk of a maintainer offers no button on what needs another role, shows where
//! a two-person approval stands, and shows the service's own refusal. Insights shows a fresh
//! install as empty, then the service's figures (an uncovered execution as an alarm) and its
//! charts drawn on canvases, refreshed as prompts open and settle; a suggestion with its
//! evidence is applied by one click and in force at once. What only the window has (Esc
//! closing it, the system's dark theme, the desktop's own service settings) is in window.rs.

use crate::common;
#[path = "webdriver_desk.rs"]
pub mod desk;
#[path = "webdriver_diff.rs"]
mod diff;
#[path = "webdriver_insights.rs"]
mod insights;
#[path = "webdriver_reviewer.rs"]
mod reviewer;
#[path = "webdriver_run_packets.rs"]
mod run_packets;
#[path = "webdriver_truth.rs"]
mod truth;

use assent_core::{ApprovalStatus, Role, ScopeKind};
use assent_protocol::{DecisionRequest, SubmitStatus};
use common::driver::{click, element, text_of, WAIT};
use common::ui::Ui;
use common::{
    change_roles, eventually, shell_request, status_of, submit_pending, TestService, ASKED_COMMAND,
};
use fantoccini::Locator;

/// The header's "Signed in as …", once the service has said who the desk is.
async fn signed_in(client: &fantoccini::Client) -> String {
    // The header cuts the line with an ellipsis when the window is narrow; the whole text is
    // the element's (and its tooltip's).
    eventually("the service to say who is signed in", WAIT, || async {
        let text = client
            .execute(
                "const me = document.querySelector('[data-testid=me]'); return me ? me.textContent : ''",
                Vec::new(),
            )
            .await
            .expect("read the header");
        let text = text.as_str().unwrap_or_default().to_owned();
        text.starts_with("Signed in as").then_some(text)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_to_grant_to_revoked_through_the_window() {
    let ui = Ui::own(crate::SHELL, None).await;
    let (client, requester, approver) = (ui.client.clone(), &ui.requester, &ui.reviewer);

    let frozen = client
        .execute("return Object.isFrozen(Object.prototype)", Vec::new())
        .await
        .expect("run a script in the page");
    assert_eq!(
        frozen,
        serde_json::json!(true),
        "freezePrototype is on: agent text can never pollute Object.prototype"
    );

    let me = signed_in(&client).await;
    assert_eq!(
        me, "Signed in as owner · Task author, Repository maintainer, Security reviewer, Platform admin",
        "the window says who the desk signs in as, with the roles the service holds for them"
    );

    let mut request = shell_request("run-window", ASKED_COMMAND, "/work/shop");
    // The commit the agent works on, as the gate sends it: the grant is bound to it.
    request.context.base_sha = Some("1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5".to_owned());
    let approval_id = submit_pending(requester, &request).await;

    let prompt = format!("[data-testid=prompt][data-approval-id='{approval_id}']");
    text_of(&client, &prompt).await;
    let command = text_of(&client, "[data-testid=ev-command]").await;
    assert!(
        command.contains(ASKED_COMMAND),
        "Pending shows the command: {command}"
    );
    let run = text_of(&client, "[data-testid=ev-run]").await;
    assert!(
        run.starts_with("agent ")
            && run.contains(" · first seen ")
            && run.ends_with(" · run run-window"),
        "Pending names the run by its agent, when the window first saw it and its id: {run}"
    );
    let sub = text_of(&client, &format!("{prompt} [data-testid=prompt-run]")).await;
    assert!(
        sub.contains("agent ") && sub.contains("run run-window") && sub.contains("asked "),
        "the queue's line names the run the same way, and says when the prompt was asked: {sub}"
    );
    let hover = element(&client, "[data-testid=ev-run]")
        .await
        .attr("title")
        .await
        .expect("attribute")
        .unwrap_or_default();
    assert!(
        hover.starts_with("Run run-window"),
        "the full run id is on hover: {hover}"
    );
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
    ui.screenshot("pending.png");

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
        status_of(approver, &approval_id).await,
        ApprovalStatus::ApprovedForRun,
        "approved for this run"
    );

    click(&client, "[data-testid=tab-history]").await;
    let row = format!(
        "[data-testid=audit-row][data-decision=approved][data-approval-id='{approval_id}']"
    );
    let what = text_of(&client, &format!("{row} [data-testid=audit-subject]")).await;
    assert!(
        what.contains(ASKED_COMMAND),
        "History shows what was decided: {what}"
    );
    let scope = text_of(&client, &format!("{row} [data-testid=audit-scope]")).await;
    assert_eq!(
        scope, "This run",
        "History shows the scope granted, in words"
    );
    let by = text_of(&client, &format!("{row} [data-testid=audit-by]")).await;
    assert_eq!(
        by, "owner (Task author)",
        "History names the person and the role they decided in"
    );
    let until = text_of(&client, &format!("{row} [data-testid=audit-until]")).await;
    assert!(
        !until.trim().is_empty(),
        "History shows until when the grant runs"
    );
    ui.screenshot("history.png");

    click(&client, "[data-testid=tab-grants]").await;
    let row = "[data-testid=grant][data-status=active]";
    let countdown = text_of(&client, &format!("{row} [data-testid=countdown]")).await;
    assert!(
        countdown.contains(':') && countdown != "expired",
        "the grant shows a live countdown: {countdown}"
    );
    let scope = text_of(&client, &format!("{row} [data-testid=scope]")).await;
    assert_eq!(scope, "This run", "the grant's scope is the run, in words");
    let reach = text_of(&client, &format!("{row} [data-testid=grant-reach]")).await;
    assert!(
        reach.contains("in shop")
            && reach.contains("at commit 1a2b3c4")
            && reach.contains("this run (run run-window)"),
        "the grant says where, on which commit and for which run it holds: {reach}"
    );
    let grant = approver
        .grants(true)
        .await
        .expect("grants")
        .into_iter()
        .find(|g| g.grant.approval_id == approval_id)
        .expect("the service holds the grant");
    assert_eq!(grant.grant.scope_kind, ScopeKind::Run, "a run-scoped grant");
    ui.screenshot("grants.png");

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
async fn a_denial_is_remembered_for_its_run_and_undone_from_history() {
    // Run grants may last 4 h under this policy: the window's run button asks for exactly that.
    let ui = Ui::own(crate::SHELL, Some("[max_grant_lifetime]\nrun = 14400\n")).await;
    let (client, requester, reviewer) = (ui.client.clone(), &ui.requester, &ui.reviewer);
    signed_in(&client).await;

    let request = shell_request("run-denied", ASKED_COMMAND, "/work/shop");
    let denied_id = submit_pending(requester, &request).await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{denied_id}']");
    let run_button = element(&client, &format!("{detail} [data-testid=allow-run]")).await;
    assert_eq!(
        run_button
            .attr("data-seconds")
            .await
            .expect("attribute")
            .as_deref(),
        Some("14400"),
        "the run button asks for the 4 h the policy allows, not a window constant"
    );
    let label = run_button.text().await.expect("label");
    assert!(
        label.contains("for this run") && label.contains("4 h"),
        "the button says what it covers and how long it lasts: {label}"
    );
    click(&client, &format!("{detail} details.custom summary")).await;
    let limit = text_of(&client, &format!("{detail} [data-testid=expiry-limit]")).await;
    assert!(
        limit.contains("4 h"),
        "the custom expiry says the policy's limit for the chosen scope: {limit}"
    );

    element(&client, &format!("{detail} [data-testid=reason]"))
        .await
        .send_keys("not on this branch")
        .await
        .expect("type a reason");
    click(&client, &format!("{detail} [data-testid=deny]")).await;
    text_of(&client, "[data-testid=pending-empty]").await;
    assert_eq!(
        status_of(reviewer, &denied_id).await,
        ApprovalStatus::Denied,
        "the window denied the prompt"
    );

    let again = requester.submit(&request).await.expect("submit again");
    assert_eq!(
        (again.status, again.approval_id.as_deref()),
        (SubmitStatus::Denied, Some(denied_id.as_str())),
        "the same action in the same run is denied at once, naming the person's denial"
    );
    assert!(
        again
            .facts
            .reasons
            .iter()
            .any(|r| r.contains("not on this branch")),
        "with the person's reason: {:?}",
        again.facts.reasons
    );
    assert!(
        reviewer.pending().await.expect("pending").is_empty(),
        "no new prompt was opened"
    );
    text_of(&client, "[data-testid=pending-empty]").await;

    click(&client, "[data-testid=tab-history]").await;
    let remembered = format!("[data-testid=remembered-denial][data-approval-id='{denied_id}']");
    let what = text_of(
        &client,
        &format!("{remembered} [data-testid=denial-subject]"),
    )
    .await;
    assert_eq!(
        what, ASKED_COMMAND,
        "History lists what is remembered as denied"
    );
    let by = text_of(&client, &format!("{remembered} [data-testid=denial-by]")).await;
    assert_eq!(
        by, "owner (Task author): not on this branch",
        "who denied it, in which role, and the reason the agent keeps getting"
    );
    text_of(
        &client,
        &format!("[data-testid=audit-row][data-decision=denied][data-approval-id='{denied_id}'][data-remembered=yes]"),
    )
    .await;
    ui.screenshot("remembered-denials.png");

    click(&client, &format!("{remembered} [data-testid=undo-denial]")).await;
    let done = text_of(&client, "[data-testid=undo-done]").await;
    assert_eq!(
        done,
        format!("Undone: the next \"{ASKED_COMMAND}\" in run run-denied asks you again."),
        "a short confirmation says what happens next"
    );
    eventually("the undone denial to leave the list", WAIT, || async {
        client
            .find(Locator::Css(&remembered))
            .await
            .is_err()
            .then_some(())
    })
    .await;
    assert!(
        reviewer
            .denials("run-denied")
            .await
            .expect("denials")
            .is_empty(),
        "the click forgot the denial in the service, not only in the window"
    );

    let asked_again = submit_pending(requester, &request).await;
    assert_ne!(
        asked_again, denied_id,
        "after Undo the same request opens a new prompt"
    );
    click(&client, "[data-testid=tab-pending]").await;
    text_of(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{asked_again}']"),
    )
    .await;

    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_paused_by_an_unanswered_prompt_is_resumed_from_the_window() {
    // Prompts of this desk's embedded service time out after 2 s and pause their run.
    let ui = Ui::own(
        crate::SHELL,
        Some("approval_timeout_seconds = 2\nfallback_on_timeout = \"pause\"\n"),
    )
    .await;
    let (client, requester, approver) = (ui.client.clone(), &ui.requester, &ui.reviewer);

    let request = shell_request("run-paused", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(requester, &request).await;
    let held = "[data-testid=held-run-paused]";
    let line = text_of(&client, held).await;
    assert!(
        line.contains("run-paused") && line.contains("paused awaiting a person"),
        "once nobody answered in time, Pending shows the paused run and why: {line}"
    );
    assert_eq!(
        status_of(approver, &approval_id).await,
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_maintainer_decides_only_what_the_service_lets_them() {
    // Cloud changes need a platform admin, and two of them.
    let policy = assent_core::Policy::from_toml("[approvals]\nrequired = { platform_admin = 2 }\n")
        .expect("the policy");
    let service = TestService::with_policy(policy).await;
    let bob = service.person("bob", &[Role::RepoMaintainer]).await;
    let alice = service.person("alice", &[Role::PlatformAdmin]).await;
    let ui = Ui::on(crate::SHELL, &service, "bob", &bob).await;
    let client = ui.client.clone();
    let requester = service.requester();

    let me = signed_in(&client).await;
    assert_eq!(
        me, "Signed in as bob · Repository maintainer",
        "the desk signs in as bob, with the roles the service holds for him"
    );

    let cloud = shell_request("run-cloud", "terraform apply", "/work/infra");
    let cloud_id = submit_pending(&requester, &cloud).await;
    let vote = DecisionRequest::Approve {
        scope: ScopeKind::Once,
        expires_in_seconds: 900,
        max_uses: None,
        reason: Some("looks right".to_owned()),
        path_patterns: None,
    };
    let short = service
        .client(&alice)
        .decide(&cloud_id, &vote)
        .await
        .expect("alice approves");
    assert_eq!(
        short.approval.status,
        ApprovalStatus::Requested,
        "one of two approvals leaves the prompt waiting"
    );
    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{cloud_id}']"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{cloud_id}']");
    let progress = eventually("the threshold's progress", WAIT, || async {
        let text = text_of(&client, &format!("{detail} [data-testid=progress]")).await;
        text.starts_with("1 of").then_some(text)
    })
    .await;
    assert_eq!(
        progress, "1 of 2 approvals: alice (Platform admin)",
        "the window shows where a two-person approval stands"
    );
    let why = text_of(&client, &format!("{detail} [data-testid=not-decidable]")).await;
    assert_eq!(
        why, "needs a Platform admin",
        "the window says why bob may not decide it"
    );
    for button in ["decide", "approve", "allow-once", "deny"] {
        assert!(
            client
                .find(fantoccini::Locator::Css(&format!(
                    "{detail} [data-testid={button}]"
                )))
                .await
                .is_err(),
            "no {button} for a prompt needing a role bob lacks"
        );
    }
    ui.screenshot("needs-role.png");

    let ask = shell_request("run-bob", ASKED_COMMAND, "/work/shop");
    let ask_id = submit_pending(&requester, &ask).await;
    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{ask_id}']"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{ask_id}']");
    // An admin takes bob's role away; the desk still believes he holds it, the service knows.
    change_roles(service.dir.path(), "bob", &[], &[Role::RepoMaintainer]).await;
    click(&client, &format!("{detail} [data-testid=allow-once]")).await;
    let refusal = text_of(&client, &format!("{detail} [data-testid=decide-error]")).await;
    assert_eq!(
        refusal, "bob holds no role, so decides nothing; ask an admin to add one",
        "the window shows the service's own refusal"
    );
    assert_eq!(
        status_of(&service.approver(), &ask_id).await,
        ApprovalStatus::Requested,
        "a refused decision changes nothing"
    );

    change_roles(service.dir.path(), "bob", &[Role::RepoMaintainer], &[]).await;
    click(&client, &format!("{detail} [data-testid=allow-once]")).await;
    eventually("bob's prompt to leave Pending", WAIT, || async {
        client
            .find(fantoccini::Locator::Css(&detail))
            .await
            .is_err()
            .then_some(())
    })
    .await;
    let settled = service
        .approver()
        .approval(&ask_id, None)
        .await
        .expect("the approval");
    assert_eq!(
        (
            settled.status,
            settled.decided_by.as_deref(),
            settled.decided_role
        ),
        (
            ApprovalStatus::ApprovedOnce,
            Some("bob"),
            Some(Role::RepoMaintainer)
        ),
        "bob decided the plain ask as a maintainer"
    );

    click(&client, "[data-testid=tab-settings]").await;
    let who = text_of(&client, "[data-testid=settings-me]").await;
    assert_eq!(
        who, "Signed in as bob · Repository maintainer",
        "Settings says who the desk signs in as"
    );
    let roles = text_of(&client, "[data-testid=settings-roles]").await;
    assert_eq!(
        roles, "Repository maintainer",
        "Settings lists the roles the service holds"
    );
    assert!(
        client
            .find(fantoccini::Locator::Css(
                "[data-testid=settings-roles] input"
            ))
            .await
            .is_err(),
        "roles are read-only: an admin grants them, no checkbox does"
    );
    ui.screenshot("settings.png");

    client.close().await.expect("end the session");
}

/// The service dies with a prompt on screen, then comes back: the prompt stays listed (not an
/// empty "Nothing waiting") under a banner that says the service is out of reach — in the
/// window, that agents asking now are refused; in the browser, only what a browser knows:
/// that *it* cannot reach the service — the decision buttons wait, and once the service is
/// back the banner goes and the prompt is decided as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_that_dies_leaves_its_prompts_on_screen_until_it_is_back() {
    let mut service = TestService::start().await;
    let bob = service.person("bob", &[Role::RepoMaintainer]).await;
    let ui = Ui::on(crate::SHELL, &service, "bob", &bob).await;
    let client = ui.client.clone();
    signed_in(&client).await;
    let id = submit_pending(
        &service.requester(),
        &shell_request("run-dies", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let item = format!("[data-testid=prompt][data-approval-id='{id}']");
    text_of(&client, &item).await;

    service.stop().await;
    let banner = text_of(&client, "[data-testid=link-banner-text]").await;
    let says = match crate::SHELL {
        common::ui::Shell::Window => "agents asking now are refused",
        common::ui::Shell::Browser => "This browser can't reach Assent",
    };
    assert!(
        banner.contains(says),
        "the banner says the service is out of reach, in words true of this shell: {banner}"
    );
    assert!(
        client.find(Locator::Css(&item)).await.is_ok(),
        "the prompt stays listed while the service is away, not an empty queue"
    );
    let once = element(&client, "[data-testid=allow-once]").await;
    assert_eq!(
        once.attr("disabled").await.expect("attribute").as_deref(),
        Some("true"),
        "nothing can be decided while the service is away"
    );

    service.restart().await;
    eventually(
        "the banner to go once the service is back",
        WAIT,
        || async {
            client
                .find(Locator::Css("[data-testid=link-banner]"))
                .await
                .is_err()
                .then_some(())
        },
    )
    .await;
    eventually("the buttons to come back", WAIT, || async {
        let once = element(&client, "[data-testid=allow-once]").await;
        once.attr("disabled")
            .await
            .ok()
            .flatten()
            .is_none()
            .then_some(once)
    })
    .await
    .click()
    .await
    .expect("allow once");
    eventually("the decision to settle it", WAIT, || async {
        (status_of(&service.approver(), &id).await == ApprovalStatus::ApprovedOnce).then_some(())
    })
    .await;
    client.close().await.expect("end the session");
}
