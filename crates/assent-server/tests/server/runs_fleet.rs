//! Pre-run approvals and fleet campaigns through the real service (HTTP on a free port, the
//! story backend: SQLite unless `ASSENT_TEST_BACKEND` names another): a run that must be
//! approved before it acts, and a campaign approved by definition and then stage by stage.

use crate::common;
use crate::common::{shell, Service};
use assent_core::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

pub const CAMPAIGN: &str = r#"name = "java21"
target_repos = ["svc-a", "svc-b", "svc-c", "svc-d", "legacy"]
selection_criteria = "services on Java 17 with a pom.xml"
excluded_repos = ["legacy"]
prompt_contract = "Move the build to Java 21; change nothing else."
verifier_profile = "maven-test"
sample_diff = "-<java.version>17</java.version>\n+<java.version>21</java.version>"
expected_pr_body = "Java 17 to 21 (campaign java21)"
cost_estimate = "about 40 agent-minutes per repository"

[stop]
failure_threshold = 2
"#;

fn approve() -> Value {
    json!({"decision":"approve","scope":"once","expires_in_seconds":600})
}

async fn start(svc: &Service, run: &str, body: &Value) -> (StatusCode, Value) {
    svc.post(&format!("/v1/runs/{run}/start"), &svc.requester, body)
        .await
}

/// A harmless read the default policy allows at once, in run `run`.
fn read(run: &str) -> Value {
    shell(run, "ls", "trusted", None)
}

