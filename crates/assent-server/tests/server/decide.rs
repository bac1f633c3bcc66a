use crate::common::{maven, shell, Service};
use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn deny_settles_the_prompt_without_a_grant() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap();
    let (status, denied) = svc
        .decide(id, &json!({"decision":"deny","reason":"not now"}))
        .await;
    assert_eq!(status, StatusCode::OK, "the approver may deny: {denied}");
    assert_eq!(
        denied["approval"]["status"], "denied",
        "the prompt is denied"
    );
    assert_eq!(
        denied["approval"]["resolution"], "denied",
        "resolution says how it ended"
    );
    assert_eq!(
        denied["approval"]["decision_reason"], "not now",
        "the reason is kept"
    );
    assert!(denied["grant"].is_null(), "a denial creates no grant");
    let (status, again) = svc
        .decide(id, &json!({"decision":"deny","reason":"twice"}))
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a settled prompt cannot be decided again: {again}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn decisions_are_checked_against_role_offer_and_policy() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let path = format!(
        "/v1/approvals/{}/decision",
        ask["approval_id"].as_str().unwrap()
    );
    let approve = json!({"decision":"approve","scope":"run","expires_in_seconds":60});

    let (status, _) = svc.post(&path, &svc.requester, &approve).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a requester never decides its own request"
    );

    let org = json!({"decision":"approve","scope":"org","expires_in_seconds":60});
    let (status, err) = svc.post(&path, &svc.approver, &org).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a scope not offered is refused: {err}"
    );

    let too_long = json!({"decision":"approve","scope":"run","expires_in_seconds":10_000_000});
    let (status, err) = svc.post(&path, &svc.approver, &too_long).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a lifetime past the policy maximum is refused: {err}"
    );

    let zero = json!({"decision":"approve","scope":"run","expires_in_seconds":0});
    let (status, _) = svc.post(&path, &svc.approver, &zero).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a grant must live at least a second"
    );

    let (status, missing) = svc.decide("no-such-approval", &approve).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "an unknown approval is 404: {missing}"
    );

    let blocked = svc
        .submit(&shell("r-1", "cat ~/.ssh/id_rsa", "trusted", None))
        .await;
    let (status, err) = svc
        .decide(blocked["action_id"].as_str().unwrap(), &approve)
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a blocked action can never be approved: {err}"
    );

    let (status, ok) = svc.post(&path, &svc.approver, &approve).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the refusals left the prompt decidable: {ok}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn of_two_concurrent_decisions_exactly_one_wins() {
    let svc = Service::start().await;
    for round in 0..5 {
        let ask = svc.submit(&maven(&format!("r-{round}"))).await;
        let id = ask["approval_id"].as_str().unwrap();
        let approve = json!({"decision":"approve","scope":"run","expires_in_seconds":60});
        let deny = json!({"decision":"deny","reason":"no"});
        let (a, b) = tokio::join!(svc.decide(id, &approve), svc.decide(id, &deny));
        let mut codes = [a.0, b.0];
        codes.sort();
        assert_eq!(
            codes,
            [StatusCode::OK, StatusCode::CONFLICT],
            "one decision wins, the other is 409"
        );
        let winner = if a.0 == StatusCode::OK { &a.1 } else { &b.1 };
        let approval = svc.approval(id).await;
        assert_eq!(
            approval["status"], winner["approval"]["status"],
            "the stored status is the winner's"
        );
    }
    svc.stop().await;
}

