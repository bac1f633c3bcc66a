//! End-to-end: the real app binary with its embedded service, on a private session bus with
//! a recording notification server. A submitted request raises one notification (summary,
//! body, actions); clicking its "Allow once" creates the grant through the service and the
//! app closes the notification; a click the service refuses, or one on a prompt decided
//! elsewhere, raises a notification saying why. Every press of every button decides, whether
//! the server sends its action before or after its close (counted over many presses). The
//! desk's notifications close when it quits or loses its service, and come back with it.
//! Run by scripts/test.d/40-e2e.sh under Xvfb + dbus-run-session.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;
#[path = "notification_presses.rs"]
mod presses;

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use assent_core::{ApprovalStatus, RiskLevel, Role, ScopeKind, ALL_ROLES};
use assent_protocol::DecisionRequest;
use common::notification_server::{Call, NotificationServer, PressOrder};
use common::{
    app_binary, change_roles, children, eventually, shell_request, status_of, submit_pending,
    window_process, x_window_titled, Desk, TestService, ASKED_COMMAND,
};

const WAIT: Duration = Duration::from_secs(30);

struct App(Child);

impl App {
    /// SIGTERM (as a session logout sends) and its exit status.
    async fn terminate(&mut self) -> ExitStatus {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        eventually("the app to exit", WAIT, || {
            let status = self.0.try_wait().expect("wait");
            async move { status }
        })
        .await
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(Some(_))) {
            return;
        }
        // SIGTERM first, so the app (and its embedded service) end cleanly.
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        if self.0.wait().is_err() {
            let _ = self.0.kill();
        }
    }
}

fn start_app(desk: &Desk) -> App {
    start_app_with(desk, &[])
}

/// [`start_app`] with more environment for the app (say a `PATH` with a recording opener).
fn start_app_with(desk: &Desk, env: &[(&str, &str)]) -> App {
    let mut command = Command::new(app_binary());
    command
        .arg("--tray")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    desk.configure(&mut command);
    command.envs(env.iter().copied());
    App(command.spawn().expect("start assent-desktop"))
}

/// An app in the tray with one prompt waiting: the test notification server, the desk (kept
/// alive for its temp dirs), the app, a second person's client and the prompt's id.
struct Prompted {
    server: NotificationServer,
    desk: Desk,
    app: App,
    approver: assent_client::Client,
    approval_id: String,
}

