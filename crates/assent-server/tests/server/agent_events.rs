//! `GET /v1/events` with an agent's token (issue 45 §1): an agent that cannot block hears
//! about its own requests — settled, updated, its grants, its runs — with the persisted ids and
//! `Last-Event-ID` resume, and never about another agent's.

use serde_json::{json, Value};

use crate::common::{self, maven, shell, Service};

/// The events an SSE reader yields until (and with) the first whose type is `last`.
async fn until(reader: &mut common::SseReader, last: &str) -> Vec<(String, String, Value)> {
    let mut seen = Vec::new();
    loop {
        let sse = reader.next_event().await;
        let event = sse.event.clone().unwrap_or_default();
        seen.push((
            event.clone(),
            sse.id.clone().unwrap_or_default(),
            sse.json(),
        ));
        if event == last {
            return seen;
        }
    }
}

/// A service, and the token of a second agent beside its own requester.
async fn with_another_agent() -> (Service, String) {
    let s = Service::start().await;
    let other = common::backend::directory(&s.data_dir())
        .await
        .add_agent("other-agent")
        .await
        .unwrap();
    (s, other)
}

#[tokio::test]
async fn an_agent_hears_only_about_its_own_requests_and_resumes_where_it_left() {
    let (s, other) = with_another_agent().await;
    let mut mine = s.events_as(&s.requester, None).await;
    let mut theirs = s.events_as(&other, None).await;

    // The other agent asks first; then ours; a person approves both, ours first.
    let their_ask = s.submit_as(&other, &maven("their-run")).await;
    let our_ask = s
        .submit(&shell("our-run", "npm test", "unknown", None))
        .await;
    let our_id = our_ask["approval_id"].as_str().unwrap();
    let their_id = their_ask["approval_id"].as_str().unwrap();
    s.approve_for_run(our_id).await;
    s.approve_for_run(their_id).await;

    let ours = until(&mut mine, "approval.settled").await;
    assert!(
        ours.iter()
            .all(|(_, _, body)| body.to_string().contains("our-run")
                && !body.to_string().contains("their-run")),
        "an agent's stream names only its own run: {ours:?}"
    );
    let kinds: Vec<&str> = ours.iter().map(|(k, _, _)| k.as_str()).collect();
    assert!(
        kinds.contains(&"approval.requested"),
        "it hears its prompt open: {kinds:?}"
    );
    let settled = &ours.last().unwrap().2;
    assert_eq!(
        settled["approval"]["resolution"], "approved",
        "the person's decision reaches the agent as the settled approval: {settled}"
    );
    let grant = until(&mut mine, "grant.created").await;
    assert_eq!(
        grant.last().unwrap().2["grant"]["run_id"],
        "our-run",
        "and its grant"
    );

    let theirs_seen = until(&mut theirs, "approval.settled").await;
    assert!(
        theirs_seen
            .iter()
            .all(|(_, _, body)| !body.to_string().contains("our-run")),
        "the other agent never sees ours: {theirs_seen:?}"
    );

    // Resume after the prompt opened: the settlement and the grant again, nothing of theirs.
    let opened_id = ours
        .iter()
        .find(|(k, _, _)| k == "approval.requested")
        .map(|(_, id, _)| id.clone())
        .unwrap();
    let mut resumed = s.events_as(&s.requester, Some(&opened_id)).await;
    let again = until(&mut resumed, "grant.created").await;
    assert_eq!(
        again.first().map(|(k, _, _)| k.as_str()),
        Some("approval.settled"),
        "Last-Event-ID resumes right after the given event, with the persisted ids: {again:?}"
    );
    assert!(again
        .iter()
        .all(|(_, _, body)| !body.to_string().contains("their-run")));
    assert!(
        again
            .iter()
            .all(|(_, id, _)| id.parse::<i64>().unwrap() > opened_id.parse::<i64>().unwrap()),
        "ids keep growing after the resume point"
    );
}

#[tokio::test]
async fn another_agents_prompts_and_run_end_never_reach_an_agent() {
    let (s, other) = with_another_agent().await;
    let mut mine = s.events_as(&s.requester, None).await;
    s.submit_as(&other, &maven("their-run")).await;
    let (status, ended) = s.post("/v1/runs/their-run/end", &other, &json!({})).await;
    assert!(status.is_success(), "an agent may end its own run: {ended}");
    let ask = s
        .submit(&shell("our-run-2", "npm test", "unknown", None))
        .await;
    let first = mine.next_event().await;
    assert_eq!(
        first.event.as_deref(),
        Some("approval.requested"),
        "the other agent's prompt and run end are not this agent's events"
    );
    assert_eq!(first.json()["approval"]["approval_id"], ask["approval_id"]);
}