#[tokio::test]
async fn a_high_risk_run_waits_for_its_pre_run_approval() {
    let svc = Service::start().await;
    let plan = json!({
        "task": "Upgrade Spring Boot 3.2 to 3.4 across 2 services",
        "risk": "high",
        "repos": ["shop", "billing"],
        "expected": ["update Maven dependencies", "create draft PRs"],
        "credentials": ["private Maven registry read-only"],
        "remote_mutation": "PR creation only, no merge"
    });
    let (status, started) = start(&svc, "r-high", &plan).await;
    assert_eq!(status, StatusCode::OK, "the start is answered: {started}");
    assert_eq!(
        started["status"], "pending",
        "a high-risk task asks first: {started}"
    );
    assert_eq!(
        started["reasons"][0], "task risk is high",
        "it says why: {started}"
    );
    let id = started["approval_id"].as_str().unwrap().to_owned();

    let approval = svc.approval(&id).await;
    assert_eq!(
        approval["approval_type"], "pre_run",
        "a pre_run approval: {approval}"
    );
    assert_eq!(
        approval["evidence"]["type"], "pre_run",
        "with the pre-run packet"
    );
    assert_eq!(
        approval["evidence"]["remote_mutation"], "PR creation only, no merge",
        "the packet carries the seed's fields: {approval}"
    );
    assert_eq!(
        approval["required_role"], "platform_admin",
        "the default approver"
    );

    let blocked = svc.submit(&read("r-high")).await;
    assert_eq!(
        blocked["status"], "blocked",
        "even an auto action waits: {blocked}"
    );
    assert_eq!(
        blocked["reasons"][0], "run awaiting pre-run approval",
        "the agent is told why: {blocked}"
    );

    let (status, decided) = svc
        .post(
            &format!("/v1/approvals/{id}/decision"),
            &svc.approver,
            &approve(),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the owner approves: {decided}");
    let (_, run) = svc.get("/v1/runs/r-high", &svc.approver).await;
    assert_eq!(run["status"], "running", "approval frees the run: {run}");
    let allowed = svc.submit(&read("r-high")).await;
    assert_eq!(
        allowed["status"], "allowed",
        "after approval the run's actions are evaluated normally: {allowed}"
    );
    let asks = svc
        .submit(&shell("r-high", "mvn -B test", "unknown", None))
        .await;
    assert_eq!(
        asks["status"], "pending",
        "the pre-run approval grants the start, not the run's asks: {asks}"
    );

    let audit = svc.audit("r-high").await;
    assert!(
        audit
            .iter()
            .any(|e| e["decision"] == "approved" && e["approval_id"] == id.as_str()),
        "the pre-run approval is audited: {audit:?}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_denied_pre_run_keeps_the_run_blocked_with_the_reason() {
    let svc = Service::start().await;
    let (_, started) = start(
        &svc,
        "r-deny",
        &json!({"task": "rotate prod keys", "risk": "critical"}),
    )
    .await;
    let id = started["approval_id"].as_str().unwrap().to_owned();
    let (status, _) = svc
        .post(
            &format!("/v1/approvals/{id}/decision"),
            &svc.approver,
            &json!({"decision":"deny","reason":"not this week"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the owner denies");
    let blocked = svc.submit(&read("r-deny")).await;
    assert_eq!(
        blocked["status"], "blocked",
        "a denied run stays blocked: {blocked}"
    );
    assert!(
        blocked["reasons"][0]
            .as_str()
            .unwrap()
            .contains("not this week"),
        "with the person's reason: {blocked}"
    );
    let (status, again) = start(
        &svc,
        "r-deny",
        &json!({"task": "rotate prod keys", "risk": "low"}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a denied run cannot restart as a lower-risk one: {again}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_low_risk_run_starts_without_approval_and_bad_input_is_refused() {
    let svc = Service::start().await;
    let (status, started) = start(&svc, "r-low", &json!({"task": "fix a typo"})).await;
    assert_eq!(status, StatusCode::OK, "{started}");
    assert_eq!(
        started["status"], "started",
        "nothing asks for a low-risk task: {started}"
    );
    assert_eq!(
        started["reasons"][0], "no pre-run approval needed",
        "{started}"
    );
    assert!(
        started["approval_id"].is_null(),
        "no approval is opened: {started}"
    );
    let (_, list) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    assert_eq!(list["approvals"], json!([]), "and none is pending");

    let (status, body) = start(&svc, "r-bad", &json!({"task": ""})).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an empty task is refused: {body}"
    );
    let (status, body) = start(&svc, "r-bad", &json!({"task": "x", "risk": "extreme"})).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an unknown risk is refused: {body}"
    );
    let (status, body) = start(&svc, "r-bad", &json!({"task": "x", "campaign": "java21"})).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a campaign run names its repo: {body}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_campaign_file_with_errors_creates_nothing() {
    let svc = Service::start().await;
    let bad = CAMPAIGN.replace("failure_threshold = 2", "failure_threshold = \"two\"");
    let (status, body) = svc
        .post("/v1/campaigns", &svc.requester, &json!({"file": bad}))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a bad file is refused: {body}"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("line 12") && message.contains("failure_threshold"),
        "the error names the line and the field: {message}"
    );
    let (_, list) = svc.get("/v1/campaigns", &svc.approver).await;
    assert_eq!(list["campaigns"], json!([]), "nothing was created");
    let (_, pending) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    assert_eq!(pending["approvals"], json!([]), "and nothing asks a person");
    svc.stop().await;
}

/// Decides `id` as `token`; the answer's approval.
async fn decide(svc: &Service, token: &str, id: &str, body: &Value) -> Value {
    let (status, answer) = svc
        .post(&format!("/v1/approvals/{id}/decision"), token, body)
        .await;
    assert_eq!(status, StatusCode::OK, "the decision is taken: {answer}");
    answer["approval"].clone()
}

#[tokio::test]
async fn a_campaign_goes_stage_by_stage_and_stops_at_its_threshold() {
    let svc = Service::start().await;
    let dir = common::backend::directory(&svc.data_dir()).await;
    let alice = dir
        .add_person("alice", &[Role::PlatformAdmin])
        .await
        .unwrap();
    let bob = dir.add_person("bob", &[Role::PlatformAdmin]).await.unwrap();
    let dave = dir.add_person("dave", &[Role::TaskAuthor]).await.unwrap();
    let mut events = svc.events(None).await;

    let (status, created) = svc
        .post("/v1/campaigns", &svc.requester, &json!({"file": CAMPAIGN}))
        .await;
    assert_eq!(status, StatusCode::OK, "the campaign is created: {created}");
    assert_eq!(created["campaign"]["status"], "proposed", "{created}");
    let def = created["approval_id"].as_str().unwrap().to_owned();
    let approval = svc.approval(&def).await;
    assert_eq!(
        approval["approval_type"], "fleet",
        "a fleet approval: {approval}"
    );
    assert_eq!(approval["required_approvals"], 2, "two people by default");
    assert_eq!(
        approval["evidence"]["excluded_repos"][0], "legacy",
        "{approval}"
    );

    let (status, refused) = svc
        .post(&format!("/v1/approvals/{def}/decision"), &dave, &approve())
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a task author cannot approve a fleet: {refused}"
    );
    let (status, early) = svc
        .post(
            "/v1/campaigns/java21/stages",
            &svc.requester,
            &json!({"next": 2}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "no stage before the definition is approved: {early}"
    );

    let first = decide(&svc, &alice, &def, &approve()).await;
    assert_eq!(
        first["status"], "requested",
        "one platform_admin is not enough: {first}"
    );
    let second = decide(&svc, &bob, &def, &approve()).await;
    assert_eq!(
        second["status"], "approved_once",
        "the second settles it: {second}"
    );
    let (_, campaign) = svc.get("/v1/campaigns/java21", &svc.approver).await;
    assert_eq!(campaign["status"], "active", "{campaign}");

    let (status, staged) = svc
        .post(
            "/v1/campaigns/java21/stages",
            &svc.requester,
            &json!({"next": 3}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{staged}");
    let stage = &staged["campaign"]["stages"][0];
    assert_eq!(
        stage["repos"],
        json!(["svc-a", "svc-b", "svc-c"]),
        "the next three targets: {staged}"
    );
    let stage_id = staged["approval_id"].as_str().unwrap().to_owned();

    let (_, outside) = start(
        &svc,
        "r-a",
        &json!({"task": "java21 svc-a", "campaign": "java21", "repo": "svc-a"}),
    )
    .await;
    assert_eq!(
        outside["status"], "blocked",
        "a proposed stage is not approved yet: {outside}"
    );
    assert_eq!(
        outside["reasons"][0], "svc-a is not in an approved batch of campaign java21",
        "{outside}"
    );
    let blocked = svc.submit(&read("r-a")).await;
    assert_eq!(
        blocked["status"], "blocked",
        "the run's actions are blocked too: {blocked}"
    );

    decide(&svc, &alice, &stage_id, &approve()).await;
    decide(&svc, &bob, &stage_id, &approve()).await;
    let (_, inside) = start(
        &svc,
        "r-a",
        &json!({"task": "java21 svc-a", "campaign": "java21", "repo": "svc-a"}),
    )
    .await;
    assert_eq!(
        inside["status"], "started",
        "an approved batch's repo starts: {inside}"
    );
    assert_eq!(
        svc.submit(&read("r-a")).await["status"],
        "allowed",
        "and acts"
    );
    let (_, late) = start(
        &svc,
        "r-d",
        &json!({"task": "java21 svc-d", "campaign": "java21", "repo": "svc-d"}),
    )
    .await;
    assert_eq!(
        late["status"], "blocked",
        "a repo of no approved batch is blocked: {late}"
    );

    let report = |repo: &str, result: &str| json!({"repo": repo, "result": result});
    let (status, one) = svc
        .post(
            "/v1/campaigns/java21/outcomes",
            &svc.requester,
            &report("svc-a", "failed"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(
        one["campaign"]["status"], "active",
        "one failure of two allowed: {one}"
    );
    let (_, two) = svc
        .post(
            "/v1/campaigns/java21/outcomes",
            &svc.requester,
            &report("svc-b", "failed"),
        )
        .await;
    assert_eq!(
        two["campaign"]["status"], "stopped",
        "the threshold stops it: {two}"
    );
    // r-a was started before the stop: it is paused, not left running.
    let push = shell("r-a", "git push origin main", "trusted", None);
    let held = svc.submit(&push).await;
    assert_eq!(
        held["status"], "blocked",
        "a run already started stops with its campaign: {held}"
    );
    let why = held["reasons"][0].as_str().unwrap();
    assert!(
        why.contains("campaign java21 stopped") && why.contains("resumes the campaign"),
        "the agent is told why and what lets it go on: {why}"
    );
    assert_eq!(
        svc.submit(&read("r-a")).await["status"],
        "allowed",
        "a paused run still does what the policy allows on its own (reads)"
    );
    let (_, state) = svc.get("/v1/runs/r-a", &svc.approver).await;
    assert_eq!(state["status"], "paused", "{state}");
    assert_eq!(
        state["campaign"], "java21",
        "the run names its campaign: {state}"
    );
    let (status, alone) = svc.post("/v1/runs/r-a/resume", &alice, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a run of a stopped campaign goes on only with its campaign: {alone}"
    );
    assert!(
        alone["error"]["message"]
            .as_str()
            .unwrap()
            .contains("assent campaign resume java21"),
        "the refusal says what to do instead: {alone}"
    );
    let (status, more) = svc
        .post(
            "/v1/campaigns/java21/stages",
            &svc.requester,
            &json!({"next": 1}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "no stage while stopped: {more}"
    );
    let (_, run) = start(
        &svc,
        "r-c",
        &json!({"task": "java21 svc-c", "campaign": "java21", "repo": "svc-c"}),
    )
    .await;
    assert_eq!(run["status"], "blocked", "no run while stopped: {run}");
    assert!(
        run["reasons"][0].as_str().unwrap().contains("stopped"),
        "{run}"
    );

    let (mut stopped, mut paused) = (None, None);
    while stopped.is_none() || paused.is_none() {
        let sse = events.next_event().await;
        match sse.event.as_deref() {
            Some("campaign.stopped") => stopped = Some(sse.json()),
            Some("run.paused") => paused = Some(sse.json()),
            _ => {}
        }
    }
    assert_eq!(
        stopped.unwrap()["campaign"]["campaign_id"],
        "java21",
        "the stop is announced on /v1/events"
    );
    assert_eq!(
        paused.unwrap()["run"]["run_id"],
        "r-a",
        "so is the pause of its run (the desk lists paused runs)"
    );

    let (status, agent) = svc
        .post("/v1/campaigns/java21/resume", &svc.requester, &json!({}))
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an agent cannot resume a campaign: {agent}"
    );
    let (status, resumed) = svc
        .post("/v1/campaigns/java21/resume", &alice, &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{resumed}");
    assert_eq!(
        resumed["campaign"]["status"], "active",
        "a person resumes it: {resumed}"
    );
    assert_eq!(
        svc.submit(&push).await["status"],
        "pending",
        "the run the stop paused goes on with its campaign (a push asks a person again)"
    );
    let (_, state) = svc.get("/v1/runs/r-a", &svc.approver).await;
    assert_eq!(state["status"], "running", "{state}");
    let (_, run) = start(
        &svc,
        "r-c",
        &json!({"task": "java21 svc-c", "campaign": "java21", "repo": "svc-c"}),
    )
    .await;
    assert_eq!(
        run["status"], "started",
        "runs go on after the resume: {run}"
    );

    let audit = svc.audit("campaign:java21").await;
    let decisions: Vec<&str> = audit
        .iter()
        .filter_map(|e| e["decision"].as_str())
        .collect();
    for want in ["reported", "stopped", "resumed"] {
        assert!(
            decisions.contains(&want),
            "the audit records {want}: {decisions:?}"
        );
    }
    let reason_of = |decision: &str| {
        audit
            .iter()
            .find(|e| e["decision"] == decision)
            .and_then(|e| e["reason"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        reason_of("stopped").contains("paused its runs r-a"),
        "the stop's record names the runs it paused: {}",
        reason_of("stopped")
    );
    assert!(
        reason_of("resumed").contains("its runs r-a go on"),
        "the resume's record names the runs it let go on: {}",
        reason_of("resumed")
    );
    svc.stop().await;
}

#[tokio::test]
async fn unanswered_pre_run_and_stage_approvals_time_out() {
    let policy = assent_core::Policy::from_toml("[fleet]\nrequired_approvals = 1\n").unwrap();
    let svc = Service::start_with(|config| config.policy = policy).await;
    let mut events = svc.events(None).await;
    let (_, started) = start(
        &svc,
        "r-late",
        &json!({"task": "migrate auth", "risk": "high"}),
    )
    .await;
    let id = started["approval_id"].as_str().unwrap().to_owned();
    let requested = events.next_event().await;
    assert_eq!(
        requested.event.as_deref(),
        Some("approval.requested"),
        "the prompt is announced"
    );
    assert_eq!(
        requested.json()["approval"]["approval_type"],
        "pre_run",
        "as a pre_run approval: {}",
        requested.data
    );
    let expires_at: chrono::DateTime<chrono::Utc> = svc.approval(&id).await["expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    svc.wait_across_expiry(&id, expires_at).await;
    let (_, run) = svc.get("/v1/runs/r-late", &svc.approver).await;
    assert_eq!(
        run["status"], "cancelled",
        "an unanswered pre-run cancels the run: {run}"
    );
    assert!(
        run["reason"]
            .as_str()
            .unwrap()
            .starts_with("pre-run approval was not given"),
        "and says so: {run}"
    );

    let (_, created) = svc
        .post("/v1/campaigns", &svc.requester, &json!({"file": CAMPAIGN}))
        .await;
    let def = created["approval_id"].as_str().unwrap().to_owned();
    decide(&svc, &svc.approver, &def, &approve()).await;
    let (_, staged) = svc
        .post(
            "/v1/campaigns/java21/stages",
            &svc.requester,
            &json!({"next": 2}),
        )
        .await;
    let stage = staged["approval_id"].as_str().unwrap().to_owned();
    let expires_at: chrono::DateTime<chrono::Utc> = svc.approval(&stage).await["expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    svc.wait_across_expiry(&stage, expires_at).await;
    let (_, campaign) = svc.get("/v1/campaigns/java21", &svc.approver).await;
    assert_eq!(
        campaign["stages"][0]["status"], "denied",
        "an unanswered stage is not approved: {campaign}"
    );
    let (_, again) = svc
        .post(
            "/v1/campaigns/java21/stages",
            &svc.requester,
            &json!({"next": 2}),
        )
        .await;
    assert_eq!(
        again["campaign"]["stages"][1]["repos"],
        json!(["svc-a", "svc-b"]),
        "its repositories are proposed again: {again}"
    );
    svc.stop().await;
}