#[tokio::test]
async fn revoke_stops_all_later_use() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let decided = svc
        .approve_for_run(ask["approval_id"].as_str().unwrap())
        .await;
    let grant_id = decided["grant"]["grant_id"].as_str().unwrap();
    assert_eq!(
        svc.submit(&maven("r-1")).await["status"],
        "allowed",
        "the grant covers before revoke"
    );

    let path = format!("/v1/grants/{grant_id}/revoke");
    let (status, _) = svc
        .post(&path, &svc.requester, &json!({"reason":"x"}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only the approver revokes");
    let (status, revoked) = svc
        .post(&path, &svc.approver, &json!({"reason":"changed my mind"}))
        .await;
    assert_eq!(status, StatusCode::OK, "the approver revokes: {revoked}");
    assert_eq!(revoked["status"], "revoked", "the grant shows revoked");
    assert_eq!(
        revoked["revoke_reason"], "changed my mind",
        "the reason is kept"
    );
    assert_eq!(revoked["used_count"], 1, "its one use is counted");

    assert_eq!(
        svc.submit(&maven("r-1")).await["status"],
        "pending",
        "a revoked grant covers nothing"
    );
    let (status, _) = svc
        .post(&path, &svc.approver, &json!({"reason":"again"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "revoking twice is a conflict");
    let (status, _) = svc
        .post(
            "/v1/grants/nope/revoke",
            &svc.approver,
            &json!({"reason":"x"}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "an unknown grant is 404");
    let (_, active) = svc.get("/v1/grants?status=active", &svc.approver).await;
    assert!(
        active["grants"].as_array().unwrap().is_empty(),
        "no grant is active any more"
    );
    let (_, revoked_list) = svc.get("/v1/grants?status=revoked", &svc.approver).await;
    assert_eq!(
        revoked_list["grants"].as_array().unwrap().len(),
        1,
        "the revoked grant is listed"
    );
    svc.stop().await;
}

fn at(value: &serde_json::Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn approvals_expire_exactly_at_expires_at_and_deny() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap();
    let expires_at = at(&svc.approval(id).await["expires_at"]);

    svc.clock.set(expires_at - Duration::microseconds(1));
    assert_eq!(
        svc.approval(id).await["status"],
        "requested",
        "one microsecond before, still pending"
    );
    svc.clock.set(expires_at);
    let expired = svc.approval(id).await;
    assert_eq!(
        expired["status"], "expired",
        "at expires_at the prompt expires"
    );
    assert_eq!(expired["resolution"], "timed_out", "it timed out");
    assert_eq!(
        expired["fallback_on_timeout"], "deny",
        "the default fallback is deny"
    );
    let (status, _) = svc
        .decide(
            id,
            &json!({"decision":"approve","scope":"run","expires_in_seconds":60}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "an expired prompt cannot be approved"
    );
    let next = svc.submit(&maven("r-1")).await;
    assert_ne!(
        next["approval_id"], ask["approval_id"],
        "a new request never joins an expired prompt"
    );
    svc.stop().await;
}

#[tokio::test]
async fn grants_expire_exactly_at_expires_at() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let decided = svc
        .decide(
            ask["approval_id"].as_str().unwrap(),
            &json!({"decision":"approve","scope":"run","expires_in_seconds":600}),
        )
        .await
        .1;
    let expires_at = at(&decided["grant"]["expires_at"]);
    svc.clock.set(expires_at - Duration::microseconds(1));
    assert_eq!(
        svc.submit(&maven("r-1")).await["status"],
        "allowed",
        "just before, the grant covers"
    );
    svc.clock.set(expires_at);
    assert_eq!(
        svc.submit(&maven("r-1")).await["status"],
        "pending",
        "at expires_at it no longer covers"
    );
    let (_, grants) = svc.get("/v1/grants?status=expired", &svc.approver).await;
    assert_eq!(
        grants["grants"].as_array().unwrap().len(),
        1,
        "the grant is listed as expired"
    );
    svc.stop().await;
}

/// A waiting agent is woken by events about its own approval (not by every commit): another
/// prompt settling first must neither answer it nor make it miss its own settlement after.
#[tokio::test]
async fn long_poll_answers_its_own_approval_when_another_settles_first() {
    let svc = Service::start().await;
    let mine = svc.submit(&maven("r-mine")).await;
    let other = svc.submit(&maven("r-other")).await;
    let (mine, other) = (
        mine["approval_id"].as_str().unwrap().to_owned(),
        other["approval_id"].as_str().unwrap().to_owned(),
    );
    assert_ne!(mine, other, "two runs, two prompts");
    let path = format!("/v1/approvals/{mine}?wait=30");
    let waiter = svc.get(&path, &svc.requester);
    let decider = async {
        tokio::task::yield_now().await;
        let first = svc.approve_for_run(&other).await;
        let (_, still) = svc
            .get(&format!("/v1/approvals/{mine}"), &svc.approver)
            .await;
        assert_eq!(
            still["status"], "requested",
            "deciding another prompt leaves this one pending: {still}"
        );
        (first, svc.approve_for_run(&mine).await)
    };
    let ((status, waited), _) = tokio::join!(waiter, decider);
    assert_eq!(status, StatusCode::OK, "{waited}");
    assert_eq!(
        (waited["approval_id"].as_str(), waited["status"].as_str()),
        (Some(mine.as_str()), Some("approved_for_run")),
        "the long poll answers with its own approval once that one settles"
    );
    svc.stop().await;
}

#[tokio::test]
async fn long_poll_returns_when_the_approval_settles() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/approvals/{id}?wait=30");
    let waiter = svc.get(&path, &svc.requester);
    let decider = async {
        tokio::task::yield_now().await;
        svc.approve_for_run(&id).await
    };
    let ((status, waited), _) = tokio::join!(waiter, decider);
    assert_eq!(
        status,
        StatusCode::OK,
        "the requester may wait on its own approval"
    );
    assert_eq!(
        waited["status"], "approved_for_run",
        "the long poll answers with the settled state"
    );

    let (status, now) = svc
        .get(&format!("/v1/approvals/{id}?wait=0"), &svc.requester)
        .await;
    assert_eq!(status, StatusCode::OK, "wait=0 answers at once");
    assert_eq!(
        now["status"], "approved_for_run",
        "and shows the current state"
    );
    let (status, _) = svc
        .get(&format!("/v1/approvals/{id}?wait=soon"), &svc.requester)
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a malformed wait is refused"
    );
    svc.stop().await;
}

#[tokio::test]
async fn long_poll_sees_the_timeout_fallback() {
    let svc = Service::start().await;
    let ask = svc.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap().to_owned();
    let expires_at = at(&svc.approval(&id).await["expires_at"]);
    let (status, waited) = svc.wait_across_expiry(&id, expires_at).await;
    assert_eq!(status, StatusCode::OK, "the wait ends");
    assert_eq!(
        waited["status"], "expired",
        "the sweeper settles it at expires_at: {waited}"
    );
    svc.stop().await;
}

/// With `[approvals] step_up`, the decision route reads the prompt once for the step-up and
/// the decision: an approval without a passkey is refused and leaves it pending, a denial
/// needs none and settles it, and an unknown prompt is still 404.
#[tokio::test]
async fn a_step_up_prompt_refuses_a_bare_approval_and_takes_a_denial() {
    let mut policy = assent_core::Policy::default();
    policy.approvals.step_up = Some(assent_core::RiskLevel::Low);
    let svc = Service::start_with(move |config| config.policy = policy).await;
    let ask = svc.submit(&maven("r-1")).await;
    let id = ask["approval_id"].as_str().unwrap();

    let approve = json!({"decision":"approve","scope":"once","expires_in_seconds":60});
    let (status, refused) = svc.decide(id, &approve).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (StatusCode::FORBIDDEN, &json!("step_up_required")),
        "approving at or above the step-up line needs a passkey made for it: {refused}"
    );
    assert_eq!(
        svc.approval(id).await["status"],
        "requested",
        "a refused approval leaves the prompt pending"
    );

    let (status, missing) = svc.decide("no-such-approval", &approve).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "an unknown prompt is not found, step-up or not: {missing}"
    );

    let (status, denied) = svc
        .decide(id, &json!({"decision":"deny","reason":"not now"}))
        .await;
    assert_eq!(
        (status, &denied["approval"]["status"]),
        (StatusCode::OK, &json!("denied")),
        "denying never needs a passkey: {denied}"
    );
    svc.stop().await;
}
