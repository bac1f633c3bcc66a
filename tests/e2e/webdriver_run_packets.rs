//! A pending pre-run approval on the desk (window and browser), opened the real way (`POST /v1/runs/{id}/start`
//! for a high-risk task): the task, its repositories, what it expects to do and why the
//! policy asks, the agent's text as text (never markup) with a token in it masked.

use std::time::{Duration, Instant};

use assent_core::ALL_ROLES;
use assent_protocol::{RunStartRequest, RunStartStatus};
use fantoccini::Locator;

use super::common::driver::{click, text_of};
use super::common::ui::Ui;
use super::common::TestService;

const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123";

/// Starts run `run-big` with a high-risk task; the pre-run approval's id.
async fn start_high_risk_run(service: &TestService) -> String {
    let url = service.url();
    let token = service.tokens.requester.clone();
    let request = RunStartRequest {
        task: "Upgrade Spring Boot <b>3.4</b> across services".to_owned(),
        risk: Some(assent_core::RiskLevel::High),
        repos: vec!["acme/orders".to_owned(), "acme/billing".to_owned()],
        expected: vec!["create draft PRs".to_owned()],
        credentials: vec![format!("GH_TOKEN={TOKEN}")],
        remote_mutation: Some("PR creation only, no merge".to_owned()),
        campaign: None,
        repo: None,
    };
    let answer = tokio::task::spawn_blocking(move || {
        let client = assent_client::blocking::Client::new(&url, &token).expect("client");
        client
            .run_start(
                "run-big",
                &request,
                Instant::now() + Duration::from_secs(10),
            )
            .expect("the service answers a run start")
    })
    .await
    .expect("join");
    assert_eq!(
        answer.status,
        RunStartStatus::Pending,
        "a high-risk task asks before it starts"
    );
    answer
        .approval_id
        .expect("a pending start names its approval")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_pre_run_shows_the_task_where_it_goes_and_why_it_asks() {
    let service = TestService::start().await;
    let id = start_high_risk_run(&service).await;
    let ana = service.person("ana", &ALL_ROLES).await;
    let ui = Ui::on(crate::SHELL, &service, "ana", &ana).await;
    let client = ui.client.clone();

    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{id}']");
    let task = text_of(&client, &format!("{detail} [data-testid=ev-task]")).await;
    assert_eq!(
        task, "Upgrade Spring Boot <b>3.4</b> across services",
        "the task as the agent wrote it, markup shown as text"
    );
    let repos = text_of(&client, &format!("{detail} [data-testid=ev-task-repos]")).await;
    assert!(
        repos.contains("acme/orders") && repos.contains("acme/billing"),
        "every repository the run will touch: {repos}"
    );
    let triggers = text_of(&client, &format!("{detail} [data-testid=ev-task-triggers]")).await;
    assert!(
        triggers.contains("task risk is high"),
        "why the policy asks first: {triggers}"
    );
    let credentials = text_of(
        &client,
        &format!("{detail} [data-testid=ev-task-credentials]"),
    )
    .await;
    assert!(
        credentials.contains("GH_TOKEN=") && !credentials.contains("abcdefghijklmnop"),
        "a token in the agent's text is masked before the window sees it: {credentials}"
    );
    let remote = text_of(&client, &format!("{detail} [data-testid=ev-task-remote]")).await;
    assert_eq!(
        remote, "PR creation only, no merge",
        "what it may change remotely"
    );
    let bold = client
        .find_all(Locator::Css(&format!(
            "{detail} [data-testid=ev-pre-run] b"
        )))
        .await
        .expect("find elements");
    assert!(
        bold.is_empty(),
        "the task's markup never becomes an element"
    );
    ui.screenshot("pending-pre-run.png");
    client.close().await.expect("end the session");
}
