//! End-to-end through the window, with WebDriver (tauri-driver + WebKitWebDriver) driving the
//! real app binary, which embeds the real service: the window says who is signed in; a
//! submitted request appears in Pending with its evidence; "Allow for this run" settles it;
//! History names what was decided, by whom, in which role, the scope and until when; the grant
//! appears in Grants with a countdown; revoke moves it to revoked; a run paused by an
//! unanswered prompt is shown and resumed from the window. The decide form's buttons ask for
//! the lifetimes the policy allows; a denial made in the window answers the same request of
//! the run at once, History lists it as remembered with *Undo*, and after Undo the request
//! asks again. Against a service of several
//! people, the desk of a maintainer offers no button on what needs another role, shows where
//! a two-person approval stands, and shows the service's own refusal. Insights shows a fresh
//! install as empty, then the service's figures (an uncovered execution as an alarm) and its
//! charts drawn on canvases, refreshed as prompts open and settle; a suggestion with its
//! evidence is applied by one click and in force at once. Run by
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
#[path = "webdriver_desk.rs"]
mod desk;
#[path = "webdriver_diff.rs"]
mod diff;
#[path = "webdriver_run_packets.rs"]
mod run_packets;

use assent_core::{ApprovalStatus, Role, ScopeKind};
use assent_protocol::{DecisionRequest, SubmitStatus, REQUESTER_TOKEN_FILE};
use common::driver::{click, element, session, start_driver, text_of, WAIT};
use common::{
    change_roles, eventually, screenshot, shell_request, status_of, submit_pending, Desk,
    TestService, ASKED_COMMAND,
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

    let me = signed_in(&client).await;
    assert_eq!(
        me, "Signed in as owner · Task author, Repository maintainer, Security reviewer, Platform admin",
        "the window says who the desk signs in as, with the roles the service holds for them"
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
    assert_eq!(scope, "run", "History shows the scope granted");
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
    screenshot("history.png");

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
async fn a_denial_is_remembered_for_its_run_and_undone_from_history() {
    // Run grants may last 4 h under this policy: the window's run button asks for exactly that.
    let desk = Desk::with_policy("[max_grant_lifetime]\nrun = 14400\n");
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, reviewer) = desk.wait_ready(WAIT).await;
    signed_in(&client).await;

    let request = shell_request("run-denied", ASKED_COMMAND, "/work/shop");
    let denied_id = submit_pending(&requester, &request).await;
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
        label.contains("for run") && label.contains("4 h"),
        "the button shows the service's label and how long it lasts: {label}"
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
        status_of(&reviewer, &denied_id).await,
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
            .reasons
            .iter()
            .any(|r| r.contains("not on this branch")),
        "with the person's reason: {:?}",
        again.reasons
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
    screenshot("remembered-denials.png");

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

    let asked_again = submit_pending(&requester, &request).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_maintainer_decides_only_what_the_service_lets_them() {
    // Cloud changes need a platform admin, and two of them.
    let policy = assent_core::Policy::from_toml("[approvals]\nrequired = { platform_admin = 2 }\n")
        .expect("the policy");
    let service = TestService::with_policy(policy).await;
    let bob = service.person("bob", &[Role::RepoMaintainer]).await;
    let alice = service.person("alice", &[Role::PlatformAdmin]).await;
    let desk = Desk::signed_in(&service.url(), &bob);
    let _driver = start_driver(&desk).await;
    let client = session().await;
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
    screenshot("needs-role.png");

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
    screenshot("settings.png");

    client.close().await.expect("end the session");
}

/// The canvas of chart `testid`: its size in pixels and how many of them are painted.
async fn canvas_of(client: &fantoccini::Client, testid: &str) -> (u64, u64, u64) {
    let script = "const c = document.querySelector(`[data-testid=${arguments[0]}] canvas`);
        if (!c || c.width === 0 || c.height === 0) return null;
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
        return [c.width, c.height, painted];";
    eventually(&format!("chart {testid} to be drawn"), WAIT, || async {
        let answer = client
            .execute(script, vec![serde_json::json!(testid)])
            .await
            .expect("run a script in the page");
        serde_json::from_value::<(u64, u64, u64)>(answer).ok()
    })
    .await
}

/// The headline figure `name` once it reads `want` (the view refreshes on its own).
async fn figure_reads(client: &fantoccini::Client, name: &str, want: &str) {
    let css = format!("[data-testid=figure-{name}] [data-testid=value]");
    let seen = eventually(&format!("figure {name} to read {want}"), WAIT, || async {
        let text = text_of(client, &css).await;
        (text == want).then_some(text)
    })
    .await;
    assert_eq!(seen, want, "figure {name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insights_show_where_prompts_come_from_and_what_ran_without_cover() {
    let desk = Desk::new();
    let _driver = start_driver(&desk).await;
    let client = session().await;
    let (requester, reviewer) = desk.wait_ready(WAIT).await;
    signed_in(&client).await;

    click(&client, "[data-testid=tab-insights]").await;
    let empty = text_of(&client, "[data-testid=insights-empty]").await;
    assert!(
        empty.starts_with("Nothing to show yet"),
        "a fresh install shows a friendly empty state, not empty charts: {empty}"
    );
    assert!(
        client
            .find(Locator::Css(
                "[data-testid=insights-figures] canvas, .chart"
            ))
            .await
            .is_err(),
        "no chart is drawn over no data"
    );

    // While the view is open: run-a asks twice (one approved, one left open), run-b is
    // denied, asks again and is answered by the remembered denial, and runs it anyway.
    let allow_once = DecisionRequest::Approve {
        scope: ScopeKind::Once,
        expires_in_seconds: 900,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    let approved = submit_pending(
        &requester,
        &shell_request("run-a", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    reviewer
        .decide(&approved, &allow_once)
        .await
        .expect("approve");
    let cloud = submit_pending(
        &requester,
        &shell_request("run-a", "terraform apply", "/work/infra"),
    )
    .await;
    let denied = submit_pending(
        &requester,
        &shell_request("run-b", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    let deny = DecisionRequest::Deny {
        reason: "not in this run".to_owned(),
    };
    reviewer.decide(&denied, &deny).await.expect("deny");
    let mut again = shell_request("run-b", ASKED_COMMAND, "/work/shop");
    again.idempotency_key = Some("k-again".to_owned());
    let answer = requester.submit(&again).await.expect("submit again");
    assert_eq!(
        answer.status,
        SubmitStatus::Denied,
        "the run's earlier denial answers the repeat"
    );
    let token = std::fs::read_to_string(desk.data_dir().join(REQUESTER_TOKEN_FILE))
        .expect("the requester token");
    let url = desk.url();
    tokio::task::spawn_blocking(move || {
        let agent = assent_client::blocking::Client::new(&url, token.trim()).expect("agent");
        let deadline = std::time::Instant::now() + WAIT;
        agent
            .record_executed("run-b", "k-again", None, deadline)
            .expect("report the execution");
    })
    .await
    .expect("the blocking call");

    let metrics = reviewer.metrics().await.expect("the service's metrics");
    assert_eq!(
        (
            metrics.prompts_opened,
            metrics.remembered_denials,
            metrics.uncovered_executions
        ),
        (3, 1, 1),
        "the service counted three prompts, a remembered denial and an uncovered execution"
    );
    // The remembered denial settles no prompt, so the view refreshes on a prompt opening or
    // settling, or on Refresh.
    click(&client, "[data-testid=insights-refresh]").await;
    figure_reads(&client, "uncovered", "1").await;
    figure_reads(&client, "prompts", "3").await;
    figure_reads(&client, "remembered-denials", "1").await;
    figure_reads(&client, "rubber-stamps", &metrics.rubber_stamps.to_string()).await;
    figure_reads(
        &client,
        "per-run",
        &format!("{:.1}", metrics.prompts_per_run.mean),
    )
    .await;
    let alarm = element(&client, "[data-testid=figure-uncovered]")
        .await
        .attr("data-alarm")
        .await
        .expect("attribute");
    assert_eq!(
        alarm.as_deref(),
        Some("true"),
        "something ran without cover: the figure is highlighted"
    );

    for chart in [
        "chart-per-day",
        "chart-rules",
        "chart-profiles",
        "chart-approve-rate",
        "chart-time-to-decide",
        "chart-runs",
    ] {
        let (width, height, painted) = canvas_of(&client, chart).await;
        assert!(
            width > 100 && height > 50 && painted > 100,
            "{chart} is drawn on a canvas: {width}x{height}, {painted} pixels painted"
        );
    }
    let legend = text_of(&client, "[data-testid=chart-rules] [data-testid=legend]").await;
    assert!(
        legend.contains("approved") && legend.contains("denied"),
        "the chart's legend is page text: {legend}"
    );

    let rule = reviewer
        .approval(&approved, None)
        .await
        .expect("the approval")
        .rule;
    let rows = client
        .find_all(Locator::Css("[data-testid=rule-row]"))
        .await
        .expect("rule rows");
    let mut shown = Vec::new();
    for row in rows {
        let name = row
            .find(Locator::Css("[data-testid=rule-name]"))
            .await
            .expect("name")
            .text()
            .await
            .expect("text");
        let rate = row
            .find(Locator::Css("[data-testid=rule-rate]"))
            .await
            .expect("rate")
            .text()
            .await
            .expect("text");
        shown.push((name, rate));
    }
    assert!(
        shown.contains(&(rule.clone(), "50 %".to_owned())),
        "{rule} asked twice, approved once and denied once: {shown:?}"
    );
    let runs = text_of(&client, "[data-testid=chart-runs] figcaption").await;
    assert!(runs.starts_with("Runs with the most prompts"), "{runs}");

    // A prompt settling elsewhere refreshes the open view.
    reviewer
        .decide(&cloud, &deny)
        .await
        .expect("deny the open one");
    figure_reads(&client, "prompts", "3").await;
    eventually("the open prompt to count as denied", WAIT, || async {
        let context = text_of(&client, "[data-testid=per-day-context]").await;
        context.starts_with("1 approved, 2 denied").then_some(())
    })
    .await;
    assert!(
        client
            .find(Locator::Css("[data-testid=js-error]"))
            .await
            .is_err(),
        "uPlot runs under the CSP and the frozen Object.prototype without an error"
    );
    screenshot("insights.png");

    // Three runs in the repo `web` each ask once for the same verifier, and each is approved:
    // Insights suggests trusting `web`, with the evidence, and one click applies it.
    for run in ["run-w1", "run-w2", "run-w3"] {
        let mut request = shell_request(run, ASKED_COMMAND, "/work/web");
        request.context.repo = Some("web".to_owned());
        let id = submit_pending(&requester, &request).await;
        reviewer.decide(&id, &allow_once).await.expect("approve");
    }
    click(&client, "[data-testid=insights-refresh]").await;
    let row = "[data-testid=suggestion][data-change=trust_repo]";
    let evidence = text_of(&client, &format!("{row} [data-testid=suggestion-evidence]")).await;
    assert!(
        evidence.contains("approved 3 of 3 times") && evidence.contains("in web"),
        "the suggestion carries its evidence: {evidence}"
    );
    let change = text_of(&client, &format!("{row} [data-testid=suggestion-change]")).await;
    assert!(
        change.starts_with("Trust web"),
        "and says what it changes: {change}"
    );
    screenshot("insights-suggestion.png");
    click(&client, &format!("{row} [data-testid=suggestion-apply]")).await;
    let outcome = eventually("the apply to be confirmed", WAIT, || async {
        let css = format!("{row} [data-testid=suggestion-outcome][data-outcome=applied]");
        match client.find(Locator::Css(&css)).await {
            Ok(found) => found.text().await.ok(),
            Err(_) => None,
        }
    })
    .await;
    assert!(
        outcome.starts_with("Applied: trusted_repos += web. In force now"),
        "the window says what was applied: {outcome}"
    );
    let written = std::fs::read_to_string(desk.data_dir().join("policy.toml"))
        .expect("the service created its policy file");
    assert!(
        written.contains("\"web\""),
        "the click wrote the change into the service's policy file: {written}"
    );
    let mut after = shell_request("run-w4", ASKED_COMMAND, "/work/web");
    after.context.repo = Some("web".to_owned());
    let answer = requester.submit(&after).await.expect("submit");
    assert_eq!(
        answer.status,
        SubmitStatus::Allowed,
        "the applied suggestion is in force without a restart: {answer:?}"
    );
    assert!(
        client
            .find(Locator::Css(&format!(
                "{row} [data-testid=suggestion-apply]"
            )))
            .await
            .is_err(),
        "once applied, the suggestion is no longer offered"
    );
    screenshot("insights-suggestion-applied.png");

    client.close().await.expect("end the session");
}
