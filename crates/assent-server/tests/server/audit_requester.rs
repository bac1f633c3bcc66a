//! The audit names which agent identity asked, through the real service on the suite's
//! backend (SQLite here, PostgreSQL in `on_postgres`): agents `bot` and `bot2`, each with its
//! own token, work in one run and both call themselves `"agent"` (`requested_by`, their own
//! words). Every record about a request says whose token asked — the outcome, the person's
//! decision, the grant use (with the scope and expiry of the grant used), the execution, the
//! revocation — so an exported chain tells the two apart. A record written before the field
//! existed still verifies, and a changed requester is caught by verify.

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::{backend, maven, shell, Service};

const RUN: &str = "r-two";

/// Tokens of agents `bot` and `bot2`.
struct Agents {
    bot: String,
    bot2: String,
}

async fn agents(svc: &Service) -> Agents {
    let dir = backend::directory(&svc.data_dir()).await;
    let bot = dir.add_agent("bot").await.unwrap();
    let bot2 = dir.add_agent("bot2").await.unwrap();
    dir.close().await;
    Agents { bot, bot2 }
}

/// The one record of `audit` with `decision` whose `field` is `value`.
fn record<'a>(audit: &'a [Value], decision: &str, field: &str, value: &Value) -> &'a Value {
    let found: Vec<&Value> = audit
        .iter()
        .filter(|e| e["decision"] == decision && &e[field] == value)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {decision} record with {field} = {value}: {audit:#?}"
    );
    found[0]
}

fn time(value: &Value) -> Option<DateTime<Utc>> {
    value.as_str().and_then(|t| t.parse().ok())
}

