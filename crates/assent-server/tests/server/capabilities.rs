//! Credential capabilities through the service: a capability request is a credential
//! approval showing the capability (never the secret); once approved, the service releases
//! the secret to that one execution; revoke, the TTL and unknown names are answered clearly.

use crate::common::{shell, Service};
use assent_core::Policy;
use reqwest::StatusCode;
use serde_json::{json, Value};

const SECRET: &str = "s3cret-maven-token-0042";
const CAP: &str = "registry.maven.readonly";

/// A service whose policy declares `registry.maven.readonly`, kept in a file of its own.
async fn service() -> (Service, String) {
    let secrets = tempfile::tempdir().unwrap().keep();
    let source = secrets.join("settings.xml");
    std::fs::write(&source, format!("{SECRET}\n")).unwrap();
    let source = source.to_string_lossy().into_owned();
    let policy = Policy::from_toml(&format!(
        r#"
[capabilities."{CAP}"]
source = "file:{source}"
inject_as = "MAVEN_TOKEN"
ttl = "15m"
hosts = ["maven.internal.example.com"]
methods = ["GET", "HEAD"]
"#
    ))
    .unwrap();
    let svc = Service::start_with(move |config| config.policy = policy).await;
    (svc, source)
}

fn exec(run: &str, key: &str, capability: &str) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "idempotency_key": key,
        "action": {"kind": "credential", "argv": ["mvn", "-B", "test"], "cwd": "/home/dev/shop",
                   "credential_scope": capability},
        "context": {"repo": "/home/dev/shop"},
        "reason": "compile needs private dependencies"
    })
}

async fn release(svc: &Service, run: &str, key: &str) -> (StatusCode, Value) {
    let body = json!({"run_id": run, "idempotency_key": key});
    svc.post("/v1/credentials/release", &svc.requester, &body)
        .await
}

