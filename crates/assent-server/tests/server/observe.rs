use crate::common::{maven, shell, Service};
use reqwest::StatusCode;
use serde_json::json;

/// Every route the router serves, as (method, OpenAPI path).
const ROUTES: &[(&str, &str)] = &[
    ("get", "/healthz"),
    ("get", "/v1/openapi.json"),
    ("get", "/v1/me"),
    ("get", "/v1/people"),
    ("get", "/v1/agents"),
    ("post", "/v1/actions"),
    ("post", "/v1/actions/executed"),
    ("post", "/v1/actions/screen"),
    ("get", "/v1/approvals"),
    ("get", "/v1/approvals/{id}"),
    ("post", "/v1/approvals/{id}/decision"),
    ("post", "/v1/approvals/{id}/forget"),
    ("get", "/v1/runs/{id}/denials"),
    ("get", "/v1/grants"),
    ("post", "/v1/grants/{id}/revoke"),
    ("get", "/v1/runs"),
    ("get", "/v1/runs/{id}"),
    ("post", "/v1/runs/{id}/end"),
    ("post", "/v1/runs/{id}/resume"),
    ("get", "/v1/events"),
    ("get", "/v1/audit"),
    ("get", "/v1/audit/verify"),
    ("get", "/v1/audit/key"),
    ("get", "/v1/suggestions"),
    ("post", "/v1/suggestions/apply"),
    ("get", "/v1/policy"),
    ("get", "/v1/metrics"),
    ("get", "/metrics"),
    ("post", "/v1/credentials/release"),
    ("post", "/v1/runs/{id}/start"),
    ("post", "/v1/campaigns"),
    ("get", "/v1/campaigns"),
    ("get", "/v1/campaigns/{id}"),
    ("post", "/v1/campaigns/{id}/stages"),
    ("post", "/v1/campaigns/{id}/outcomes"),
    ("post", "/v1/campaigns/{id}/resume"),
    ("post", "/v1/invites"),
    ("get", "/v1/push/key"),
    ("get", "/v1/push/subscriptions"),
    ("post", "/v1/push/subscriptions"),
    ("delete", "/v1/push/subscriptions"),
    ("get", "/v1/webhooks"),
    ("post", "/v1/webhooks"),
    ("delete", "/v1/webhooks/{id}"),
    ("get", "/v1/webhooks/{id}/deliveries"),
    ("get", "/v1/passkeys"),
    ("delete", "/v1/passkeys/{id}"),
    ("post", "/v1/passkeys/register/start"),
    ("post", "/v1/passkeys/register/finish"),
    ("post", "/v1/session/start"),
    ("post", "/v1/session/finish"),
    ("post", "/v1/session/end"),
    ("post", "/v1/approvals/{id}/step-up"),
];

#[tokio::test]
async fn every_route_is_in_the_openapi_document() {
    let svc = Service::start().await;
    let resp = svc
        .http
        .get(format!("{}/v1/openapi.json", svc.url))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "the document is served without a token"
    );
    let doc: serde_json::Value = resp.json().await.unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for (method, path) in ROUTES {
        assert!(
            paths.get(*path).and_then(|p| p.get(*method)).is_some(),
            "{method} {path} is documented"
        );
        let concrete = path.replace("{id}", "x");
        let req = match *method {
            "get" => svc.http.get(format!("{}{concrete}", svc.url)),
            "delete" => svc.http.delete(format!("{}{concrete}", svc.url)),
            _ => svc.http.post(format!("{}{concrete}", svc.url)),
        };
        let status = req.send().await.unwrap().status();
        assert_ne!(status, StatusCode::NOT_FOUND, "{method} {path} is routed");
        assert_ne!(
            status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path} takes {method}"
        );
    }
    let documented: usize = paths.values().map(|p| p.as_object().unwrap().len()).sum();
    assert_eq!(
        documented,
        ROUTES.len(),
        "the document has no route the router lacks"
    );
    assert!(
        doc["components"]["schemas"].get("Approval").is_some(),
        "wire types are in the document"
    );
    svc.stop().await;
}

