//! A grant covers what the person approved and no more, through the real service: agents
//! `bot` and `bot2` ask with their own tokens and `alice` (task_author only) decides. A path
//! grant never reaches an action needing another role, rule or review, nor a path its
//! patterns did not cover when approved; outside a repository its patterns stay relative to
//! where it was approved; and a grant covers only the agent that asked, whatever run id
//! another agent names — nor can that agent end it by ending "its" run of the same id.

use crate::common;
use crate::common::Service;
use assent_core::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

const SHOP: &str = "/home/dev/shop";

/// Tokens: `alice` (a person, task_author only), agents `bot` and `bot2`.
struct Team {
    alice: String,
    bot: String,
    bot2: String,
}

async fn team(svc: &Service) -> Team {
    let dir = common::backend::directory(&svc.data_dir()).await;
    let alice = dir.add_person("alice", &[Role::TaskAuthor]).await.unwrap();
    let bot = dir.add_agent("bot").await.unwrap();
    let bot2 = dir.add_agent("bot2").await.unwrap();
    dir.close().await;
    Team { alice, bot, bot2 }
}

/// Approves `answer`'s prompt as `token` with `decision`'s scope (and patterns), for an hour.
async fn approve(
    svc: &Service,
    token: &str,
    answer: &Value,
    decision: Value,
) -> (StatusCode, Value) {
    let id = answer["approval_id"]
        .as_str()
        .unwrap_or_else(|| panic!("the request opened a prompt: {answer}"));
    let mut body = json!({"decision": "approve", "expires_in_seconds": 3600});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), decision.as_object()) {
        body.extend(extra.clone());
    }
    svc.post(&format!("/v1/approvals/{id}/decision"), token, &body)
        .await
}

/// A `file_delete` of `path` from `cwd`, in repository `repo` when there is one.
fn delete(run: &str, cwd: &str, repo: Option<&str>, path: &str) -> Value {
    let mut body = json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "file_delete", "cwd": cwd, "paths": [path]},
        "context": {},
        "reason": "tidy up"
    });
    if let Some(repo) = repo {
        body["context"]["repo"] = json!(repo);
    }
    body
}

fn in_shop(run: &str, path: &str) -> Value {
    delete(run, SHOP, Some(SHOP), path)
}

