//! The window's commands as the page sends them, answered against a real service: the JSON the
//! page gets back and the error codes it branches on.
#![allow(clippy::expect_used, clippy::panic, reason = "tests")]

use std::path::PathBuf;

use assent_client::Client;
use assent_protocol::{Approval, SubmitStatus};
use tokio::sync::mpsc;

use super::*;
use crate::app::ServiceGuard;
use crate::app_state::Current;
use crate::autostart::Autostart;
use crate::fixtures::{asked, service, Running};
use crate::ipc::CommandErrorCode;
use crate::settings::Service;
use crate::window::WindowHost;

fn app_on(running: &Running) -> Arc<App> {
    let current = Current {
        client: Client::new(&running.url, &running.tokens.approver).expect("client"),
        url: running.url.clone(),
        embedded: false,
        service: Service::Remote {
            url: running.url.clone(),
            token: running.tokens.approver.clone(),
        },
    };
    let (inputs, _) = mpsc::channel(8);
    let hub = Hub::new(
        current,
        inputs,
        Settings::default(),
        PathBuf::from("unused.json"),
    );
    Arc::new(App {
        hub: Arc::new(hub),
        window: WindowHost::new(PathBuf::from("unused-window")),
        guard: ServiceGuard::default(),
        autostart: Autostart::new(),
    })
}

/// What the page's `invoke(command, args)` arrives as.
fn call(command: &str, args: serde_json::Value) -> WindowCall {
    serde_json::from_value(serde_json::json!({"command": command, "args": args}))
        .unwrap_or_else(|err| panic!("{command} must parse: {err}"))
}

fn approvals(value: serde_json::Value) -> Vec<Approval> {
    serde_json::from_value(value).expect("a list of approvals")
}

#[tokio::test]
async fn remembered_denials_are_listed_and_undone_from_the_window() {
    let running = service().await;
    let app = app_on(&running);
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    let asked_id = agent
        .submit(&asked("run-d"))
        .await
        .expect("submit")
        .approval_id
        .expect("asked");
    let deny = serde_json::json!({"approval_id": asked_id, "decision": {"decision": "deny", "reason": "not now"}});
    handle(&app, call("approval_decide", deny))
        .await
        .expect("the window denies");
    assert_eq!(
        agent.submit(&asked("run-d")).await.expect("submit").status,
        SubmitStatus::Denied,
        "the denial is remembered for the run"
    );

    let listed = handle(
        &app,
        call("denial_list", serde_json::json!({"run_id": "run-d"})),
    )
    .await
    .expect("the window lists the run's denials");
    let listed = approvals(listed);
    assert_eq!(
        listed
            .iter()
            .map(|a| (a.approval_id.as_str(), a.decision_reason.as_deref()))
            .collect::<Vec<_>>(),
        [(asked_id.as_str(), Some("not now"))],
        "the page gets the service's list as an array of approvals, with the person's reason"
    );

    let undone = handle(
        &app,
        call(
            "denial_forget",
            serde_json::json!({"approval_id": asked_id}),
        ),
    )
    .await
    .expect("the window undoes it");
    let undone: Approval = serde_json::from_value(undone).expect("the approval");
    assert_eq!(undone.approval_id, asked_id, "undo answers the approval");
    assert!(
        approvals(
            handle(
                &app,
                call("denial_list", serde_json::json!({"run_id": "run-d"}))
            )
            .await
            .expect("list again")
        )
        .is_empty(),
        "an undone denial is no longer listed"
    );

    let twice = handle(
        &app,
        call(
            "denial_forget",
            serde_json::json!({"approval_id": asked_id}),
        ),
    )
    .await
    .expect_err("undoing twice is refused");
    assert_eq!(
        twice.code,
        CommandErrorCode::Conflict,
        "the service's 409 reaches the page as `conflict` (undone elsewhere), which it branches on"
    );
    assert!(
        !twice.message.is_empty(),
        "with the service's message to show"
    );
    for (command, args) in [
        ("denial_list", serde_json::json!({"run_id": "  "})),
        ("denial_forget", serde_json::json!({"approval_id": ""})),
    ] {
        let refused = handle(&app, call(command, args))
            .await
            .expect_err("an empty id is refused");
        assert_eq!(
            refused.code,
            CommandErrorCode::Invalid,
            "{command} without an id never reaches the service"
        );
    }
    assert!(
        matches!(
            agent.submit(&asked("run-d")).await.expect("submit").status,
            SubmitStatus::Pending
        ),
        "after the window's undo the same request asks again"
    );
}

