use crate::common::{maven, shell, Service};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn auto_block_and_ask_get_their_answers() {
    let svc = Service::start().await;
    let auto = svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    assert_eq!(
        auto["decision"], "auto",
        "ls in a trusted repo is auto: {auto}"
    );
    assert_eq!(
        auto["status"], "allowed",
        "an auto decision is allowed at once"
    );
    assert!(
        auto.get("approval_id").is_none(),
        "auto never opens a prompt"
    );

    let block = svc
        .submit(&shell("r-1", "cat ~/.ssh/id_rsa", "trusted", None))
        .await;
    assert_eq!(
        block["decision"], "block",
        "reading a private key is blocked: {block}"
    );
    assert_eq!(block["status"], "blocked", "a block is answered blocked");
    assert!(
        !block["reasons"].as_array().unwrap().is_empty(),
        "a block explains itself"
    );
    assert!(
        block.get("approval_id").is_none(),
        "a block is never a prompt"
    );

    let ask = svc.submit(&maven("r-1")).await;
    assert_eq!(
        ask["decision"], "ask",
        "mvn test in an unknown repo asks: {ask}"
    );
    assert_eq!(ask["status"], "pending", "an ask waits for a person");
    assert_eq!(ask["profile"], "maven-test", "the maven profile is named");
    for field in ["action_id", "action_hash", "risk", "reasons", "approval_id"] {
        assert!(
            ask.get(field).is_some(),
            "the answer carries {field}: {ask}"
        );
    }
    let approval = svc.approval(ask["approval_id"].as_str().unwrap()).await;
    assert_eq!(approval["status"], "requested", "the new prompt is pending");
    assert!(
        approval["offered_scopes"]
            .as_array()
            .unwrap()
            .contains(&json!("run")),
        "maven-test offers the run scope: {approval}"
    );
    for field in [
        "members",
        "evidence",
        "expires_at",
        "offered_scopes",
        "recommendation",
        "count",
    ] {
        assert!(
            approval.get(field).is_some(),
            "the approval carries {field}"
        );
    }
    let (status, pending) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "the approver lists open prompts");
    assert_eq!(
        pending["approvals"].as_array().unwrap().len(),
        1,
        "exactly one prompt is open"
    );
    svc.stop().await;
}

#[tokio::test]
async fn equivalent_requests_become_one_prompt_with_a_count() {
    let svc = Service::start().await;
    let first = svc.submit(&maven("r-1")).await;
    let second = svc.submit(&maven("r-1")).await;
    assert_ne!(
        first["action_id"], second["action_id"],
        "each request is its own action"
    );
    assert_eq!(
        first["approval_id"], second["approval_id"],
        "equivalent requests join one prompt"
    );
    let approval = svc.approval(first["approval_id"].as_str().unwrap()).await;
    assert_eq!(approval["count"], 2, "the prompt counts both requests");
    assert_eq!(
        approval["members"].as_array().unwrap().len(),
        2,
        "both are members"
    );

    let other_run = svc.submit(&maven("r-2")).await;
    assert_ne!(
        other_run["approval_id"], first["approval_id"],
        "another run is another prompt"
    );

    let decided = svc
        .approve_for_run(first["approval_id"].as_str().unwrap())
        .await;
    assert_eq!(
        decided["approval"]["status"], "approved_for_run",
        "the batch settles at once"
    );
    assert_eq!(
        decided["approval"]["count"], 2,
        "both members settled with it"
    );
    assert_eq!(
        decided["grant"]["scope_kind"], "run",
        "a run-scoped grant was created"
    );

    let later = svc.submit(&maven("r-1")).await;
    assert_eq!(
        later["status"], "allowed",
        "the run grant covers later equivalent requests"
    );
    assert_eq!(
        later["grant_id"], decided["grant"]["grant_id"],
        "the answer names the grant"
    );
    let elsewhere = svc.submit(&maven("r-3")).await;
    assert_eq!(
        elsewhere["status"], "pending",
        "a run grant covers its own run only"
    );

    let (status, ended) = svc
        .post("/v1/runs/r-1/end", &svc.requester, &json!({}))
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the requester ends its run: {ended}"
    );
    assert_eq!(
        ended["grants_expired"], 1,
        "ending the run expires its run grant"
    );
    let after_end = svc.submit(&maven("r-1")).await;
    assert_eq!(
        after_end["status"], "pending",
        "after the run ended its grant covers nothing"
    );
    let (_, grants) = svc.get("/v1/grants", &svc.approver).await;
    assert_eq!(
        grants["grants"][0]["status"], "expired",
        "the grant now shows expired"
    );
    svc.stop().await;
}

#[tokio::test]
async fn run_end_cancels_pending_prompts() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-9")).await;
    let (status, ended) = svc
        .post("/v1/runs/r-9/end", &svc.requester, &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "ending a run is allowed");
    assert_eq!(
        ended["approvals_cancelled"], 1,
        "its pending prompt is closed"
    );
    let approval = svc.approval(ask["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        approval["resolution"], "cancelled",
        "the prompt closed as cancelled"
    );
    assert_eq!(
        approval["status"], "expired",
        "a cancelled prompt can no longer be approved"
    );
    svc.stop().await;
}