async fn prompted(run_id: &str) -> Prompted {
    let server = NotificationServer::start().await;
    let desk = Desk::new();
    let app = start_app(&desk);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let request = shell_request(run_id, ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;
    Prompted {
        server,
        desk,
        app,
        approver,
        approval_id,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_once_from_the_notification_creates_the_grant_and_closes_it() {
    // Bound, not `..`: fields left in the temporary would drop (and stop the app) at once.
    let Prompted {
        mut server,
        desk: _desk,
        app: _app,
        approver,
        approval_id,
    } = prompted("run-notify").await;

    let Some(Call::Notify {
        id,
        replaces_id,
        app_name,
        summary,
        body,
        actions,
        urgency,
        ..
    }) = server.next(WAIT).await
    else {
        panic!("a submitted request must raise a notification");
    };
    assert_eq!(replaces_id, 0, "the first notification of a prompt is new");
    assert_eq!(app_name, "Assent", "sent as Assent");
    assert_eq!(
        summary, "Allow maven-test for this run? · shop",
        "a batchable command asks to allow its profile for the run, and says where"
    );
    assert!(
        summary.contains("· shop"),
        "the summary says where: {summary}"
    );
    assert!(
        body.contains("risk"),
        "the body gives the risk level: {body}"
    );
    assert!(
        body.contains(ASKED_COMMAND),
        "the body shows the command: {body}"
    );
    assert!(
        actions
            .windows(2)
            .any(|pair| pair == ["allow-once", "Allow once"]),
        "an 'Allow once' button is offered: {actions:?}"
    );
    assert!(
        actions.windows(2).any(|pair| pair == ["deny", "Deny…"]),
        "a 'Deny…' button is offered (it asks why next): {actions:?}"
    );
    assert_eq!(
        actions.first().map(String::as_str),
        Some("default"),
        "the body click opens the window"
    );
    assert!(urgency.is_some(), "urgency follows risk");

    server.invoke(id, "allow-once").await;

    let Some(Call::Close { id: closed }) = server.next(WAIT).await else {
        panic!("the settled prompt's notification must be closed by the app");
    };
    assert_eq!(closed, id, "the app closes exactly that notification");

    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::ApprovedOnce,
        "'Allow once' is an approver decision through the service"
    );
    let grants = eventually("the grant", WAIT, || async {
        let grants = approver.grants(false).await.ok()?;
        grants
            .into_iter()
            .find(|g| g.grant.approval_id == approval_id)
    })
    .await;
    assert_eq!(
        grants.grant.scope_kind,
        ScopeKind::Once,
        "the grant covers this action once"
    );

    let again = server.next(Duration::from_millis(500)).await;
    assert!(
        again.is_none(),
        "no second notification for a settled prompt: {again:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_on_the_body_opens_the_window_process_on_that_prompt() {
    let Prompted {
        mut server,
        desk: _desk,
        app,
        approver,
        approval_id,
    } = prompted("run-body-click").await;
    let Some(Call::Notify { id, .. }) = server.next(WAIT).await else {
        panic!("a submitted request must raise a notification");
    };
    assert!(
        children(app.0.id()).is_empty(),
        "--tray: no window process before the click"
    );

    server.invoke(id, "default").await;

    // The tray process starts the window on the prompt: `assent-window --focus <id>`.
    let window = window_process(app.0.id(), WAIT).await;
    let cmdline = std::fs::read(format!("/proc/{window}/cmdline")).expect("its command line");
    let args: Vec<String> = cmdline
        .split(|byte| *byte == 0)
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect();
    assert!(
        args.windows(2)
            .any(|pair| pair[0] == "--focus" && pair[1] == approval_id),
        "the window opens on the clicked prompt: {args:?}"
    );
    eventually("the window to show", WAIT, || async {
        x_window_titled("Assent").then_some(())
    })
    .await;
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Requested,
        "a click on the body decides nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_the_service_refuses_raises_a_notification_with_its_reason() {
    let Prompted {
        mut server,
        desk,
        app: _app,
        approver,
        approval_id,
    } = prompted("run-refused").await;
    let Some(Call::Notify { id, actions, .. }) = server.next(WAIT).await else {
        panic!("a submitted request must raise a notification");
    };
    assert!(
        actions.iter().any(|key| key == "allow-once"),
        "the owner (every role) is offered 'Allow once': {actions:?}"
    );
    // An admin takes every role from the desk's person; only the service knows it yet.
    change_roles(&desk.data_dir(), "owner", &[], &ALL_ROLES).await;

    server.invoke(id, "allow-once").await;

    let Some(Call::Notify {
        replaces_id,
        summary,
        body,
        actions,
        ..
    }) = server.next(WAIT).await
    else {
        panic!("a refused click must raise a notification, not only a log line");
    };
    assert_eq!(replaces_id, 0, "the refusal is a notification of its own");
    assert!(
        summary.starts_with("Allow once failed: ") && summary.ends_with("· shop"),
        "the refusal names the button and the prompt: {summary}"
    );
    assert_eq!(
        body, "owner holds no role, so decides nothing; ask an admin to add one",
        "the refusal gives the service's own reason"
    );
    assert!(actions.is_empty(), "a refusal has no buttons: {actions:?}");
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Requested,
        "the refused click decided nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_press_on_a_prompt_decided_elsewhere_says_it_did_not_go_through() {
    let Prompted {
        mut server,
        desk: _desk,
        app: _app,
        approver,
        approval_id,
    } = prompted("run-decided-elsewhere").await;
    let (id, _) = next_shown(&mut server).await;
    approver
        .decide(
            &approval_id,
            &DecisionRequest::Deny {
                reason: "decided in another desk".to_owned(),
            },
        )
        .await
        .expect("the reviewer denies it elsewhere");
    let Some(Call::Close { id: closed }) = server.next(WAIT).await else {
        panic!("a prompt decided elsewhere must have its notification closed");
    };
    assert_eq!(closed, id, "the app closes exactly that notification");

    // The person's press crossed the close.
    server.invoke(id, "allow-once").await;

    let Some(Call::Notify {
        replaces_id,
        summary,
        body,
        actions,
        ..
    }) = server.next(WAIT).await
    else {
        panic!("a press that cannot be applied must raise a notification, not vanish");
    };
    assert_eq!(replaces_id, 0, "the refusal is a notification of its own");
    assert!(
        summary.starts_with("Allow once failed: ") && summary.ends_with("· shop"),
        "the refusal names the button and the prompt: {summary}"
    );
    assert_eq!(
        body, "This prompt is no longer waiting: it was already denied by reviewer.",
        "the refusal says how and by whom the prompt was settled"
    );
    assert!(actions.is_empty(), "a refusal has no buttons: {actions:?}");
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Denied,
        "the late press changed nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_closes_the_desks_notifications() {
    let Prompted {
        mut server,
        desk: _desk,
        mut app,
        approver: _,
        approval_id: _,
    } = prompted("run-quit").await;
    let (id, _) = next_shown(&mut server).await;

    let status = app.terminate().await;

    let Some(Call::Close { id: closed }) = server.next(WAIT).await else {
        panic!("quitting must close the prompt's notification: its buttons die with the desk");
    };
    assert_eq!(closed, id, "the app closes exactly that notification");
    assert!(
        !server.on_screen(id),
        "nothing of the desk is left on screen"
    );
    assert!(status.success(), "the app quits cleanly: {status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_the_service_closes_the_notifications_and_its_return_shows_them_again() {
    let mut server = NotificationServer::start().await;
    let mut service = TestService::start().await;
    let desk = Desk::signed_in(&service.url(), &service.tokens.approver);
    let _app = start_app(&desk);
    let request = shell_request("run-lost-service", ASKED_COMMAND, "/work/shop");
    let approval_id = submit_pending(&service.requester(), &request).await;
    let (id, _) = next_shown(&mut server).await;

    service.stop().await;
    let Some(Call::Close { id: closed }) = server.next(WAIT).await else {
        panic!(
            "a desk that lost its service must close its notifications: no button could go through"
        );
    };
    assert_eq!(closed, id, "the prompt's notification is closed");

    service.restart().await;
    let (again, actions) = next_shown(&mut server).await;
    assert!(
        server.on_screen(again),
        "the service is back: the prompt still waiting is shown again"
    );
    assert!(
        actions.iter().any(|key| key == "allow-once"),
        "shown again with its buttons: {actions:?}"
    );
    server
        .press(again, "allow-once", PressOrder::ActionFirst)
        .await;
    let approver = service.approver();
    eventually("the press on the re-shown notification", WAIT, || async {
        (status_of(&approver, &approval_id).await == ApprovalStatus::ApprovedOnce).then_some(())
    })
    .await;
}

/// Losing the service while an agent waits raises a notification (the prompts' own close: no
/// button could go through), and its return another, in place of the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_the_service_while_an_agent_waits_says_so_and_its_return_too() {
    let mut server = NotificationServer::start().await;
    let mut service = TestService::start().await;
    let desk = Desk::signed_in(&service.url(), &service.tokens.approver);
    let _app = start_app(&desk);
    let request = shell_request("run-lost-said", ASKED_COMMAND, "/work/shop");
    submit_pending(&service.requester(), &request).await;
    let (prompt, _) = next_shown(&mut server).await;

    service.stop().await;
    let (lost, summary, body, urgency) = next_without_buttons(&mut server, 0).await;
    assert_ne!(lost, prompt, "a notification of its own, not the prompt's");
    assert_eq!(
        summary, "Assent can't reach its service",
        "the loss is said, not only the prompt's notification closing"
    );
    assert!(
        body.starts_with("1 prompt waiting") && body.contains("refused"),
        "what waits, and that agents asking meanwhile are refused: {body}"
    );
    assert_eq!(
        urgency,
        Some(2),
        "critical: agents are being refused while it lasts"
    );

    service.restart().await;
    let (back, summary, body, _) = next_without_buttons(&mut server, lost).await;
    assert_eq!(back, lost, "the return replaces the loss in place");
    assert_eq!(
        summary, "Assent reaches its service again",
        "its return is said too"
    );
    assert_eq!(body, "1 prompt waiting for you.", "what waits now: {body}");
}

/// A prompt riskier than one act allows offers no Allow, but Deny stays (asking why), and it
/// is sent at critical urgency.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_high_risk_prompt_offers_deny_with_the_reasons_but_no_allow() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let _app = start_app(&desk);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let request = shell_request(
        "run-high-deny",
        "aws s3 sync ./dist s3://shop-prod-assets --delete",
        "/work/shop",
    );
    let approval_id = submit_pending(&requester, &request).await;
    let risk = approver
        .approval(&approval_id, None)
        .await
        .expect("the prompt")
        .facts
        .risk;
    assert!(
        risk >= RiskLevel::High,
        "precondition: a high-risk prompt, got {risk:?}"
    );

    let (id, actions) = next_shown(&mut server).await;
    assert_eq!(
        buttons(&actions),
        vec![("default", "Open"), ("deny", "Deny…")],
        "no one-click Allow for a high-risk prompt, but Deny stays"
    );
    server.press(id, "deny", PressOrder::ActionFirst).await;
    let (why, why_actions) = next_shown(&mut server).await;
    assert!(
        buttons(&why_actions).contains(&("deny-reason-1", "Use the staging environment")),
        "Deny asks why, with the person's reasons: {why_actions:?}"
    );
    server
        .press(why, "deny-reason-1", PressOrder::ActionFirst)
        .await;
    let denied = eventually("the denial", WAIT, || async {
        let approval = approver.approval(&approval_id, None).await.ok()?;
        (approval.status == ApprovalStatus::Denied).then_some(approval)
    })
    .await;
    assert_eq!(
        denied.decision_reason.as_deref(),
        Some("use the staging environment"),
        "the high-risk prompt was denied from the notification, with the reason picked"
    );
}

/// The next notification without buttons (the app's own words, not a prompt) replacing
/// `replaces` (0: a new one), skipping everything else; its id, summary, body and urgency.
async fn next_without_buttons(
    server: &mut NotificationServer,
    replaces: u32,
) -> (u32, String, String, Option<u8>) {
    loop {
        match server.next(WAIT).await {
            Some(Call::Notify {
                id,
                replaces_id,
                summary,
                body,
                actions,
                urgency,
                ..
            }) if actions.is_empty() && replaces_id == replaces => {
                return (id, summary, body, urgency)
            }
            Some(_) => {}
            None => panic!("no notification without buttons within {WAIT:?}"),
        }
    }
}

/// The next new prompt notification (skipping the app's closes, and refusals, which have no
/// buttons); its id and actions.
async fn next_shown(server: &mut NotificationServer) -> (u32, Vec<String>) {
    loop {
        match server.next(WAIT).await {
            Some(Call::Notify {
                id,
                replaces_id: 0,
                actions,
                ..
            }) if !actions.is_empty() => return (id, actions),
            Some(_) => {}
            None => panic!("a submitted request must raise a notification within {WAIT:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_the_person_may_not_decide_is_a_quiet_notice_not_a_critical_toast() {
    let mut server = NotificationServer::start().await;
    let service = TestService::start().await;
    let alice = service.person("alice", &[Role::RepoMaintainer]).await;
    let desk = Desk::signed_in(&service.url(), &alice);
    let _app = start_app(&desk);
    let request = shell_request(
        "run-cloud-delete",
        "aws s3 rm s3://shop-prod-assets/index.html",
        "/work/shop",
    );
    let approval_id = submit_pending(&service.requester(), &request).await;
    let approval = service
        .approver()
        .approval(&approval_id, None)
        .await
        .expect("the prompt");
    assert_eq!(
        approval.facts.required_role,
        Some(Role::PlatformAdmin),
        "a cloud delete needs a platform admin, which alice is not"
    );
    assert!(
        approval.facts.risk >= RiskLevel::High,
        "a risk that would make a critical toast to a decider: {:?}",
        approval.facts.risk
    );

    let Some(Call::Notify {
        actions,
        urgency,
        body,
        ..
    }) = server.next(WAIT).await
    else {
        panic!("the prompt still reaches alice's desk, to open");
    };
    assert_eq!(
        urgency,
        Some(0),
        "alice may not decide it: a low-urgency notice, not a critical toast to her"
    );
    assert_eq!(actions, ["default", "Open"], "alice may only open it");
    assert!(
        body.contains("platform admin"),
        "the notice says who can decide: {body}"
    );
}

/// A notification body as read: the markup entities the app escapes turned back to text.
fn read(body: &str) -> String {
    body.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notification_is_the_action_whole_and_true() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let _app = start_app(&desk);
    let (requester, _approver) = desk.wait_ready(WAIT).await;

    // A `sh -c` line: the whole line, and its riskiest step named, whatever its place.
    let line = "sh -c \"ls -la; rm -rf ../../.config\"";
    let mut compound = shell_request("run-compound", line, "/tmp/tour/src/shop");
    compound.context.repo = Some("/tmp/tour/src/shop".to_owned());
    submit_pending(&requester, &compound).await;
    let Some(Call::Notify { summary, body, .. }) = server.next(WAIT).await else {
        panic!("a submitted request must raise a notification");
    };
    let body = read(&body);
    assert!(
        body.contains(&format!("$ {line}")),
        "the body shows the line as it will run, not `$ ls -la`: {body}"
    );
    assert!(
        body.contains("riskiest of 2 steps: rm -rf ../../.config"),
        "and names the delete as the riskiest step: {body}"
    );
    assert!(
        summary.ends_with(" · shop") && !summary.contains("/tmp/"),
        "the title names the repository, not its path: {summary}"
    );

    // A force push: named as one, its commits listed as the gate read them.
    let mut push = shell_request("run-push", "git push --force origin main", "/work/shop");
    push.context.pushed = Some(assent_core::PushedCommits {
        branch: Some("main".to_owned()),
        against: "origin/main".to_owned(),
        count: 2,
        commits: vec![
            assent_core::PushedCommit {
                sha: "0123456789ab".to_owned(),
                subject: "fix the cart total".to_owned(),
            },
            assent_core::PushedCommit {
                sha: "89abcdef0123".to_owned(),
                subject: "add the checkout page".to_owned(),
            },
        ],
        diffstat: Some("2 files changed, 4 insertions(+)".to_owned()),
        overwritten: Some(1),
    });
    submit_pending(&requester, &push).await;
    let (summary, body) = loop {
        match server.next(WAIT).await {
            Some(Call::Notify {
                summary,
                body,
                replaces_id: 0,
                ..
            }) if !summary.contains("rm -rf") => break (summary, read(&body)),
            Some(_) => {}
            None => panic!("the push must raise a notification"),
        }
    };
    assert!(
        summary.contains("Force-push main (the default branch) to origin")
            && !summary.contains("pull request"),
        "a push is named as a push, with force: {summary}"
    );
    for said in [
        "force push: drops 1 commit origin/main has",
        "2 commits: fix the cart total; add the checkout page",
        "2 files changed, 4 insertions(+)",
    ] {
        assert!(
            body.contains(said),
            "the body lists what the push sends ({said}): {body}"
        );
    }
}

/// Keys and labels of a notification's buttons (`actions` is key, label, key, label…).
fn buttons(actions: &[String]) -> Vec<(&str, &str)> {
    actions
        .chunks(2)
        .map(|pair| (pair[0].as_str(), pair.get(1).map_or("", String::as_str)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_asks_why_and_the_agent_is_told_the_reason_picked() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let _app = start_app(&desk);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let request = shell_request("run-why", "npm install left-pad", "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;

    let Some(Call::Notify {
        id,
        summary,
        actions,
        ..
    }) = server.next(WAIT).await
    else {
        panic!("a submitted request must raise a notification");
    };
    assert_eq!(
        summary, "Install left-pad with npm? · shop",
        "the question names the action (the service's evidence, in words), not the program"
    );
    assert!(
        buttons(&actions).contains(&("deny", "Deny…")),
        "Deny says a choice follows: {actions:?}"
    );

    server.press(id, "deny", PressOrder::ActionFirst).await;
    let (why, why_actions) = next_shown(&mut server).await;
    assert_eq!(
        buttons(&why_actions),
        vec![
            ("default", "Open"),
            ("deny-reason-1", "Use the staging environment"),
            ("deny-reason-2", "Out of scope"),
            ("deny-plain", "Just deny"),
        ],
        "the 'why deny?' notification offers the first two default reasons and a plain deny"
    );
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Requested,
        "Deny alone decides nothing yet: the reason comes first"
    );

    server
        .press(why, "deny-reason-2", PressOrder::ActionFirst)
        .await;
    let denied = eventually("the denial", WAIT, || async {
        let approval = approver.approval(&approval_id, None).await.ok()?;
        (approval.status == ApprovalStatus::Denied).then_some(approval)
    })
    .await;
    assert_eq!(
        denied.decision_reason.as_deref(),
        Some("out of scope"),
        "the agent is told the reason as written in Settings, so it can try another way"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_why_notification_decides_nothing() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let _app = start_app(&desk);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let request = shell_request("run-why-closed", "npm install left-pad", "/work/shop");
    let approval_id = submit_pending(&requester, &request).await;
    let (id, _) = next_shown(&mut server).await;
    server.press(id, "deny", PressOrder::CloseFirst).await;
    let (why, _) = next_shown(&mut server).await;
    // The person dismisses it: the server closes it, reason 2, no action.
    server.dismiss(why).await;
    let again = server.next(Duration::from_millis(800)).await;
    assert!(
        again.is_none(),
        "a dismissed 'why deny?' is not popped up again: {again:?}"
    );
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Requested,
        "closing the question is not a denial: the prompt waits in the window and the tray"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_service_without_a_token_is_not_a_silent_fallback() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    std::fs::create_dir_all(desk.config_dir()).expect("config dir");
    std::fs::write(
        desk.config_dir().join("desktop.json"),
        r#"{"service_url": "http://team.example:7391"}"#,
    )
    .expect("settings with a URL and no token");
    let _app = start_app(&desk);
    let _ = desk.wait_ready(WAIT).await;
    let said = loop {
        match server.next(WAIT).await {
            Some(Call::Notify { summary, body, .. }) if summary.contains("not using") => {
                break (summary, body)
            }
            Some(_) => {}
            None => panic!("the desk must say that the saved service is not used"),
        }
    };
    assert_eq!(
        said.0, "Assent is not using the service you set",
        "the notification names the problem"
    );
    assert!(
        said.1.contains("http://team.example:7391") && said.1.contains("no token"),
        "and says which service and why, and what is used instead: {}",
        said.1
    );
}

/// Under the policy's `[approvals] step_up`, the desk's own credential cannot approve: the
/// notification offers no Allow button and says a passkey confirms it in the browser, and a
/// click opens the web desk's page for that prompt in the person's browser (`xdg-open`, here
/// a program on `PATH` that writes down the address it was asked to open).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_held_for_a_passkey_opens_the_browser_not_an_allow_button() {
    let mut server = NotificationServer::start().await;
    let desk = Desk::with_policy("[approvals]\nstep_up = \"low\"\n");
    let opener = common::Opener::in_dir(desk.dir.path());
    let _app = start_app_with(&desk, &[("PATH", &opener.path())]);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let approval_id = submit_pending(
        &requester,
        &shell_request("run-step-up", ASKED_COMMAND, "/work/shop"),
    )
    .await;

    let Some(Call::Notify {
        id, body, actions, ..
    }) = server.next(WAIT).await
    else {
        panic!("a prompt held for a passkey is still notified");
    };
    assert_eq!(
        actions.first().map(String::as_str),
        Some("default"),
        "the click on the notification is its one action"
    );
    assert!(
        !actions.iter().any(|a| a.starts_with("allow")),
        "no Allow button: the service refuses the desk's credential for it: {actions:?}"
    );
    assert!(
        body.contains("Needs your passkey") && body.contains("browser"),
        "the body says, before any press, that the browser's desk confirms it: {body}"
    );

    server.invoke(id, "default").await;
    let page = format!(
        "http://localhost:{}/desk/#/pending/{approval_id}",
        desk.port
    );
    let line = opener.first_opened().await;
    assert_eq!(
        line.trim(),
        page,
        "the click opens the web desk on exactly this prompt, where the passkey approves it"
    );
    assert_eq!(
        status_of(&approver, &approval_id).await,
        ApprovalStatus::Requested,
        "opening the page decided nothing"
    );
}

/// The next notification shown, skipping any other call to the server.
async fn next_notify(server: &mut NotificationServer, within: Duration) -> Option<String> {
    tokio::time::timeout(within, async {
        loop {
            match server.next(within).await {
                Some(Call::Notify { body, .. }) => return Some(body),
                Some(_) => {}
                None => return None,
            }
        }
    })
    .await
    .ok()
    .flatten()
}

/// Issue 44: a prompt the model reviewer may still approve alone (decide mode, eligible) is
/// `reviewing`: no person is asked yet, so no notification. When the reviewer gives it to the
/// person (here: it would ask), it is notified then, with the reviewer's opinion in its body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_under_review_is_notified_only_once_the_reviewer_gives_it_to_the_person() {
    let mut server = NotificationServer::start().await;
    let url = common::scripted_reviewer::scripted_reviewer(
        "ask_person",
        "Unusual for this task; ask the person.",
        Duration::from_secs(4),
    )
    .await;
    let desk = Desk::with_policy(&format!(
        "[reviewer]\napi = \"openai\"\nurl = \"{url}\"\nmodel = \"qwen3:8b\"\nmode = \"decide\"\nup_to = \"medium\"\ntimeout = \"20s\"\n"
    ));
    let _app = start_app(&desk);
    let (requester, _approver) = desk.wait_ready(WAIT).await;
    submit_pending(
        &requester,
        &shell_request("run-review", ASKED_COMMAND, "/work/shop"),
    )
    .await;
    assert_eq!(
        next_notify(&mut server, Duration::from_secs(2)).await,
        None,
        "while the reviewer may still approve it alone, nobody is asked: no notification"
    );
    let body = next_notify(&mut server, WAIT)
        .await
        .expect("given to the person, the prompt is notified");
    assert!(
        body.ends_with(
            "Reviewer (qwen3:8b): would ask you — Unusual for this task; ask the person."
        ),
        "the body carries the reviewer's opinion, named as the model's: {body}"
    );
}
