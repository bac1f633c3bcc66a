//! People, agents and roles through the real service: who may decide is the service's call,
//! never the desk's. People are added the way `assent people add` does it — through the
//! `Directory` on the same database while the service runs.

use crate::common;
use std::sync::Arc;

use crate::common::{maven, shell, start_time, Service};
use assent_core::{IdentityKind, Policy, Role};
use assent_server::{Directory, DirectoryError};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// `aws s3 rm …`: cloud mutation, an escalation that needs a platform_admin.
fn cloud(run: &str) -> Value {
    shell(run, "aws s3 rm s3://shop-assets/logo.png", "trusted", None)
}

fn approve_once() -> Value {
    json!({"decision":"approve","scope":"once","expires_in_seconds":600})
}

async fn directory(svc: &Service) -> Directory {
    common::backend::directory(&svc.data_dir()).await
}

async fn decide_as(svc: &Service, token: &str, id: &str, body: &Value) -> (StatusCode, Value) {
    svc.post(&format!("/v1/approvals/{id}/decision"), token, body)
        .await
}

async fn pending_id(svc: &Service, token: &str, body: &Value) -> String {
    let (status, answer) = svc.post("/v1/actions", token, body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the submission is answered: {answer}"
    );
    assert_eq!(answer["status"], "pending", "it needs a person: {answer}");
    answer["approval_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn me_says_who_holds_the_token() {
    let svc = Service::start().await;
    let (status, owner) = svc.get("/v1/me", &svc.approver).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the owner's token is known: {owner}"
    );
    assert_eq!(
        owner,
        json!({"name":"owner","kind":"person","roles":["task_author","repo_maintainer","security_reviewer","platform_admin"]}),
        "approver.token is the person `owner` holding every role (existing installs keep working)"
    );
    let (_, agent) = svc.get("/v1/me", &svc.requester).await;
    assert_eq!(
        agent,
        json!({"name":"default","kind":"agent","roles":[]}),
        "requester.token is the agent `default`, which holds no role"
    );
    let (status, body) = svc.get("/v1/me", "assent_p_not-a-token").await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "an unknown token is 401: {body}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_person_decides_only_within_their_roles() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let alice = dir
        .add_person("alice", &[Role::RepoMaintainer])
        .await
        .unwrap();
    let id = pending_id(&svc, &svc.requester, &cloud("r-1")).await;
    assert_eq!(
        svc.approval(&id).await["required_role"],
        "platform_admin",
        "cloud mutation escalates to a platform admin"
    );

    let (status, body) = decide_as(&svc, &alice, &id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "alice is no platform admin: {body}"
    );
    assert_eq!(
        body["error"]["code"], "forbidden",
        "the stable code: {body}"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("platform_admin") && message.contains("alice"),
        "the message names the role that is needed and who lacks it: {message}"
    );
    let (status, _) = decide_as(&svc, &alice, &id, &json!({"decision":"deny","reason":"no"})).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "without the role she cannot deny it either"
    );
    assert_eq!(
        svc.approval(&id).await["status"],
        "requested",
        "a refused decision changes nothing"
    );

    let (status, answer) = svc.decide(&id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the owner holds platform_admin: {answer}"
    );
    assert_eq!(answer["approval"]["decided_by"], "owner", "{answer}");
    assert_eq!(
        answer["approval"]["decided_role"], "platform_admin",
        "{answer}"
    );
    assert_eq!(
        answer["grant"]["created_by"], "owner",
        "the grant names its maker"
    );
    assert_eq!(
        answer["grant"]["created_by_role"], "platform_admin",
        "and the role"
    );

    let approved: Vec<Value> = svc
        .audit("r-1")
        .await
        .into_iter()
        .filter(|e| e["decision"] == "approved")
        .collect();
    assert_eq!(
        approved.len(),
        1,
        "one member, one approved record: {approved:?}"
    );
    let record = &approved[0];
    assert_eq!(
        record["approver"], "owner",
        "the audit names the person: {record}"
    );
    assert_eq!(
        record["approver_role"], "platform_admin",
        "and the role used: {record}"
    );
    assert_eq!(
        record["granted_scope"], "once",
        "and the scope granted: {record}"
    );
    let until: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(record["grant_expires_at"].clone()).unwrap();
    assert_eq!(
        until,
        start_time() + chrono::Duration::seconds(600),
        "and until when: {record}"
    );
    assert_eq!(
        record["subject"], "aws s3 rm s3://shop-assets/logo.png",
        "and what was decided: {record}"
    );
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn agents_never_decide_and_nobody_decides_their_own_request() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let bob = dir
        .add_person("bob", &[Role::TaskAuthor, Role::PlatformAdmin])
        .await
        .unwrap();
    let id = pending_id(&svc, &svc.requester, &maven("r-1")).await;
    let (status, body) = decide_as(&svc, &svc.requester, &id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent never decides: {body}"
    );

    let own = pending_id(&svc, &bob, &cloud("r-2")).await;
    let (status, body) = decide_as(&svc, &bob, &own, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "bob asked for it, so bob cannot allow it, though he holds the role: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requested"),
        "the message says why: {body}"
    );
    assert_eq!(
        svc.approval(&own).await["requester"],
        "bob",
        "the approval names who asked"
    );
    let (status, _) = svc.decide(&own, &approve_once()).await;
    assert_eq!(status, StatusCode::OK, "someone else with the role may");
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn an_agent_sees_only_its_own_requests() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let ci = dir.add_agent("ci-shop").await.unwrap();
    let theirs = pending_id(&svc, &ci, &maven("r-1")).await;
    let mine = pending_id(&svc, &svc.requester, &maven("r-1")).await;
    assert_ne!(
        theirs, mine,
        "equal requests of two agents are two prompts: each agent waits only on its own"
    );
    let (status, _) = svc
        .get(&format!("/v1/approvals/{theirs}"), &svc.requester)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the default agent cannot read ci-shop's approval"
    );
    let (status, approval) = svc.get(&format!("/v1/approvals/{theirs}"), &ci).await;
    assert_eq!(status, StatusCode::OK, "ci-shop reads its own: {approval}");
    assert_eq!(
        approval["requester"], "ci-shop",
        "the request records its agent"
    );
    let (status, _) = svc.get("/v1/approvals", &ci).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "listing every prompt is for people"
    );
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn thresholds_need_distinct_qualified_people() {
    let policy = Policy::from_toml("[approvals]\nrequired = { platform_admin = 2 }").unwrap();
    let svc = Service::start_with(|config| config.policy = policy).await;
    let dir = directory(&svc).await;
    let alice = dir
        .add_person("alice", &[Role::PlatformAdmin])
        .await
        .unwrap();
    let carol = dir
        .add_person("carol", &[Role::PlatformAdmin])
        .await
        .unwrap();
    let dave = dir.add_person("dave", &[Role::TaskAuthor]).await.unwrap();

    let id = pending_id(&svc, &svc.requester, &cloud("r-1")).await;
    assert_eq!(
        svc.approval(&id).await["required_approvals"],
        2,
        "the policy asks for two"
    );
    let (status, first) = decide_as(&svc, &alice, &id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "alice's approval is recorded: {first}"
    );
    assert_eq!(
        first["approval"]["status"], "requested",
        "one of two is not enough"
    );
    assert!(
        first["grant"].is_null(),
        "no grant before the threshold: {first}"
    );
    assert_eq!(first["approval"]["approvals"][0]["by"], "alice", "{first}");
    assert_eq!(
        first["approval"]["approvals"][0]["role"], "platform_admin",
        "{first}"
    );

    let (_, again) = decide_as(&svc, &alice, &id, &approve_once()).await;
    assert_eq!(
        again["approval"]["approvals"].as_array().unwrap().len(),
        1,
        "the same person twice counts once: {again}"
    );
    assert_eq!(again["approval"]["status"], "requested", "still one of two");
    let (status, _) = decide_as(&svc, &dave, &id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an unqualified person does not count"
    );

    let (status, done) = decide_as(&svc, &carol, &id, &approve_once()).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        done["approval"]["status"], "approved_once",
        "two people: settled"
    );
    assert!(done["grant"]["grant_id"].is_string(), "and granted: {done}");
    let voters: Vec<&str> = done["approval"]["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["by"].as_str().unwrap())
        .collect();
    assert_eq!(voters, ["alice", "carol"], "both approvals stay on record");

    let second = pending_id(&svc, &svc.requester, &cloud("r-2")).await;
    decide_as(&svc, &alice, &second, &approve_once()).await;
    let (status, denied) = decide_as(
        &svc,
        &carol,
        &second,
        &json!({"decision":"deny","reason":"not this bucket"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{denied}");
    assert_eq!(
        denied["approval"]["status"], "denied",
        "one qualified deny settles it, whatever approvals came before"
    );
    dir.close().await;
    svc.stop().await;
}

/// A vote short of the threshold is refused whenever the approval that met it would be: the
/// grant it would issue is checked first, under today's policy (the prompt's request
/// evaluated again), so a scope the prompt does not offer, a lifetime past the bound, or an
/// action today's policy blocks records no vote.
#[tokio::test]
async fn a_short_vote_is_refused_when_its_grant_could_not_be_issued() {
    let tmp = Arc::new(tempfile::tempdir().unwrap());
    let path = tmp.path().join("policy.toml");
    let two = "[approvals]\nrequired = { platform_admin = 2 }\n";
    std::fs::write(&path, two).unwrap();
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let file = path.clone();
    let svc = Service::start_in(tmp, clock, move |config| {
        config.policy = Policy::from_toml(two).unwrap();
        config.policy_path = Some(file);
        config.policy_recheck = std::time::Duration::from_millis(10);
    })
    .await;
    let dir = directory(&svc).await;
    let alice = dir
        .add_person("alice", &[Role::PlatformAdmin])
        .await
        .unwrap();
    let id = pending_id(&svc, &svc.requester, &cloud("r-1")).await;
    let prompt = svc.approval(&id).await;
    assert_eq!(prompt["required_approvals"], 2, "the policy asks for two");
    assert!(
        !prompt["offered_scopes"]
            .as_array()
            .unwrap()
            .contains(&json!("org")),
        "the test needs a scope the prompt does not offer: {prompt}"
    );

    let refused = [
        (
            json!({"decision":"approve","scope":"org","expires_in_seconds":600}),
            "not offered",
        ),
        (
            json!({"decision":"approve","scope":"once","expires_in_seconds":100_000_000}),
            "expires_in_seconds",
        ),
    ];
    for (body, words) in refused {
        let (status, answer) = decide_as(&svc, &alice, &id, &body).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "a vote for a grant that could never be issued is refused, short or not: {answer}"
        );
        assert!(
            answer.to_string().contains(words),
            "the refusal says why ({words}): {answer}"
        );
    }

    let version = svc.get("/v1/policy", &svc.approver).await.1["version"].clone();
    std::fs::write(&path, format!("block_patterns = [\"aws s3 rm *\"]\n{two}")).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while svc.get("/v1/policy", &svc.approver).await.1["version"] == version {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the edited policy is in force within 10 s");
    let (status, answer) = decide_as(&svc, &alice, &id, &approve_once()).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a vote for an action today's policy blocks is refused though it settles nothing: \
         {answer}"
    );
    assert!(
        answer.to_string().contains("now blocks"),
        "the refusal says the policy blocks it now: {answer}"
    );
    let after = svc.approval(&id).await;
    assert_eq!(after["status"], "requested", "still pending: {after}");
    assert_eq!(
        after["approvals"].as_array().map_or(0, Vec::len),
        0,
        "no refused vote was recorded: {after}"
    );
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn people_and_agents_are_managed_beside_the_running_service() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let erin = dir
        .add_person("erin", &[Role::SecurityReviewer])
        .await
        .unwrap();
    assert!(
        erin.starts_with("assent_p_"),
        "a person's token says what it is"
    );
    let (status, me) = svc.get("/v1/me", &erin).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a new person's token works at once: {me}"
    );
    assert_eq!(me["roles"], json!(["security_reviewer"]), "{me}");

    let erin_now = dir
        .roles("erin", &[Role::RepoMaintainer], &[Role::SecurityReviewer])
        .await
        .unwrap();
    assert_eq!(
        erin_now.roles.into_iter().collect::<Vec<_>>(),
        [Role::RepoMaintainer],
        "roles change in place"
    );
    let (_, me) = svc.get("/v1/me", &erin).await;
    assert_eq!(
        me["roles"],
        json!(["repo_maintainer"]),
        "and the service sees it at once"
    );

    let (status, people) = svc.get("/v1/people", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "{people}");
    let names: Vec<&str> = people["identities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["erin", "owner"], "people are listed by name");
    assert!(
        !people.to_string().contains(&erin),
        "a list never carries a token"
    );
    let (status, _) = svc.get("/v1/people", &svc.requester).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "agents may not list people");

    dir.remove("erin", IdentityKind::Person).await.unwrap();
    let (status, _) = svc.get("/v1/me", &erin).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a removed person's token stops working at once"
    );
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn bad_identities_are_refused_and_change_nothing() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let long = "a".repeat(65);
    for (name, why) in [
        ("", "an empty name"),
        (long.as_str(), "an over-long name"),
        ("ali ce", "a name with a space"),
        ("\u{202e}evil", "a name with a bidi override"),
    ] {
        let err = dir.add_person(name, &[Role::TaskAuthor]).await.unwrap_err();
        assert!(
            matches!(err, DirectoryError::Name(_)),
            "{why} is refused: {err}"
        );
    }
    dir.add_agent("ci").await.unwrap();
    let err = dir.add_person("ci", &[Role::TaskAuthor]).await.unwrap_err();
    assert!(
        matches!(err, DirectoryError::Exists(_)),
        "a name is taken across people and agents: {err}"
    );
    let err = dir.remove("ci", IdentityKind::Person).await.unwrap_err();
    assert!(
        matches!(err, DirectoryError::NotFound { .. }),
        "removing a person named like an agent removes nothing: {err}"
    );
    let err = dir
        .roles("nobody", &[Role::TaskAuthor], &[])
        .await
        .unwrap_err();
    assert!(matches!(err, DirectoryError::NotFound { .. }), "{err}");
    let (_, agents) = svc.get("/v1/agents", &svc.approver).await;
    assert_eq!(
        agents["identities"].as_array().unwrap().len(),
        2,
        "default and ci, nothing else changed: {agents}"
    );

    let other = directory(&svc).await;
    let (a, b) = tokio::join!(
        dir.add_person("frank", &[Role::TaskAuthor]),
        other.add_person("frank", &[Role::PlatformAdmin])
    );
    assert!(
        a.is_ok() != b.is_ok(),
        "of two concurrent adds of one name exactly one wins: {a:?} {b:?}"
    );
    other.close().await;
    dir.close().await;
    svc.stop().await;
}