#[tokio::test]
async fn the_audit_names_which_agent_asked_and_which_used_the_grant() {
    let svc = Service::start().await;
    let a = agents(&svc).await;
    let auto = svc
        .submit_as(&a.bot2, &shell(RUN, "ls", "trusted", None))
        .await;
    assert_eq!(auto["status"], "allowed", "ls in a trusted repo is auto");
    let asked = svc.submit_as(&a.bot, &maven(RUN)).await;
    let asked2 = svc.submit_as(&a.bot2, &maven(RUN)).await;
    let (p1, p2) = (&asked["approval_id"], &asked2["approval_id"]);
    assert!(
        p1.is_string() && p2.is_string() && p1 != p2,
        "the same command from another agent is its own prompt (never joined): {asked} {asked2}"
    );
    let decided = svc.approve_for_run(p1.as_str().unwrap()).await;
    let grant = &decided["grant"];
    assert!(
        time(&grant["expires_at"]).is_some(),
        "approving for the run issues a grant with an expiry: {decided}"
    );
    let (status, denied) = svc
        .decide(
            p2.as_str().unwrap(),
            &json!({"decision": "deny", "reason": "not this one"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "the owner may deny: {denied}");
    let mut again = maven(RUN);
    again["idempotency_key"] = json!("tool-2");
    let used = svc.submit_as(&a.bot, &again).await;
    assert_eq!(
        (&used["status"], &used["grant_id"]),
        (&json!("allowed"), &grant["grant_id"]),
        "bot's run grant covers bot's next mvn test: {used}"
    );
    let report = json!({"run_id": RUN, "idempotency_key": "tool-2"});
    let (status, ran) = svc.post("/v1/actions/executed", &a.bot, &report).await;
    assert_eq!(status, StatusCode::OK, "bot reports what it ran: {ran}");
    let revoke = format!("/v1/grants/{}/revoke", grant["grant_id"].as_str().unwrap());
    let (status, revoked) = svc
        .post(&revoke, &svc.approver, &json!({"reason": "done"}))
        .await;
    assert_eq!(status, StatusCode::OK, "the owner revokes: {revoked}");

    let audit = svc.audit(RUN).await;
    let requester = |e: &Value| e["requester"].clone();
    assert_eq!(
        requester(record(&audit, "auto", "action_id", &auto["action_id"])),
        "bot2",
        "the auto decision names bot2's token, though both agents call themselves \"agent\""
    );
    let approved = record(&audit, "approved", "approval_id", p1);
    assert_eq!(
        (&approved["approver"], &approved["requester"]),
        (&json!("owner"), &json!("bot")),
        "the approval names both the person who decided and the agent whose request it was"
    );
    assert_eq!(
        requester(record(&audit, "denied", "approval_id", p2)),
        "bot2",
        "the denial names bot2, whose request it answered, not bot who asked the same"
    );
    let use_record = record(&audit, "used", "action_id", &used["action_id"]);
    assert_eq!(
        (&use_record["requester"], &use_record["grant_id"]),
        (&json!("bot"), &grant["grant_id"]),
        "the grant use names the agent identity whose request the grant answered"
    );
    assert_eq!(
        (
            &use_record["granted_scope"],
            time(&use_record["grant_expires_at"])
        ),
        (&json!("run"), time(&grant["expires_at"])),
        "a grant use says for which scope and until when the grant it used was given, like \
         every decision record"
    );
    assert_eq!(
        requester(record(&audit, "executed", "action_id", &used["action_id"])),
        "bot",
        "the execution report names the agent that ran it"
    );
    let revocation = record(&audit, "revoked", "grant_id", &grant["grant_id"]);
    assert_eq!(
        (&revocation["approver"], &revocation["requester"]),
        (&json!("owner"), &json!("bot")),
        "the revocation names who revoked and which agent's grant it was"
    );
    assert!(
        audit
            .iter()
            .all(|e| e["requester"] == "bot" || e["requester"] == "bot2"),
        "every record of the run is about one agent's request and names its token's \
         identity, never the self-declared \"agent\": {audit:#?}"
    );
    svc.stop().await;
}

/// A `used` record exactly as the service wrote it before records named the requester (and
/// the grant's scope and expiry on a use).
const OLD_BODY: &str = r#"{"event_id":"old-used","timestamp":"2026-03-01T08:00:00Z","approval_id":"ap-old","action_id":"ac-old","run_id":"r-old","task_id":"task-1","action_kind":"shell","action_hash":"h-old","requested_scope":["once","run"],"decision":"used","reason":"mvn test","policy_version":"v0","evidence_artifact_id":"ap-old","grant_id":"g-old","repo":"/home/dev/shop","subject":"mvn -B test"}"#;

#[tokio::test]
async fn an_old_record_still_verifies_and_a_changed_requester_is_caught() {
    let svc = Service::start().await;
    let a = agents(&svc).await;
    let auto = svc
        .submit_as(&a.bot, &shell("r-old", "ls", "trusted", None))
        .await;
    let (_, verified) = svc.get("/v1/audit/verify", &svc.approver).await;
    let head_seq = verified["report"]["head_seq"].as_i64().unwrap();
    let head_hash = verified["report"]["head_hash"].as_str().unwrap().to_owned();
    let (dir, clock) = svc.stop().await;

    // Appended after the head the way the previous version appended it: its link hashes the
    // body without a `requester` field.
    let seq = head_seq + 1;
    let hash = assent_server::audit_chain::link_hash(seq, &head_hash, OLD_BODY);
    backend::tamper(
        dir.path(),
        &format!(
            "INSERT INTO audit_events \
             (event_id, occurred_at, run_id, decision, body, chain_seq, prev_hash, hash) \
             VALUES ('old-used', 0, 'r-old', 'used', '{OLD_BODY}', {seq}, '{head_hash}', '{hash}')"
        ),
    );
    let svc = Service::start_in(dir, clock, |_| {}).await;
    let (_, upgraded) = svc.get("/v1/audit/verify", &svc.approver).await;
    let audit = svc.audit("r-old").await;
    let old = record(&audit, "used", "event_id", &json!("old-used"));
    let new = record(&audit, "auto", "action_id", &auto["action_id"]);
    let (dir, clock) = svc.stop().await;
    assert_eq!(
        (&upgraded["report"]["ok"], &upgraded["report"]["events"]),
        (&json!(true), &json!(seq)),
        "a record written before the requester field verifies: its hash is over its stored \
         bytes, never a re-serialization: {upgraded}"
    );
    assert!(
        old.get("requester").is_none() && old["grant_id"] == "g-old",
        "/v1/audit still reads the old record, naming no requester it never had: {old}"
    );
    assert_eq!(
        new["requester"], "bot",
        "the new record beside it names bot: {new}"
    );

    // Someone with write access to the database blames bot2 for what bot asked.
    let event_id = new["event_id"].as_str().unwrap();
    backend::tamper(
        dir.path(),
        &format!(
            "UPDATE audit_events SET body = replace(body, '\"requester\":\"bot\"', \
             '\"requester\":\"bot2\"') WHERE event_id = '{event_id}'"
        ),
    );
    let svc = Service::start_in(dir, clock, |_| {}).await;
    let audit = svc.audit("r-old").await;
    let (_, tampered) = svc.get("/v1/audit/verify", &svc.approver).await;
    svc.stop().await;
    assert_eq!(
        record(&audit, "auto", "action_id", &auto["action_id"])["requester"],
        "bot2",
        "the change took: the audit now tells a reader bot2 asked"
    );
    assert_eq!(
        tampered["report"]["breaks"],
        json!([{"kind": "changed", "chain_seq": head_seq, "event_id": event_id}]),
        "the requester is covered by the record's hash, so verify names the changed record \
         (and nothing else): {tampered}"
    );
}
