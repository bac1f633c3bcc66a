use crate::common::{maven, Service};
use reqwest::StatusCode;

#[tokio::test]
async fn a_restart_between_submit_and_decision_loses_nothing() {
    let svc = Service::start().await;
    let tokens = (svc.requester.clone(), svc.approver.clone());
    let first = svc.submit(&maven("r-1")).await;
    let joined = svc.submit(&maven("r-1")).await;
    let (dir, clock) = svc.stop().await;

    let svc = Service::start_in(dir, clock, |_| {}).await;
    assert_eq!(
        (svc.requester.clone(), svc.approver.clone()),
        tokens,
        "the tokens survive a restart"
    );
    let id = first["approval_id"].as_str().unwrap();
    let approval = svc.approval(id).await;
    assert_eq!(
        approval["status"], "requested",
        "the pending prompt survived"
    );
    assert_eq!(approval["count"], 2, "with both members");
    let decided = svc.approve_for_run(id).await;
    assert_eq!(
        decided["approval"]["members"][1]["action_id"], joined["action_id"],
        "members are intact"
    );
    let (dir, clock) = svc.stop().await;

    let svc = Service::start_in(dir, clock, |_| {}).await;
    let covered = svc.submit(&maven("r-1")).await;
    assert_eq!(
        covered["status"], "allowed",
        "the decision and its grant survived a second restart"
    );
    let (status, events) = svc.get("/v1/audit?run_id=r-1", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "the audit is readable");
    let decisions: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["decision"].as_str().unwrap())
        .collect();
    assert_eq!(
        decisions,
        ["approved", "approved", "used"],
        "every decision was audited across restarts"
    );
    svc.stop().await;
}