#[tokio::test]
async fn a_path_grant_covers_no_action_needing_more_than_the_approved_delete() {
    let svc = Service::start().await;
    let t = team(&svc).await;
    let notes = svc.submit_as(&t.bot, &in_shop("r-1", "notes/n.md")).await;
    assert_eq!(notes["status"], "pending", "a delete is asked: {notes}");
    assert!(
        notes["required_role"].is_null(),
        "a plain delete needs no role, so a task author may decide it: {notes}"
    );
    let ci = json!({"scope": "path_pattern", "path_patterns": [".github/workflows/*"]});
    let (status, body) = approve(&svc, &t.alice, &notes, ci).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "approving notes/n.md must not hand out .github/workflows/*: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("must cover the paths of the action being approved")),
        "the refusal says why: {body}"
    );

    let docs = svc.submit_as(&t.bot, &in_shop("r-1", "docs/a.md")).await;
    let (status, body) = approve(
        &svc,
        &t.alice,
        &docs,
        json!({"scope": "path_pattern", "path_patterns": ["docs/**"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "docs/** covers docs/a.md: {body}");
    let plain = svc.submit_as(&t.bot, &in_shop("r-2", "docs/b.md")).await;
    assert_eq!(
        plain["status"], "allowed",
        "another plain delete under docs/ is what alice approved: {plain}"
    );
    for path in ["docs/Makefile", "docs/Cargo.lock", "docs/package.json"] {
        let asked = svc.submit_as(&t.bot, &in_shop("r-2", path)).await;
        assert_eq!(
            asked["status"], "pending",
            "{path} needs a maintainer's diff review alice never gave, so her docs/** grant \
             must not answer it: {asked}"
        );
        assert_eq!(
            asked["required_role"], "repo_maintainer",
            "{path} is a maintainer's to decide: {asked}"
        );
    }
    let ci = svc
        .submit_as(&t.bot2, &in_shop("r-3", ".github/workflows/release.yml"))
        .await;
    assert_eq!(
        ci["status"], "pending",
        "a CI workflow delete is a maintainer's high-risk review: {ci}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn outside_a_repository_a_path_grant_stays_where_it_was_approved() {
    let svc = Service::start().await;
    let t = team(&svc).await;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_str().unwrap();
    let (a, b) = (format!("{root}/scratchA"), format!("{root}/scratchB"));
    let first = svc
        .submit_as(&t.bot, &delete("r-1", &a, None, "src/a.txt"))
        .await;
    assert_eq!(first["status"], "pending", "a delete is asked: {first}");
    let (status, body) = approve(
        &svc,
        &t.alice,
        &first,
        json!({"scope": "path_pattern", "path_patterns": ["src/**"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "src/** covers src/a.txt: {body}");
    assert_eq!(
        body["grant"]["constraints"]["root"],
        json!(a),
        "the grant records the directory its patterns are relative to: {body}"
    );
    let elsewhere = [
        (
            "src/ of another directory",
            delete("r-2", &b, None, "src/b.txt"),
        ),
        (
            "src/ of the home directory",
            delete("r-2", "/home/dev", None, "/home/dev/src/x.py"),
        ),
    ];
    for (scenario, body) in elsewhere {
        let asked = svc.submit_as(&t.bot, &body).await;
        assert_eq!(
            asked["status"], "pending",
            "{scenario}: alice approved {a}/src/**, not src/ of wherever the next request \
             runs: {asked}"
        );
    }
    let again = svc
        .submit_as(&t.bot, &delete("r-2", &a, None, "src/c.txt"))
        .await;
    assert_eq!(
        again["status"], "allowed",
        "src/ of the approved directory is covered: {again}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_grant_covers_only_the_agent_that_asked() {
    let svc = Service::start().await;
    let t = team(&svc).await;
    let shell = |command: &str| common::shell("sess-A", command, "unknown", None);
    let asked = svc.submit_as(&t.bot, &shell("cargo test")).await;
    assert_eq!(asked["status"], "pending", "cargo test is asked: {asked}");
    let (status, body) = approve(&svc, &t.alice, &asked, json!({"scope": "run"})).await;
    assert_eq!(status, StatusCode::OK, "approved for the run: {body}");
    let other = svc.submit_as(&t.bot2, &shell("cargo test --release")).await;
    assert_eq!(
        other["status"], "pending",
        "bot2 naming bot's run id is not bot: the run grant must not answer it: {other}"
    );
    let own = svc.submit_as(&t.bot, &shell("cargo test --release")).await;
    assert_eq!(
        own["status"], "allowed",
        "bot's own later test run is covered by the run grant: {own}"
    );

    let install = svc.submit_as(&t.bot, &shell("npm install")).await;
    let (status, body) = approve(&svc, &t.alice, &install, json!({"scope": "once"})).await;
    assert_eq!(status, StatusCode::OK, "approved once: {body}");
    let other = svc.submit_as(&t.bot2, &shell("npm install")).await;
    assert_eq!(
        other["status"], "pending",
        "bot2 repeating the exact action in bot's run must not spend bot's once grant: {other}"
    );
    let own = svc.submit_as(&t.bot, &shell("npm install")).await;
    assert_eq!(
        own["status"], "allowed",
        "bot's retry uses its once grant (no gate was waiting when it was approved): {own}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn an_agent_ends_only_its_own_part_of_a_run_a_person_ends_it_all() {
    let svc = Service::start().await;
    let t = team(&svc).await;
    let shell = |command: &str| common::shell("sess-A", command, "unknown", None);
    // bot holds a run grant and a waiting prompt in sess-A; bot2 names the same run.
    let tests = svc.submit_as(&t.bot, &shell("cargo test")).await;
    let (status, body) = approve(&svc, &t.alice, &tests, json!({"scope": "run"})).await;
    assert_eq!(status, StatusCode::OK, "approved for the run: {body}");
    let bots = svc.submit_as(&t.bot, &shell("npm install")).await;
    let bot2s = svc.submit_as(&t.bot2, &shell("pip install requests")).await;
    assert_eq!(
        (bots["status"].as_str(), bot2s["status"].as_str()),
        (Some("pending"), Some("pending")),
        "precondition: a prompt of each agent waits in sess-A"
    );

    let (status, ended) = svc.post("/v1/runs/sess-A/end", &t.bot2, &json!({})).await;
    assert_eq!(status, StatusCode::OK, "an agent may end its run: {ended}");
    assert_eq!(
        (
            ended["approvals_cancelled"].as_u64(),
            ended["grants_expired"].as_u64()
        ),
        (Some(1), Some(0)),
        "bot2 ending sess-A closes its own prompt and touches none of bot's: {ended}"
    );
    let state = |answer: &Value| {
        let id = answer["approval_id"].as_str().unwrap().to_owned();
        let svc = &svc;
        let token = t.alice.clone();
        async move {
            let (_, approval) = svc.get(&format!("/v1/approvals/{id}"), &token).await;
            approval["status"].as_str().unwrap_or_default().to_owned()
        }
    };
    assert_eq!(
        state(&bots).await,
        "requested",
        "bot's prompt still waits for a person"
    );
    assert_eq!(
        state(&bot2s).await,
        "expired",
        "bot2's own prompt closed (expired) with its run"
    );
    let again = svc.submit_as(&t.bot, &shell("cargo test --release")).await;
    assert_eq!(
        again["status"], "allowed",
        "bot's run grant outlives bot2 ending a run of the same id: {again}"
    );

    let (status, ended) = svc.post("/v1/runs/sess-A/end", &t.bot, &json!({})).await;
    assert_eq!(status, StatusCode::OK, "bot ends its run: {ended}");
    assert_eq!(
        (
            ended["approvals_cancelled"].as_u64(),
            ended["grants_expired"].as_u64()
        ),
        (Some(1), Some(1)),
        "bot's own prompt and run grant end with its run: {ended}"
    );

    let late = svc.submit_as(&t.bot2, &shell("pip install flask")).await;
    let (status, ended) = svc.post("/v1/runs/sess-A/end", &t.alice, &json!({})).await;
    assert_eq!(status, StatusCode::OK, "a person may end any run: {ended}");
    assert_eq!(
        ended["approvals_cancelled"].as_u64(),
        Some(1),
        "a person ends the whole run, whoever asked in it: {ended}"
    );
    assert_eq!(
        state(&late).await,
        "expired",
        "bot2's later prompt closed too"
    );
    svc.stop().await;
}
