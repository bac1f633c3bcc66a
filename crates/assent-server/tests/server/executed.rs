use crate::common::{shell, Service};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn executed_audits(svc: &Service, run: &str) -> Vec<Value> {
    svc.audit(run)
        .await
        .into_iter()
        .filter(|e| e["decision"] == "executed")
        .collect()
}

#[tokio::test]
async fn an_executed_report_is_audited_once_with_its_cover() {
    let svc = Service::start().await;
    let auto = svc
        .submit(&shell("r-x", "ls", "trusted", Some("tool-1")))
        .await;
    assert_eq!(auto["status"], "allowed", "ls in a trusted repo is allowed");
    let report = json!({"run_id": "r-x", "idempotency_key": "tool-1"});
    let (status, answer) = svc
        .post("/v1/actions/executed", &svc.requester, &report)
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the requester reports what it ran: {answer}"
    );
    assert_eq!(answer["covered"], true, "an auto decision covers what ran");
    assert_eq!(
        answer["action_id"], auto["action_id"],
        "the report names the action"
    );

    let (again, _) = svc
        .post("/v1/actions/executed", &svc.requester, &report)
        .await;
    assert_eq!(again, StatusCode::OK, "a repeated report is accepted");
    let audits = executed_audits(&svc, "r-x").await;
    assert_eq!(
        audits.len(),
        1,
        "a repeated report is audited only once: {audits:?}"
    );
    assert_eq!(
        audits[0]["action_kind"], "shell",
        "the audit names the action's kind"
    );
    assert_eq!(
        audits[0]["action_hash"], auto["action_hash"],
        "and its hash"
    );
    let (_, verified) = svc.get("/v1/audit/verify", &svc.approver).await;
    assert_eq!(
        verified["report"]["breaks"],
        json!([]),
        "the chain itself shows the auto decision before the execution: covered"
    );
}

#[tokio::test]
async fn running_a_pending_action_is_flagged_uncovered() {
    let svc = Service::start().await;
    let ask = svc
        .submit(&shell("r-y", "mvn -B test", "unknown", Some("tool-2")))
        .await;
    assert_eq!(
        ask["status"], "pending",
        "mvn test in an unknown repo waits"
    );
    let (status, answer) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-y", "idempotency_key": "tool-2"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the report is recorded: {answer}");
    assert_eq!(
        answer["covered"], false,
        "nothing allowed a still-pending action, so the coverage check must flag it"
    );
    let audits = executed_audits(&svc, "r-y").await;
    assert!(
        audits[0]["reason"]
            .as_str()
            .unwrap()
            .contains("WITHOUT cover"),
        "the audit says the action ran without cover: {audits:?}"
    );
    // The coverage check made from the verified chain's own events names the same execution,
    // and agrees with the service's count.
    let (status, verified) = svc.get("/v1/audit/verify", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "a person checks the chain");
    let breaks = &verified["report"]["breaks"];
    assert_eq!(
        (
            breaks.as_array().map(Vec::len),
            &breaks[0]["kind"],
            &breaks[0]["event_id"]
        ),
        (Some(1), &json!("uncovered"), &audits[0]["event_id"]),
        "verify reports the uncovered execution, and nothing else broke: {verified}"
    );
    assert_eq!(
        verified["report"]["ok"], false,
        "an uncovered execution fails the check"
    );
    let (_, metrics) = svc.get("/v1/metrics", &svc.approver).await;
    assert_eq!(
        metrics["uncovered_executions"], 1,
        "the insights' figure counts the same one execution"
    );
}

#[tokio::test]
async fn executed_reports_are_checked() {
    let svc = Service::start().await;
    svc.submit(&shell("r-z", "ls", "trusted", Some("tool-3")))
        .await;
    let unknown = json!({"run_id": "r-z", "idempotency_key": "never-submitted"});
    let (status, body) = svc
        .post("/v1/actions/executed", &svc.requester, &unknown)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "an unknown key is 404: {body}"
    );
    assert_eq!(
        body["error"]["code"], "not_found",
        "with the JSON error shape"
    );

    let other_run = json!({"run_id": "r-other", "idempotency_key": "tool-3"});
    let (status, _) = svc
        .post("/v1/actions/executed", &svc.requester, &other_run)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a key is only found in its own run"
    );

    let (status, _) = svc
        .post(
            "/v1/actions/executed",
            &svc.approver,
            &json!({"run_id": "r-z", "idempotency_key": "tool-3"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a key is only found for the identity that submitted it: the owner never submitted tool-3"
    );

    let (status, body) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": "r-z", "idempotency_key": "tool-3", "extra": "x".repeat(530_000)}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "huge bodies are refused: {body}"
    );
    let (status, _) = svc
        .post(
            "/v1/actions/executed",
            &svc.requester,
            &json!({"run_id": 5}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "malformed reports are 400");
}