/// `mvn -q test` in the repo `/work/shop`, in run `run_id`.
fn maven_in_shop(run_id: &str) -> assent_core::ActionRequest {
    let mut request = asked(run_id);
    request.context.repo = Some("/work/shop".to_owned());
    request
}

#[tokio::test]
async fn a_suggestion_is_listed_and_applied_from_the_window() {
    let running = service().await;
    let app = app_on(&running);
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    let run_once =
        serde_json::json!({"decision": "approve", "scope": "run", "expires_in_seconds": 3600});
    for run in ["run-1", "run-2", "run-3"] {
        let id = agent
            .submit(&maven_in_shop(run))
            .await
            .expect("submit")
            .approval_id
            .expect("asked");
        handle(
            &app,
            call(
                "approval_decide",
                serde_json::json!({"approval_id": id, "decision": run_once}),
            ),
        )
        .await
        .expect("the window approves");
    }

    let listed = handle(
        &app,
        call("suggestions_get", serde_json::json!({"since_days": 7})),
    )
    .await
    .expect("the window lists suggestions");
    let suggestions: Vec<assent_protocol::Suggestion> =
        serde_json::from_value(listed).expect("a list of suggestions");
    let first = suggestions.first().expect("one suggestion");
    assert_eq!(
        first.change,
        assent_protocol::PolicyChange::TrustRepo {
            repo: "/work/shop".to_owned()
        },
        "three approvals of the verifier in one repo: trust it"
    );
    assert!(
        first.evidence.contains("approved 3 of 3 times"),
        "with its evidence for the page: {}",
        first.evidence
    );

    let change = serde_json::to_value(&first.change).expect("json");
    let applied = handle(
        &app,
        call(
            "suggestion_apply",
            serde_json::json!({"change": change, "since_days": 7}),
        ),
    )
    .await
    .expect("the window applies it");
    assert_eq!(
        applied["applied"], "trusted_repos += /work/shop",
        "the page gets what changed: {applied}"
    );
    assert_eq!(
        agent
            .submit(&maven_in_shop("run-4"))
            .await
            .expect("submit")
            .status,
        SubmitStatus::Allowed,
        "the applied policy is in force at once"
    );
    let again = handle(
        &app,
        call(
            "suggestion_apply",
            serde_json::json!({"change": change, "since_days": 7}),
        ),
    )
    .await
    .expect_err("applying twice is refused");
    assert_eq!(
        again.code,
        CommandErrorCode::Conflict,
        "the service's 409 reaches the page as `conflict`"
    );
    assert!(
        again.message.contains("not suggested"),
        "with the service's message to show: {}",
        again.message
    );
}