#[tokio::test]
async fn audit_records_every_decision() {
    let svc = Service::start().await;
    svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    svc.submit(&shell("r-1", "cat ~/.ssh/id_rsa", "trusted", None))
        .await;
    let ask = svc.submit(&maven("r-1")).await;
    let decided = svc
        .approve_for_run(ask["approval_id"].as_str().unwrap())
        .await;
    svc.submit(&maven("r-1")).await;
    let grant = decided["grant"]["grant_id"].as_str().unwrap();
    svc.post(
        &format!("/v1/grants/{grant}/revoke"),
        &svc.approver,
        &json!({"reason":"done"}),
    )
    .await;
    let denied = svc.submit(&maven("r-2")).await;
    svc.decide(
        denied["approval_id"].as_str().unwrap(),
        &json!({"decision":"deny","reason":"no"}),
    )
    .await;
    let other = svc.submit(&maven("r-3")).await;
    svc.clock.advance(chrono::Duration::days(1));
    svc.approval(other["approval_id"].as_str().unwrap()).await;

    let (status, audit) = svc.get("/v1/audit", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "the approver reads the audit");
    let decisions: Vec<&str> = audit["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["decision"].as_str().unwrap())
        .collect();
    assert_eq!(
        decisions,
        ["auto", "blocked", "approved", "used", "revoked", "denied", "expired"],
        "each decision is one audit event, in order"
    );
    let first = &audit["events"][0];
    for field in [
        "event_id",
        "timestamp",
        "run_id",
        "task_id",
        "action_kind",
        "action_hash",
        "policy_version",
        "evidence_artifact_id",
    ] {
        assert!(
            first.get(field).is_some(),
            "audit events carry {field}: {first}"
        );
    }
    let (_, r2) = svc.get("/v1/audit?run_id=r-2", &svc.approver).await;
    assert_eq!(r2["events"].as_array().unwrap().len(), 1, "run_id filters");
    let (_, later) = svc
        .get("/v1/audit?since=2026-03-01T12:00:00Z", &svc.approver)
        .await;
    assert_eq!(
        later["events"].as_array().unwrap().len(),
        1,
        "since filters by time (only the expiry is later)"
    );
    let (status, _) = svc.get("/v1/audit?since=yesterday", &svc.approver).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a malformed since is refused"
    );
    svc.stop().await;
}

#[tokio::test]
async fn metrics_count_decisions_prompts_and_grants() {
    let svc = Service::start().await;
    svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    let ask = svc.submit(&maven("r-1")).await;
    svc.submit(&maven("r-1")).await;
    svc.clock.advance(chrono::Duration::seconds(30));
    svc.approve_for_run(ask["approval_id"].as_str().unwrap())
        .await;

    let (status, m) = svc.get("/v1/metrics", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "JSON metrics for the approver");
    assert_eq!(m["actions_by_decision"]["auto"], 2, "two autos");
    assert_eq!(m["actions_by_decision"]["ask"], 2, "two asks");
    assert_eq!(m["prompts_opened"], 1, "one prompt for the batch");
    assert_eq!(m["batch_size"]["max"], 2, "the batch held two");
    assert_eq!(m["grants_active"], 1, "one grant is active");
    assert_eq!(
        m["prompts_per_100_actions"], 25.0,
        "one prompt per four actions"
    );
    assert_eq!(
        m["time_to_decision_seconds"]["p50"], 30.0,
        "decided after 30 s on the fake clock"
    );

    // Answered 200 to the approver (the helper checks it).
    let text = svc.prometheus().await;
    assert!(
        text.contains("assent_actions_total{decision=\"auto\"} 2"),
        "actions by decision: {text}"
    );
    assert!(
        text.contains("assent_grants_active 1"),
        "grants active: {text}"
    );
    assert!(
        text.contains("# TYPE assent_time_to_decision_seconds summary"),
        "time to decision: {text}"
    );
    svc.stop().await;
}