#[tokio::test]
async fn the_desk_keeps_the_owner_credential_in_memory() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let file = dir.path().join("approver.token");
    let clock = Arc::new(assent_server::FakeClock::new(start_time()));
    let served = Service::start_in(dir.clone(), clock, |_| {}).await;
    let old = served.approver.clone();
    assert!(
        file.exists(),
        "`assent serve` writes approver.token for headless use"
    );
    let (dir, clock) = served.stop().await;

    let desk = Service::start_in(dir.clone(), clock, |config| config.owner_in_memory = true).await;
    assert!(
        !file.exists(),
        "in the desk's embedded mode no owner credential is on disk for an agent to read"
    );
    let (status, me) = desk.get("/v1/me", &desk.approver).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the desk's in-memory token is the owner's: {me}"
    );
    assert_eq!(me["name"], "owner", "{me}");
    let (status, _) = desk.get("/v1/me", &old).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the old file's token stops working once the desk holds the credential"
    );
    let (status, _) = desk.get("/v1/me", &desk.requester).await;
    assert_eq!(status, StatusCode::OK, "agents still find requester.token");
    desk.stop().await;
}

/// `assent install claude-code` makes the agent `claude-code` with a token of its own, so the
/// prompts its gate opens say who asked; installing again replaces that token, and a person
/// of the name is never turned into an agent.
#[tokio::test]
async fn an_installed_agent_asks_in_its_own_name() {
    let svc = Service::start().await;
    let dir = directory(&svc).await;
    let first = dir.install_token("claude-code").await.unwrap();
    let (status, me) = svc.get("/v1/me", &first).await;
    assert_eq!(status, StatusCode::OK, "the new token works at once: {me}");
    assert_eq!(
        me,
        json!({"name":"claude-code","kind":"agent","roles":[]}),
        "the token is the agent's, named after it, holding no role"
    );
    let id = pending_id(&svc, &first, &cloud("r-install")).await;
    let (_, approval) = svc.get(&format!("/v1/approvals/{id}"), &svc.approver).await;
    assert_eq!(
        approval["requester"], "claude-code",
        "the prompt says which agent asked, not `default`: {approval}"
    );

    let second = dir.install_token("claude-code").await.unwrap();
    let (status, _) = svc.get("/v1/me", &first).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "installing again replaces the install token: the old one stops"
    );
    let (status, me) = svc.get("/v1/me", &second).await;
    assert_eq!(
        (status, me["name"].clone()),
        (StatusCode::OK, json!("claude-code")),
        "and the new one is the same agent's"
    );

    dir.add_person("codex", &[]).await.unwrap();
    assert!(
        matches!(
            dir.install_token("codex").await,
            Err(DirectoryError::Exists(_))
        ),
        "a person named like the agent is left alone"
    );
    svc.stop().await;
}