#[tokio::test]
async fn a_decision_answers_its_grant_so_the_page_can_say_what_it_granted_and_undo_it() {
    let running = service().await;
    let app = app_on(&running);
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    let asked_id = agent
        .submit(&asked("run-u"))
        .await
        .expect("submit")
        .approval_id
        .expect("asked");
    let pending = agent_approval_list(&app).await;
    assert_eq!(
        pending
            .iter()
            .find(|a| a.approval_id == asked_id)
            .map(|a| a.quick_up_to),
        Some(assent_core::RiskLevel::Medium),
        "the list carries the policy's line for one-act approvals"
    );
    let approve = serde_json::json!({"approval_id": asked_id, "decision": {"decision": "approve", "scope": "run", "expires_in_seconds": 600}});
    let answer = handle(&app, call("approval_decide", approve))
        .await
        .expect("the window approves");
    let answer: assent_protocol::DecisionResponse =
        serde_json::from_value(answer).expect("the service's decision response");
    let grant = answer.grant.expect("an approval answers with its grant");
    assert_eq!(
        grant.grant.approval_id, asked_id,
        "the grant the page may undo is this prompt's"
    );
    let revoked = handle(
        &app,
        call(
            "grant_revoke",
            serde_json::json!({"grant_id": grant.grant.grant_id, "reason": "undone"}),
        ),
    )
    .await
    .expect("undo revokes");
    let revoked: assent_protocol::Grant = serde_json::from_value(revoked).expect("the grant");
    assert_eq!(
        (revoked.status, revoked.grant.used_count),
        (assent_core::GrantStatus::Revoked, 0),
        "the revoke answers the grant with its use count, so the page can say whether the agent used it"
    );
}

async fn agent_approval_list(app: &Arc<App>) -> Vec<Approval> {
    app.hub.client().pending().await.expect("the pending list")
}

#[test]
fn the_settings_say_which_environment_variables_override_them() {
    let both = |name: &str| Some(format!("{name}-value"));
    assert_eq!(
        env_overrides(both),
        ["ASSENT_URL", "ASSENT_TOKEN"],
        "both set: the screen says they win"
    );
    assert!(
        env_overrides(|name: &str| (name == "ASSENT_URL").then(|| " ".to_owned())).is_empty(),
        "a blank variable overrides nothing"
    );
}

#[tokio::test]
async fn deny_reasons_are_saved_cleaned_and_bad_ones_refused() {
    let running = service().await;
    let app = app_on(&running);
    let view = handle(&app, WindowCall::SettingsGet)
        .await
        .expect("settings");
    assert_eq!(
        view["deny_reasons"],
        serde_json::json!([
            "use the staging environment",
            "out of scope",
            "ask me first"
        ]),
        "the defaults reach the page"
    );
    let too_long = serde_json::json!({"input": {"service_url": running.url, "token": null, "notifications": true, "autostart": false, "deny_reasons": ["x".repeat(300)]}});
    let refused = handle(&app, call("settings_save", too_long))
        .await
        .expect_err("an over-long reason is refused");
    assert_eq!(
        refused.code,
        CommandErrorCode::Invalid,
        "the page shows why instead of saving a cut reason"
    );
}

#[tokio::test]
async fn the_settings_read_the_audit_key_and_its_verification_through_the_desk() {
    let running = service().await;
    let app = app_on(&running);
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    agent.submit(&asked("run-a")).await.expect("submit");
    let parsed: WindowCall =
        serde_json::from_value(serde_json::json!({"command": "audit_key_get"}))
            .expect("the page's invoke('audit_key_get') parses");
    let key = handle(&app, parsed).await.expect("the key");
    let public = key["public_key"].as_str().expect("a public key");
    assert!(
        public.len() == 64 && public.chars().all(|c| c.is_ascii_hexdigit()),
        "the page gets the Ed25519 public key in hex to show and copy: {key}"
    );
    let parsed: WindowCall = serde_json::from_value(serde_json::json!({"command": "audit_verify"}))
        .expect("the page's invoke('audit_verify') parses");
    let verified = handle(&app, parsed).await.expect("the verification");
    assert_eq!(
        (verified["public_key"].as_str(), &verified["key_id"]),
        (Some(public), &key["key_id"]),
        "verify checks with the key Settings shows"
    );
    let audited = app.hub.client().audit(None, None).await.expect("audit");
    assert_eq!(
        (&verified["report"]["ok"], &verified["report"]["events"]),
        (&serde_json::json!(true), &serde_json::json!(audited.len())),
        "every audit record is a verified link: {verified}"
    );
}
