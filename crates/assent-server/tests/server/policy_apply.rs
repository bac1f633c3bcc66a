//! Suggestions applied through the service, and the policy file reloaded while it runs —
//! through the real service: the policy in force changes without a restart.

use crate::common;
use std::time::Duration;

use crate::common::{maven, Service};
use assent_core::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

const SHOP: &str = "/home/dev/shop";

fn trust_shop() -> Value {
    json!({"change": {"change": "trust_repo", "repo": SHOP}})
}

/// Three runs approve `mvn -B test` in the shop: the service suggests trusting the repo.
async fn approve_maven_three_times(svc: &Service) {
    for run in ["r-1", "r-2", "r-3"] {
        let answer = svc.submit(&maven(run)).await;
        assert_eq!(answer["status"], "pending", "a person decides: {answer}");
        svc.approve_for_run(answer["approval_id"].as_str().unwrap())
            .await;
    }
}

async fn policy(svc: &Service) -> Value {
    let (status, body) = svc.get("/v1/policy", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "a person reads the policy status");
    body
}

/// Waits for the stream's next `policy.changed` (the service's own signal that it reloaded).
async fn next_policy_change(events: &mut common::SseReader) -> Value {
    loop {
        let sse = events.next_event().await;
        if sse.event.as_deref() == Some("policy.changed") {
            return sse.json();
        }
    }
}

