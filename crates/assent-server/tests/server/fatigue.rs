//! Never ask twice: remembered denials, "once" as one execution, and the quick decisions the
//! policy allows — through the real service.

use crate::common::{maven, shell, Service};
use assent_core::Policy;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn push(run: &str) -> Value {
    shell(run, "git push origin main", "unknown", None)
}

/// Submits `body` (a person must decide it) and returns the prompt's id.
async fn prompt_id(svc: &Service, body: &Value) -> String {
    let answer = svc.submit(body).await;
    assert_eq!(answer["status"], "pending", "a person decides it: {answer}");
    answer["approval_id"].as_str().unwrap().to_owned()
}

async fn pending_count(svc: &Service) -> usize {
    let (_, list) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    list["approvals"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_denial_sticks_for_the_run_until_undone() {
    let svc = Service::start().await;
    let first = svc.submit(&push("r-1")).await;
    let id = first["approval_id"].as_str().unwrap().to_owned();
    let (status, _) = svc
        .decide(
            &id,
            &json!({"decision":"deny","reason":"open a PR instead"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    let again = svc.submit(&push("r-1")).await;
    assert_eq!(
        again["status"], "denied",
        "the same action in the same run: {again}"
    );
    assert_eq!(
        again["approval_id"],
        id.as_str(),
        "it names the original approval"
    );
    assert!(
        again["reasons"][0]
            .as_str()
            .unwrap()
            .contains("open a PR instead"),
        "with the person's reason: {again}"
    );
    assert_eq!(pending_count(&svc).await, 0, "no new prompt");
    let remembered: Vec<Value> = svc
        .audit("r-1")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "denied" && e["action_id"] == again["action_id"])
        .collect();
    assert_eq!(remembered.len(), 1, "the answer is audited as a denial");
    assert_eq!(
        remembered[0]["approval_id"],
        id.as_str(),
        "naming the original approval"
    );
    assert_eq!(remembered[0]["approver"], "owner", "and who denied it");

    let other_run = svc.submit(&push("r-2")).await;
    assert_eq!(
        other_run["status"], "pending",
        "another run is asked: {other_run}"
    );

    let (status, denials) = svc.get("/v1/runs/r-1/denials", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "{denials}");
    assert_eq!(
        denials["approvals"][0]["approval_id"],
        id.as_str(),
        "the run lists it"
    );
    let (status, _) = svc
        .post(
            &format!("/v1/approvals/{id}/forget"),
            &svc.requester,
            &json!({}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent cannot undo a denial"
    );
    let (status, _) = svc
        .post(
            &format!("/v1/approvals/{id}/forget"),
            &svc.approver,
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "a person undoes it");
    let (status, _) = svc
        .post(
            &format!("/v1/approvals/{id}/forget"),
            &svc.approver,
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "undoing twice is a conflict");
    let after = svc.submit(&push("r-1")).await;
    assert_eq!(
        after["status"], "pending",
        "after Undo it is asked again: {after}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn deny_memory_off_asks_again() {
    let policy = Policy::from_toml("deny_memory = \"off\"").unwrap();
    let svc = Service::start_with(|c| c.policy = policy).await;
    let id = prompt_id(&svc, &push("r-1")).await;
    svc.decide(&id, &json!({"decision":"deny","reason":"no"}))
        .await;
    let again = svc.submit(&push("r-1")).await;
    assert_eq!(
        again["status"], "pending",
        "with deny_memory off a person is asked again"
    );
    assert!(
        Policy::from_toml("deny_memory = -5").is_err(),
        "a negative memory is refused with an error"
    );
    assert!(
        Policy::from_toml("deny_memory = \"forever\"").is_err(),
        "an unknown word is refused"
    );
    svc.stop().await;
}

#[tokio::test]
async fn once_is_one_execution() {
    let svc = Service::start().await;
    // A gate waits on the prompt while the person approves once: that gate runs it.
    let id = prompt_id(&svc, &push("r-1")).await;
    let path = format!("/v1/approvals/{id}?wait=30");
    let waiter = svc.get(&path, &svc.requester);
    let decide = async {
        // The ready signal: the service counts the gate as waiting (bounded, never a sleep).
        let ready = async {
            while svc.approval(&id).await["agents_waiting"] != 1 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), ready)
            .await
            .expect("the waiting gate is counted");
        svc.decide(
            &id,
            &json!({"decision":"approve","scope":"once","expires_in_seconds":600}),
        )
        .await
    };
    let ((_, settled), (status, decided)) = tokio::join!(waiter, decide);
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(
        settled["status"], "approved_once",
        "the waiting gate got the approval"
    );
    assert_eq!(
        decided["grant"]["status"], "exhausted",
        "its one use went to that run: {decided}"
    );
    let later = svc.submit(&push("r-1")).await;
    assert_eq!(
        later["status"], "pending",
        "a later identical command is asked again, not let through: {later}"
    );

    // Nobody waits (the gate gave up): approving once covers the agent's retry, once.
    let svc2 = Service::start().await;
    let id = prompt_id(&svc2, &push("r-1")).await;
    let (_, decided) = svc2
        .decide(
            &id,
            &json!({"decision":"approve","scope":"once","expires_in_seconds":600}),
        )
        .await;
    assert_eq!(
        decided["grant"]["status"], "active",
        "the use is kept for a retry"
    );
    let retry = svc2.submit(&push("r-1")).await;
    assert_eq!(retry["status"], "allowed", "the retry is covered: {retry}");
    let third = svc2.submit(&push("r-1")).await;
    assert_eq!(third["status"], "pending", "but only once: {third}");
    svc.stop().await;
    svc2.stop().await;
}

#[tokio::test]
async fn quick_decisions_are_what_the_policy_allows() {
    let policy = Policy::from_toml("[max_grant_lifetime]\nrun = 14400").unwrap();
    let svc = Service::start_with(|c| c.policy = policy).await;
    let id = prompt_id(&svc, &maven("r-1")).await;
    let approval = svc.approval(&id).await;
    let quick = approval["quick_decisions"].as_array().unwrap();
    assert_eq!(
        quick[0],
        json!({"label":"Allow maven-test for run","scope":"run","expires_in_seconds":14400}),
        "the run button asks for 4 h, the policy's cap, not a fixed 8 h"
    );
    assert!(
        quick.iter().any(|q| q["scope"] == "once"),
        "once is offered too: {quick:?}"
    );
    let (status, body) = svc
        .decide(&id, &json!({"decision":"approve","scope":quick[0]["scope"],"expires_in_seconds":quick[0]["expires_in_seconds"]}))
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "every quick decision is accepted: {body}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn metrics_show_where_the_prompts_come_from() {
    let svc = Service::start().await;
    let fast = prompt_id(&svc, &maven("r-1")).await;
    // Decided at once (the fake clock stands still): a rubber stamp.
    svc.approve_for_run(&fast).await;
    let slow = prompt_id(&svc, &push("r-2")).await;
    svc.clock.advance(chrono::Duration::seconds(40));
    svc.decide(&slow, &json!({"decision":"deny","reason":"open a PR"}))
        .await;
    let again = svc.submit(&push("r-2")).await;
    assert_eq!(again["status"], "denied", "remembered: {again}");

    let (status, m) = svc.get("/v1/metrics", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "{m}");
    let maven_rule = m["by_rule"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(rule, _)| rule.contains("maven"))
        .map(|(_, stats)| stats.clone())
        .unwrap_or_else(|| panic!("the maven prompt's rule is listed: {m}"));
    assert_eq!(maven_rule["prompts"], 1, "{maven_rule}");
    assert_eq!(maven_rule["approve_rate"], 1.0, "approved: {maven_rule}");
    assert_eq!(
        maven_rule["rubber_stamps"], 1,
        "decided at once is a rubber stamp"
    );
    assert_eq!(
        m["by_profile"]["maven-test"]["prompts"], 1,
        "per profile too: {m}"
    );
    let push_rule = m["by_rule"]
        .as_object()
        .unwrap()
        .values()
        .find(|s| s["denied"] == 1)
        .unwrap_or_else(|| panic!("the denied prompt's rule is listed: {m}"));
    assert_eq!(push_rule["deny_rate"], 1.0, "{push_rule}");
    assert_eq!(
        push_rule["rubber_stamps"], 0,
        "40 s is a judgment, not a stamp"
    );
    assert_eq!(
        push_rule["remembered_denials"], 1,
        "the retry was answered from memory"
    );
    assert_eq!(
        push_rule["time_to_decide_seconds"]["p50"], 40.0,
        "time to decide is measured: {push_rule}"
    );
    assert_eq!(m["prompts_per_run"]["runs"], 2, "two runs prompted: {m}");
    assert_eq!(m["remembered_denials"], 1, "{m}");
    assert_eq!(m["rubber_stamps"], 1, "{m}");

    let text = svc.prometheus().await;
    assert!(
        text.contains("assent_profile_prompts_total{profile=\"maven-test\"} 1"),
        "Prometheus carries the per-profile counts: {text}"
    );
    assert!(
        text.contains("assent_remembered_denials_total 1"),
        "and the remembered denials: {text}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn suggestions_come_from_what_people_decided() {
    let svc = Service::start().await;
    let (status, none) = svc.get("/v1/suggestions", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "{none}");
    assert_eq!(
        none["suggestions"],
        json!([]),
        "nothing decided, nothing suggested"
    );
    for run in ["r-1", "r-2", "r-3"] {
        let id = prompt_id(&svc, &maven(run)).await;
        svc.approve_for_run(&id).await;
    }
    let (_, got) = svc.get("/v1/suggestions?since_days=7", &svc.approver).await;
    assert_eq!(
        got["suggestions"][0]["change"],
        json!({"change": "trust_repo", "repo": "/home/dev/shop"}),
        "maven-test approved 3 of 3 times in one repo: trust the repo ({got})"
    );
    let (status, _) = svc.get("/v1/suggestions", &svc.requester).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "agents do not tune the policy"
    );
    let (status, _) = svc.get("/v1/suggestions?since_days=0", &svc.approver).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a window of no days is refused"
    );
    svc.stop().await;
}