#[tokio::test]
async fn an_approved_capability_releases_its_secret_once_per_execution() {
    let (svc, source) = service().await;
    let asked = svc.submit(&exec("r-c", "exec-1", CAP)).await;
    assert_eq!(
        asked["status"], "pending",
        "a capability is asked for: {asked}"
    );
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let approval = svc.approval(&id).await;
    assert_eq!(
        approval["approval_type"], "credential",
        "a credential approval"
    );
    let evidence = &approval["evidence"];
    assert_eq!(evidence["type"], "credential", "with the credential packet");
    assert_eq!(
        evidence["capability"], CAP,
        "the packet names the capability"
    );
    assert_eq!(evidence["ttl_seconds"], 900, "and its TTL");
    assert_eq!(
        evidence["hosts"],
        json!(["maven.internal.example.com"]),
        "and hosts"
    );
    assert_eq!(evidence["methods"], json!(["GET", "HEAD"]), "and methods");
    assert_eq!(evidence["run_id"], "r-c", "and the run");
    let shown = approval.to_string();
    assert!(
        !shown.contains(SECRET) && !shown.contains(&source),
        "the prompt never shows the secret or where it is kept: {shown}"
    );
    let quick = approval["quick_decisions"].as_array().unwrap();
    assert!(
        quick
            .iter()
            .all(|q| q["expires_in_seconds"].as_i64() <= Some(900)),
        "no one-click approval outlives the TTL: {quick:?}"
    );

    let (status, body) = release(&svc, "r-c", "exec-1").await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "nothing is released before approval: {body}"
    );

    let too_long = json!({"decision":"approve","scope":"run","expires_in_seconds":3600});
    let (status, body) = svc.decide(&id, &too_long).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a grant longer than the TTL is refused: {body}"
    );
    let run = json!({"decision":"approve","scope":"run","expires_in_seconds":900});
    let (status, body) = svc.decide(&id, &run).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "approving within the TTL works: {body}"
    );

    let (status, got) = release(&svc, "r-c", "exec-1").await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the approved execution gets its secret: {got}"
    );
    assert_eq!(
        got["value"], SECRET,
        "the value is the source's, without its newline"
    );
    assert_eq!(
        got["inject_as"], "MAVEN_TOKEN",
        "with the variable to put it in"
    );
    let (status, body) = release(&svc, "r-c", "exec-1").await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "one execution gets it once: {body}"
    );
    let (status, _) = release(&svc, "r-other", "exec-1").await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another run's key names nothing"
    );

    let again = svc.submit(&exec("r-c", "exec-2", CAP)).await;
    assert_eq!(
        again["status"], "allowed",
        "the run grant covers the next exec: {again}"
    );
    let (status, _) = release(&svc, "r-c", "exec-2").await;
    assert_eq!(status, StatusCode::OK, "a covered exec gets the secret too");
    let waiting = svc.submit(&exec("r-c", "exec-3", CAP)).await;
    assert_eq!(
        waiting["status"], "allowed",
        "covered, not yet released: {waiting}"
    );

    let grant = again["grant_id"].as_str().unwrap();
    let (status, _) = svc
        .post(
            &format!("/v1/grants/{grant}/revoke"),
            &svc.approver,
            &json!({"reason": "done"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the person revokes the grant");
    let (status, body) = release(&svc, "r-c", "exec-3").await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "revoke stops later releases: {body}"
    );
    assert!(body.to_string().contains("revoked"), "and says so: {body}");
    let after = svc.submit(&exec("r-c", "exec-4", CAP)).await;
    assert_eq!(
        after["status"], "pending",
        "after revoke the capability is asked again"
    );

    let audit = svc.audit("r-c").await;
    let released: Vec<&Value> = audit
        .iter()
        .filter(|e| e["decision"] == "credential_released")
        .collect();
    assert_eq!(released.len(), 2, "each release is audited: {audit:?}");
    assert_eq!(
        released[0]["grant_id"],
        json!(body_grant(&svc, &id).await),
        "naming the grant"
    );
    let trail = serde_json::to_string(&audit).unwrap();
    assert!(!trail.contains(SECRET), "the audit never holds the value");
}

async fn body_grant(svc: &Service, approval_id: &str) -> Value {
    svc.approval(approval_id).await["grant_id"].clone()
}

#[tokio::test]
async fn the_release_is_announced_without_the_value() {
    let (svc, _) = service().await;
    let mut events = svc.events(None).await;
    let asked = svc.submit(&exec("r-e", "exec-1", CAP)).await;
    let id = asked["approval_id"].as_str().unwrap();
    let once = json!({"decision":"approve","scope":"once","expires_in_seconds":600});
    assert_eq!(
        svc.decide(id, &once).await.0,
        StatusCode::OK,
        "approved once"
    );
    assert_eq!(
        release(&svc, "r-e", "exec-1").await.0,
        StatusCode::OK,
        "released"
    );
    loop {
        let sse = events.next_event().await;
        if sse.event.as_deref() == Some("credential.released") {
            let data = sse.json();
            assert_eq!(data["capability"], CAP, "the event names the capability");
            assert!(!sse.data.contains(SECRET), "and never the value");
            break;
        }
    }
}

#[tokio::test]
async fn the_grant_ends_at_the_ttl() {
    let (svc, _) = service().await;
    let asked = svc.submit(&exec("r-t", "exec-1", CAP)).await;
    let id = asked["approval_id"].as_str().unwrap();
    let run = json!({"decision":"approve","scope":"run","expires_in_seconds":900});
    assert_eq!(
        svc.decide(id, &run).await.0,
        StatusCode::OK,
        "approved for the run"
    );
    let covered = svc.submit(&exec("r-t", "exec-2", CAP)).await;
    assert_eq!(covered["status"], "allowed", "covered within the TTL");
    svc.clock.advance(chrono::Duration::seconds(901));
    let (status, body) = release(&svc, "r-t", "exec-2").await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "past the TTL nothing is released: {body}"
    );
    assert!(
        body.to_string().contains("expired"),
        "and the answer says why: {body}"
    );
    let later = svc.submit(&exec("r-t", "exec-3", CAP)).await;
    assert_eq!(
        later["status"], "pending",
        "past the TTL the capability is asked again"
    );
}

#[tokio::test]
async fn an_unknown_capability_is_refused_and_nothing_is_created() {
    let (svc, _) = service().await;
    let (status, body) = svc
        .post(
            "/v1/actions",
            &svc.requester,
            &exec("r-u", "exec-1", "registry.mavne"),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an unknown capability is a bad request"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("unknown capability \"registry.mavne\"") && message.contains(CAP),
        "the error names the capability and what exists: {message}"
    );
    let (_, pending) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    assert_eq!(pending["approvals"], json!([]), "no prompt was opened");
    assert!(svc.audit("r-u").await.is_empty(), "nothing was recorded");
}

#[tokio::test]
async fn reading_the_source_is_blocked_naming_the_capability() {
    let (svc, source) = service().await;
    let answer = svc
        .submit(&shell("r-b", &format!("cat {source}"), "trusted", None))
        .await;
    assert_eq!(
        answer["status"], "blocked",
        "reading the source is blocked: {answer}"
    );
    let reasons = answer["reasons"].to_string();
    assert!(
        reasons.contains(&format!("assent exec --capability {CAP}")),
        "the block names the capability to ask for: {reasons}"
    );
}