#[tokio::test]
async fn an_applied_suggestion_is_in_force_at_once_and_audited() {
    let svc = Service::start().await;
    let before = policy(&svc).await;
    assert_eq!(
        before["exists"], false,
        "no policy file yet: the built-in defaults ({before})"
    );
    approve_maven_three_times(&svc).await;
    let asked = svc.submit(&maven("r-4")).await;
    assert_eq!(
        asked["status"], "pending",
        "before the apply, a new run is asked: {asked}"
    );
    let (_, listed) = svc.get("/v1/suggestions", &svc.approver).await;
    let suggestion = &listed["suggestions"][0];
    assert_eq!(
        suggestion["change"],
        trust_shop()["change"],
        "the service suggests trusting the shop: {listed}"
    );
    assert_eq!(
        suggestion["id"].as_str().map(str::len),
        Some(16),
        "each suggestion has a stable id: {suggestion}"
    );

    let (status, _) = svc
        .post("/v1/suggestions/apply", &svc.requester, &trust_shop())
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent never changes its own policy"
    );
    let directory = common::backend::directory(&svc.data_dir()).await;
    let maintainer = directory
        .add_person("erin", &[Role::RepoMaintainer])
        .await
        .unwrap();
    directory.close().await;
    let (status, body) = svc
        .post("/v1/suggestions/apply", &maintainer, &trust_shop())
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "changing the policy takes platform_admin: {body}"
    );
    let (status, body) = svc
        .post(
            "/v1/suggestions/apply",
            &svc.approver,
            &json!({"change": {"change": "trust_everything"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not a change: {body}");
    let (status, body) = svc
        .post(
            "/v1/suggestions/apply",
            &svc.approver,
            &json!({"change": {"change": "trust_repo", "repo": "/"}}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "only what is suggested may be applied: {body}"
    );

    let mut events = svc.events(None).await;
    let (status, applied) = svc
        .post("/v1/suggestions/apply", &svc.approver, &trust_shop())
        .await;
    assert_eq!(status, StatusCode::OK, "the owner applies it: {applied}");
    let version = applied["policy_version"].as_str().unwrap().to_owned();
    assert_ne!(
        version,
        before["version"].as_str().unwrap(),
        "the answer names the new policy's version"
    );
    assert_eq!(applied["applied"], format!("trusted_repos += {SHOP}"));
    let written = std::fs::read_to_string(svc.data_dir().join("policy.toml")).unwrap();
    assert_eq!(
        written,
        format!("trusted_repos = [\"{SHOP}\"]\n"),
        "without a policy file, the apply creates one in the data dir"
    );
    assert_eq!(
        policy(&svc).await["version"],
        version.as_str(),
        "the new policy is the one in force"
    );
    let now_auto = svc.submit(&maven("r-5")).await;
    assert_eq!(
        now_auto["status"], "allowed",
        "the same request in a new run runs without asking, no restart: {now_auto}"
    );
    let announced = next_policy_change(&mut events).await;
    assert_eq!(
        (announced["version"].as_str(), announced["by"].as_str()),
        (Some(version.as_str()), Some("owner")),
        "the event stream announces the change and who made it"
    );

    let (_, audit) = svc.get("/v1/audit", &svc.approver).await;
    let record = audit["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["decision"] == "policy_changed")
        .cloned()
        .expect("the apply is audited");
    assert_eq!(
        (
            record["approver"].as_str(),
            record["approver_role"].as_str(),
            record["subject"].as_str(),
            record["policy_version"].as_str()
        ),
        (
            Some("owner"),
            Some("platform_admin"),
            Some(format!("trusted_repos += {SHOP}").as_str()),
            Some(version.as_str())
        ),
        "who changed what, in which role, into which version: {record}"
    );
    assert!(
        record["reason"]
            .as_str()
            .unwrap()
            .contains("approved 3 of 3 times"),
        "with the evidence it rested on: {record}"
    );

    let (status, body) = svc
        .post("/v1/suggestions/apply", &svc.approver, &trust_shop())
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "applied once, it is no longer suggested: {body}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn an_apply_keeps_the_files_comments_and_the_next_start_uses_it() {
    let svc = Service::start().await;
    let path = svc.data_dir().join("policy.toml");
    std::fs::write(
        &path,
        "# ours\napproval_timeout_seconds = 600 # ten minutes\n",
    )
    .unwrap();
    // Written while the service runs: the apply edits what is on disk now.
    approve_maven_three_times(&svc).await;
    let (status, applied) = svc
        .post("/v1/suggestions/apply", &svc.approver, &trust_shop())
        .await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.starts_with("# ours\napproval_timeout_seconds = 600 # ten minutes\n")
            && written.contains(SHOP),
        "the change is added, the person's comments stay: {written}"
    );
    let version = applied["policy_version"].as_str().unwrap().to_owned();
    let (dir, clock) = svc.stop().await;
    let again = Service::start_in(dir, clock, |_| {}).await;
    assert_eq!(
        policy(&again).await["version"],
        version.as_str(),
        "after a restart the service runs with the policy it wrote"
    );
    again.stop().await;
}

#[tokio::test]
async fn an_edit_by_someone_else_is_reloaded_and_a_broken_one_keeps_the_old_policy() {
    let dir = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let path = dir.path().join("edited.toml");
    std::fs::write(&path, "# my policy\n").unwrap();
    let clock = std::sync::Arc::new(assent_server::FakeClock::new(common::start_time()));
    let file = path.clone();
    let svc = Service::start_in(dir, clock, move |config| {
        config.policy_path = Some(file);
        config.policy_recheck = Duration::from_millis(10);
    })
    .await;
    let first = policy(&svc).await;
    assert_eq!(
        first["path"],
        path.display().to_string(),
        "the status names the file the service follows"
    );
    let asked = svc.submit(&maven("r-1")).await;
    assert_eq!(asked["status"], "pending", "{asked}");

    let mut events = svc.events(None).await;
    std::fs::write(
        &path,
        format!("# my policy\ntrusted_repos = [\"{SHOP}\"]\n"),
    )
    .unwrap();
    let reloaded = next_policy_change(&mut events).await;
    assert_ne!(
        reloaded["version"], first["version"],
        "the edit is announced as a new version: {reloaded}"
    );
    assert_eq!(reloaded.get("by"), None, "nobody known made a file edit");
    let trusted_version = reloaded["version"].clone();
    let allowed = svc.submit(&maven("r-2")).await;
    assert_eq!(
        allowed["status"], "allowed",
        "the edited policy is in force without a restart: {allowed}"
    );

    std::fs::write(&path, "trusted_repos = [\n").unwrap();
    let broken = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let status = policy(&svc).await;
            if status.get("error").is_some() {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the broken edit is noticed within 10 s");
    assert_eq!(
        broken["version"], trusted_version,
        "a broken edit keeps the policy in force: {broken}"
    );
    let prometheus = svc.prometheus().await;
    assert!(
        prometheus.contains("assent_policy_file_error 1"),
        "monitoring sees the broken file too: {prometheus}"
    );
    let still = svc.submit(&maven("r-3")).await;
    assert_eq!(
        still["status"], "allowed",
        "requests are still answered by the last good policy: {still}"
    );
    svc.stop().await;
}
