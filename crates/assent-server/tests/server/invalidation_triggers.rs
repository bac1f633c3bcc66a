//! The rest of seed section 15's triggers through the real service: after each, the action a
//! grant covered is asked again. Command, target path, network target and credential scope
//! are bound to the grant (another action is another question); a policy change, a revoke and
//! a run that ends take the grant away. (Base commit and diff: `invalidation.rs`.)

use crate::common;
use std::sync::Arc;
use std::time::Duration;

use crate::common::{maven, shell, Service};
use crate::grant_moves::{asked, covered, edit, for_run, granted, listed, once, SHOP};
use assent_core::Policy;
use serde_json::{json, Value};

const BASE: &str = "abc1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DIFF: &str = "a1b2c3d4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn not_shell(run: &str, action: Value) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": action,
        "context": {"repo": SHOP},
        "reason": "fetch the release notes"
    })
}

fn fetch(url: &str) -> Value {
    not_shell(
        "r-1",
        json!({"kind": "network", "network": [url], "cwd": SHOP}),
    )
}

fn credential(scope: &str) -> Value {
    not_shell(
        "r-1",
        json!({"kind": "credential", "credential_scope": scope, "cwd": SHOP}),
    )
}

#[tokio::test]
async fn a_changed_command_is_asked_again() {
    let svc = Service::start().await;
    let grant_id = granted(&svc, &maven("r-1"), for_run()).await;
    covered(
        &svc,
        &shell("r-1", "mvn test -B", "unknown", None),
        &grant_id,
        "the same command spelled differently is the same command",
    )
    .await;
    asked(
        &svc,
        &shell("r-1", "mvn -B deploy", "unknown", None),
        "a command outside the approved profile is asked",
    )
    .await;
    asked(
        &svc,
        &shell(
            "r-1",
            "mvn -B test && curl -s https://x.example",
            "unknown",
            None,
        ),
        "the approved command with another one chained is asked",
    )
    .await;
    svc.stop().await;
}

#[tokio::test]
async fn a_changed_target_path_is_asked_again() {
    let svc = Service::start().await;
    let grant_id = granted(&svc, &edit("r-1", "Cargo.toml", BASE, DIFF), once(5)).await;
    asked(
        &svc,
        &edit("r-1", "web/package.json", BASE, DIFF),
        "the same change to another file is asked",
    )
    .await;
    assert_eq!(
        listed(&svc, &grant_id).await["status"],
        "active",
        "another file is another action: the grant for the first stays as it was"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_changed_network_target_is_asked_again() {
    let svc = Service::start().await;
    granted(&svc, &fetch("https://example.org/notes"), once(5)).await;
    asked(
        &svc,
        &fetch("https://uploads.example.net/notes"),
        "the same fetch from another host is asked",
    )
    .await;
    svc.stop().await;
}

#[tokio::test]
async fn a_changed_credential_scope_is_asked_again() {
    let svc = Service::start().await;
    granted(&svc, &credential("registry.maven.readonly"), once(5)).await;
    asked(
        &svc,
        &credential("registry.maven.deploy"),
        "another capability of the credential is asked",
    )
    .await;
    svc.stop().await;
}

#[tokio::test]
async fn a_new_policy_version_asks_again() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let path = dir.path().join("policy.toml");
    std::fs::write(&path, "# the team's policy\n").unwrap();
    let clock = Arc::new(assent_server::FakeClock::new(common::start_time()));
    let file = path.clone();
    let svc = Service::start_in(dir, clock, move |config| {
        config.policy_path = Some(file);
        config.policy_recheck = Duration::from_millis(10);
    })
    .await;
    granted(&svc, &maven("r-1"), for_run()).await;
    let mut events = svc.events(None).await;
    std::fs::write(
        &path,
        "# the team's policy\nblock_patterns = [\"shutdown *\"]\n",
    )
    .unwrap();
    loop {
        let sse = events.next_event().await;
        if sse.event.as_deref() == Some("policy.changed") {
            break;
        }
    }
    asked(
        &svc,
        &maven("r-1"),
        "a grant made under another policy version no longer counts",
    )
    .await;
    svc.stop().await;
}

/// A service following the policy file `path`, loaded at start as `assent serve --policy`
/// does.
async fn serving(
    dir: Arc<tempfile::TempDir>,
    clock: Arc<assent_server::FakeClock>,
    path: &std::path::Path,
) -> Service {
    let policy = Policy::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    let file = path.to_path_buf();
    Service::start_in(dir, clock, move |config| {
        config.policy = policy;
        config.policy_path = Some(file);
    })
    .await
}

#[tokio::test]
async fn a_restart_with_another_policy_asks_again() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let path = dir.path().join("policy.toml");
    std::fs::write(&path, "# the team's policy\n").unwrap();
    let clock = Arc::new(assent_server::FakeClock::new(common::start_time()));
    let svc = serving(dir, clock, &path).await;
    let grant_id = granted(&svc, &maven("r-1"), for_run()).await;
    let (dir, clock) = svc.stop().await;
    std::fs::write(
        &path,
        "# the team's policy\nblock_patterns = [\"shutdown *\"]\n",
    )
    .unwrap();
    let again = serving(dir, clock, &path).await;
    assert_eq!(
        listed(&again, &grant_id).await["grant_id"],
        grant_id.as_str(),
        "the grant survived the restart"
    );
    asked(
        &again,
        &maven("r-1"),
        "but it was made under the policy before the restart",
    )
    .await;
    again.stop().await;
}

#[tokio::test]
async fn a_revoked_grant_asks_again() {
    let svc = Service::start().await;
    let grant_id = granted(&svc, &maven("r-1"), for_run()).await;
    let (status, body) = svc
        .post(
            &format!("/v1/grants/{grant_id}/revoke"),
            &svc.approver,
            &json!({"reason": "not today"}),
        )
        .await;
    assert_eq!(status, 200, "the approver revokes the grant: {body}");
    asked(&svc, &maven("r-1"), "a revoked grant no longer counts").await;
    assert_eq!(
        listed(&svc, &grant_id).await["status"],
        "revoked",
        "the Grants view shows it revoked"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_restarted_run_is_asked_again() {
    let svc = Service::start().await;
    granted(&svc, &maven("r-1"), for_run()).await;
    let (status, ended) = svc
        .post("/v1/runs/r-1/end", &svc.requester, &json!({}))
        .await;
    assert_eq!(status, 200, "the agent ends its run: {ended}");
    assert_eq!(
        ended["grants_expired"], 1,
        "the run's grant ends with it: {ended}"
    );
    asked(
        &svc,
        &maven("r-2"),
        "a new run starts from scratch: the old run's grants do not carry over",
    )
    .await;
    asked(
        &svc,
        &maven("r-1"),
        "nor do they when the run restarts under the same id",
    )
    .await;
    svc.stop().await;
}