#[tokio::test]
async fn once_grants_are_bound_to_the_action_hash() {
    let svc = Service::start().await;
    let ask = svc
        .submit(&shell("r-1", "mvn -B test", "unknown", Some("k-1")))
        .await;
    let (status, decided) = svc
        .decide(
            ask["approval_id"].as_str().unwrap(),
            &json!({"decision":"approve","scope":"once","expires_in_seconds":600}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "approving once is allowed: {decided}"
    );
    assert_eq!(
        decided["grant"]["constraints"]["action_hash"], ask["action_hash"],
        "bound to the hash"
    );
    assert_eq!(decided["grant"]["max_uses"], 1, "a once grant has one use");

    let other = svc
        .submit(&shell("r-1", "mvn -B -q test", "unknown", None))
        .await;
    assert_ne!(
        other["action_hash"], ask["action_hash"],
        "another command has another hash"
    );
    assert_eq!(other["status"], "pending", "approving A never lets B run");

    let same = svc
        .submit(&shell("r-1", "mvn -B test", "unknown", Some("k-2")))
        .await;
    assert_eq!(
        same["status"], "allowed",
        "the exact action is covered once"
    );
    let again = svc
        .submit(&shell("r-1", "mvn -B test", "unknown", Some("k-3")))
        .await;
    assert_eq!(
        again["status"], "pending",
        "a used-up once grant covers nothing more"
    );
    let (_, grants) = svc.get("/v1/grants?status=exhausted", &svc.approver).await;
    assert_eq!(
        grants["grants"].as_array().unwrap().len(),
        1,
        "the once grant is exhausted"
    );
    svc.stop().await;
}

#[tokio::test]
async fn idempotent_resubmits_return_the_first_answer() {
    let svc = Service::start().await;
    let body = shell("r-1", "mvn -B test", "unknown", Some("same-key"));
    let first = svc.submit(&body).await;
    let second = svc.submit(&body).await;
    assert_eq!(
        first, second,
        "the same key and body answer exactly as the first time"
    );
    let approval = svc.approval(first["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        approval["count"], 1,
        "a resubmit never becomes a second request in the prompt"
    );

    let mut changed = body.clone();
    changed["reason"] = json!("something else");
    let (status, err) = svc.post("/v1/actions", &svc.requester, &changed).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a reused key with another body is refused"
    );
    assert_eq!(
        err["error"]["code"], "unprocessable",
        "the error has a stable code: {err}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn concurrent_resubmits_with_one_key_record_one_action() {
    let svc = Service::start().await;
    let body = shell("r-1", "mvn -B test", "unknown", Some("racing-key"));
    let answers = futures::future::join_all((0..8).map(|_| svc.submit(&body))).await;
    for answer in &answers {
        assert_eq!(
            answer, &answers[0],
            "every racing resubmit gets the first answer"
        );
    }
    let approval = svc
        .approval(answers[0]["approval_id"].as_str().unwrap())
        .await;
    assert_eq!(
        approval["count"], 1,
        "eight racing resubmits are one request"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_burst_of_auto_decisions_is_audited_once_each() {
    let svc = Service::start().await;
    let keyed = shell("r-auto", "ls", "trusted", Some("auto-key"));
    let mut reused = keyed.clone();
    reused["reason"] = json!("another body");
    let bodies: Vec<_> = (0..40)
        .map(|i| match i % 4 {
            0 => keyed.clone(),
            1 => reused.clone(),
            _ => shell("r-auto", "ls", "trusted", None),
        })
        .collect();
    let answers = futures::future::join_all(
        bodies
            .iter()
            .map(|body| svc.post("/v1/actions", &svc.requester, body)),
    )
    .await;
    let keyed_ok: Vec<_> = answers
        .iter()
        .enumerate()
        .filter(|(i, (status, _))| i % 4 < 2 && *status == StatusCode::OK)
        .map(|(_, (_, answer))| answer)
        .collect();
    assert_eq!(
        keyed_ok.len(),
        10,
        "whichever body came first, its ten resubmits are answered"
    );
    for answer in &keyed_ok {
        assert_eq!(
            *answer, keyed_ok[0],
            "every resubmit of the key gets the first answer"
        );
    }
    let conflicts = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::UNPROCESSABLE_ENTITY)
        .count();
    assert_eq!(
        conflicts, 10,
        "the same key with the other body is refused every time (or the first wins)"
    );
    let (_, audit) = svc.get("/v1/audit?run_id=r-auto", &svc.approver).await;
    let autos = audit["events"].as_array().unwrap().len();
    assert_eq!(
        autos, 21,
        "twenty unkeyed decisions plus one for the key are audited, no more"
    );
    svc.stop().await;
}
