//! What the invalidation tests share: requests with a base commit or diff, and the steps
//! "asked", "granted", "covered", "listed".

use serde_json::{json, Value};

use super::common::Service;

pub const SHOP: &str = "/home/dev/shop";

/// `body` with the repository at base commit `base`.
pub fn at_base(mut body: Value, base: &str) -> Value {
    body["context"]["base_sha"] = json!(base);
    body
}

/// An edit of `path` in the shop (a manifest, so it is asked) whose content is `diff`.
pub fn edit(run: &str, path: &str, base: &str, diff: &str) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "file_write", "paths": [path], "cwd": SHOP},
        "context": {"repo": SHOP, "base_sha": base, "diff_fingerprint": diff},
        "reason": "bump a dependency"
    })
}

/// Submits `body` and checks that a person is asked; the answer.
pub async fn asked(svc: &Service, body: &Value, why: &str) -> Value {
    let answer = svc.submit(body).await;
    assert_eq!(answer["status"], "pending", "{why}: {answer}");
    answer
}

/// Submits `body` and checks that grant `grant_id` answered it at once.
pub async fn covered(svc: &Service, body: &Value, grant_id: &str, why: &str) {
    let answer = svc.submit(body).await;
    assert_eq!(answer["status"], "allowed", "{why}: {answer}");
    assert_eq!(
        answer["grant_id"], grant_id,
        "{why}: the grant is what allowed it"
    );
}

/// `body` is asked, a person approves it with `choice`, and the grant then covers `body`
/// again without a prompt; the grant's id.
pub async fn granted(svc: &Service, body: &Value, choice: Value) -> String {
    let first = asked(svc, body, "before any grant a person is asked").await;
    let (status, decided) = svc
        .decide(first["approval_id"].as_str().unwrap(), &choice)
        .await;
    assert_eq!(status, 200, "the person's approval is accepted: {decided}");
    let grant_id = decided["grant"]["grant_id"].as_str().unwrap().to_owned();
    covered(
        svc,
        body,
        &grant_id,
        "the grant covers the action it was made for",
    )
    .await;
    grant_id
}

pub fn for_run() -> Value {
    json!({"decision": "approve", "scope": "run", "expires_in_seconds": 3600})
}

pub fn once(uses: u32) -> Value {
    json!({"decision": "approve", "scope": "once", "expires_in_seconds": 600, "max_uses": uses})
}

/// The grant `grant_id` as `GET /v1/grants` lists it.
pub async fn listed(svc: &Service, grant_id: &str) -> Value {
    let (status, body) = svc.get("/v1/grants", &svc.approver).await;
    assert_eq!(status, 200, "the approver lists grants: {body}");
    body["grants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["grant_id"] == grant_id)
        .cloned()
        .unwrap_or_else(|| panic!("grant {grant_id} is listed: {body}"))
}
