//! The typed client against a real in-process `assent-server` on a free port, with a real
//! SQLite file: every call, its errors, and the event stream's reconnect and resume.

use std::time::{Duration, Instant};

use assent_client::{blocking, Client, ClientError, StreamItem};
use assent_core::{ActionRequest, ApprovalStatus, GrantStatus, ScopeKind};
use assent_protocol::{DecisionRequest, ErrorCode, Event, SubmitStatus};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::oneshot;

pub(crate) struct Running {
    pub(crate) url: String,
    pub(crate) requester: String,
    pub(crate) approver: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    pub(crate) async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap();
    }
}

pub(crate) async fn start(dir: &std::path::Path, addr: &str) -> Running {
    start_with(
        assent_server::Config::new(dir, assent_core::Policy::default()),
        addr,
    )
    .await
}

async fn start_with(config: assent_server::Config, addr: &str) -> Running {
    let app = assent_server::App::open(config).await.unwrap();
    let tokens = app.tokens().unwrap().clone();
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        app.serve(listener, async move {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    Running {
        url,
        requester: tokens.requester,
        approver: tokens.approver,
        stop: Some(stop),
        task,
    }
}

pub(crate) fn request(run: &str, command: &str, key: &str) -> ActionRequest {
    serde_json::from_value(json!({
        "run_id": run, "task_id": "t1", "requested_by": "agent", "idempotency_key": key,
        "action": {"kind": "shell", "command": command, "cwd": "/tmp"},
        "reason": "test"
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_wait_decide_grants_revoke_audit_and_end_run() {
    let dir = tempfile::tempdir().unwrap();
    let service = start(dir.path(), "127.0.0.1:0").await;
    let agent = Client::new(&service.url, &service.requester).unwrap();
    let desk = Client::new(&service.url, &service.approver).unwrap();
    agent.health().await.unwrap();

    let me = desk.me().await.unwrap();
    assert_eq!(
        (me.name.as_str(), me.kind, me.roles.len()),
        ("owner", assent_core::IdentityKind::Person, 4),
        "the approver token is the owner, a person holding every role"
    );
    let me = agent.me().await.unwrap();
    assert_eq!(
        (me.name.as_str(), me.kind, me.roles.is_empty()),
        ("default", assent_core::IdentityKind::Agent, true),
        "the requester token is the default agent, with no role"
    );

    let auto = agent
        .submit(&request("r1", "git status", "k0"))
        .await
        .unwrap();
    assert_eq!(
        auto.status,
        SubmitStatus::Allowed,
        "a read-only command is allowed at once"
    );

    let mut events = desk.events(None);
    assert_eq!(
        events.next().await,
        Some(StreamItem::Connected),
        "the stream says when it is connected"
    );

    let asked = agent
        .submit(&request("r1", "cargo test", "k1"))
        .await
        .unwrap();
    assert_eq!(
        asked.status,
        SubmitStatus::Pending,
        "a verifier in an untrusted repo is asked"
    );
    let id = asked.approval_id.clone().unwrap();
    let Some(StreamItem::Event(first)) = events.next().await else {
        panic!("an event follows the submit")
    };
    assert!(
        matches!(first.event, Event::ApprovalRequested { .. }),
        "the prompt is announced: {first:?}"
    );

    let pending = desk.pending().await.unwrap();
    assert_eq!(pending.len(), 1, "one open prompt");
    let polled = agent.approval(&id, None).await.unwrap();
    assert_eq!(polled.status, ApprovalStatus::Requested, "not settled yet");

    let waiter = {
        let agent = agent.clone();
        let id = id.clone();
        tokio::spawn(async move { agent.wait_settled(&id, Duration::from_secs(30)).await })
    };
    let decision = DecisionRequest::Approve {
        scope: ScopeKind::Run,
        expires_in_seconds: 600,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    let decided = desk.decide(&id, &decision).await.unwrap();
    let grant = decided
        .grant
        .expect("approving for the run creates a grant");
    let settled = waiter.await.unwrap().unwrap();
    assert_eq!(
        settled.status,
        ApprovalStatus::ApprovedForRun,
        "the long-poll returns the decision"
    );

    let covered = agent
        .submit(&request("r1", "cargo test", "k2"))
        .await
        .unwrap();
    assert_eq!(
        covered.grant_id.as_deref(),
        Some(grant.grant.grant_id.as_str()),
        "the run grant covers the next equivalent request"
    );
    let active = desk.grants(true).await.unwrap();
    assert_eq!(active.len(), 1, "one active grant");
    let revoked = desk.revoke(&grant.grant.grant_id, "enough").await.unwrap();
    assert_eq!(
        revoked.status,
        GrantStatus::Revoked,
        "revoke answers the revoked grant"
    );
    assert!(
        desk.grants(true).await.unwrap().is_empty(),
        "no active grant after revoke"
    );
    assert_eq!(
        desk.grants(false).await.unwrap().len(),
        1,
        "the past grant is still listed"
    );

    let audit = desk.audit(None, Some("r1")).await.unwrap();
    assert!(
        audit.len() >= 3,
        "auto, approved, used and revoked are audited: {}",
        audit.len()
    );
    let later = desk
        .audit(Some(chrono::Utc::now() + chrono::Duration::hours(1)), None)
        .await
        .unwrap();
    assert!(later.is_empty(), "nothing is audited in the future");
    let metrics = desk.metrics().await.unwrap();
    assert_eq!(
        (metrics.prompts_opened, metrics.prompts_pending),
        (1, 0),
        "one prompt opened and settled: {metrics:?}"
    );
    let rule = settled.facts.rule.clone();
    let stats = metrics.by_rule.get(&rule).cloned().unwrap_or_default();
    assert_eq!(
        (
            stats.prompts,
            stats.approved,
            stats.denied,
            stats.approve_rate
        ),
        (1, 1, 0, 1.0),
        "the prompt is counted under the rule that opened it, {rule}: {:?}",
        metrics.by_rule
    );
    assert_eq!(
        (metrics.prompts_per_run.runs, metrics.prompts_per_run.max),
        (1, 1),
        "one run had one prompt"
    );
    let ended = agent.end_run("r1").await.unwrap();
    assert_eq!(ended.run_id, "r1", "the run end is acknowledged");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_status_and_code() {
    let dir = tempfile::tempdir().unwrap();
    let service = start(dir.path(), "127.0.0.1:0").await;
    let agent = Client::new(&service.url, &service.requester).unwrap();
    let stranger = Client::new(&service.url, "not-a-token").unwrap();
    match stranger.submit(&request("r", "ls", "k")).await {
        Err(ClientError::Api {
            status: 401,
            code: ErrorCode::Unauthorized,
            ..
        }) => {}
        other => panic!("a bad token is 401 unauthorized, got {other:?}"),
    }
    match agent.pending().await {
        Err(ClientError::Api {
            status: 403,
            code: ErrorCode::Forbidden,
            ..
        }) => {}
        other => panic!("the requester may not list prompts, got {other:?}"),
    }
    match agent.metrics().await {
        Err(ClientError::Api {
            status: 403,
            code: ErrorCode::Forbidden,
            ..
        }) => {}
        other => panic!("metrics are for people, not the requester, got {other:?}"),
    }
    match agent.approval("no-such-approval", None).await {
        Err(ClientError::Api {
            status: 404,
            code: ErrorCode::NotFound,
            ..
        }) => {}
        other => panic!("an unknown approval is 404, got {other:?}"),
    }
    assert!(
        matches!(Client::new("ftp://x", "t"), Err(ClientError::Config(_))),
        "only http(s) URLs"
    );
    assert!(
        matches!(
            Client::new(&service.url, "a\r\nb"),
            Err(ClientError::Config(_))
        ),
        "a token cannot inject headers"
    );
    service.stop().await;
    assert!(
        matches!(agent.health().await, Err(ClientError::Unavailable(_))),
        "a stopped service is unavailable"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_service_times_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let _hold = std::thread::spawn(move || listener.incoming().flatten().collect::<Vec<_>>());
    let agent = Client::new(&url, "t").unwrap();
    let started = Instant::now();
    let result = agent.wait_settled("a1", Duration::from_millis(300)).await;
    assert!(
        matches!(result, Err(ClientError::Timeout)),
        "a service that never answers is a timeout: {result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "and the deadline is kept"
    );
    let sync = blocking::Client::new(&url, "t").unwrap();
    let result = sync.submit(
        &request("r", "ls", "k"),
        Instant::now() + Duration::from_millis(200),
    );
    assert!(
        matches!(result, Err(ClientError::Timeout)),
        "the blocking client keeps its deadline too: {result:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_reconnects_and_resumes_with_last_event_id() {
    let dir = tempfile::tempdir().unwrap();
    let service = start(dir.path(), "127.0.0.1:0").await;
    let addr = service.url.trim_start_matches("http://").to_owned();
    let (agent, desk) = (
        Client::new(&service.url, &service.requester).unwrap(),
        Client::new(&service.url, &service.approver).unwrap(),
    );
    let mut events = desk.events(None);
    assert_eq!(events.next().await, Some(StreamItem::Connected));
    agent
        .submit(&request("r2", "cargo test", "e1"))
        .await
        .unwrap();
    let Some(StreamItem::Event(seen)) = events.next().await else {
        panic!("first event")
    };

    service.stop().await;
    let Some(StreamItem::Disconnected(_)) = events.next().await else {
        panic!("the drop is reported")
    };
    // While the stream is down, something happens that it must not miss.
    let restarted = start(dir.path(), &addr).await;
    let agent = Client::new(&restarted.url, &restarted.requester).unwrap();
    agent
        .submit(&request("r2", "npm test", "e2"))
        .await
        .unwrap();
    let next = loop {
        match tokio::time::timeout(Duration::from_secs(20), events.next())
            .await
            .unwrap()
        {
            Some(StreamItem::Event(e)) => break e,
            Some(_) => continue,
            None => panic!("the stream never ends by itself"),
        }
    };
    assert!(
        next.id > seen.id,
        "resumed after the last id seen, not from the start: {} vs {}",
        next.id,
        seen.id
    );

    let blocking_agent = blocking::Client::new(&restarted.url, &restarted.requester).unwrap();
    let outcome = tokio::task::spawn_blocking(move || {
        blocking_agent.submit(
            &request("r2", "git status", "e3"),
            Instant::now() + Duration::from_secs(5),
        )
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        outcome.status,
        SubmitStatus::Allowed,
        "the blocking client speaks the same API"
    );
    restarted.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_paused_by_an_unanswered_prompt_is_listed_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let clock = std::sync::Arc::new(assent_server::FakeClock::new(chrono::Utc::now()));
    let mut config = assent_server::Config::new(dir.path(), assent_core::Policy::default());
    config.policy.fallback_on_timeout = assent_core::FallbackOnTimeout::Pause;
    config.clock = clock.clone();
    let service = start_with(config, "127.0.0.1:0").await;
    let agent = Client::new(&service.url, &service.requester).unwrap();
    let desk = Client::new(&service.url, &service.approver).unwrap();

    let asked = agent
        .submit(&request("r9", "cargo test", "p1"))
        .await
        .unwrap();
    let id = asked.approval_id.clone().unwrap();
    assert!(
        desk.paused_runs().await.unwrap().is_empty(),
        "nothing is paused while the prompt waits"
    );
    let expires_at = desk.approval(&id, None).await.unwrap().expires_at;
    clock.set(expires_at);
    // Reading the approval applies expiry (checked on every read), so no waiting is needed.
    let timed_out = desk.approval(&id, None).await.unwrap();
    assert_eq!(
        timed_out.status,
        ApprovalStatus::Expired,
        "nobody answered by expires_at"
    );
    let paused = desk.paused_runs().await.unwrap();
    assert_eq!(
        paused
            .iter()
            .map(|run| run.run_id.as_str())
            .collect::<Vec<_>>(),
        vec!["r9"],
        "the desk learns which run waits for a person"
    );
    assert!(
        matches!(
            agent.paused_runs().await,
            Err(ClientError::Api { status: 403, .. })
        ),
        "an agent may not list held runs"
    );
    let resumed = desk.resume_run("r9").await.unwrap();
    assert_eq!(
        resumed.status,
        assent_protocol::RunStatus::Running,
        "the approver resumes it"
    );
    assert!(
        desk.paused_runs().await.unwrap().is_empty(),
        "a resumed run is no longer listed"
    );
    assert!(
        matches!(
            desk.resume_run("r9").await,
            Err(ClientError::Api { status: 409, .. })
        ),
        "a running run cannot be resumed twice"
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_denial_is_listed_and_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let service = start(dir.path(), "127.0.0.1:0").await;
    let agent = Client::new(&service.url, &service.requester).unwrap();
    let desk = Client::new(&service.url, &service.approver).unwrap();

    let asked = agent
        .submit(&request("r7", "cargo test", "d1"))
        .await
        .unwrap();
    let id = asked.approval_id.unwrap();
    let deny = DecisionRequest::Deny {
        reason: "not on this branch".to_owned(),
    };
    desk.decide(&id, &deny).await.unwrap();
    assert!(
        desk.denials("r8").await.unwrap().is_empty(),
        "another run remembers nothing"
    );
    let again = agent
        .submit(&request("r7", "cargo test", "d2"))
        .await
        .unwrap();
    assert_eq!(
        (again.status, again.approval_id.as_deref()),
        (SubmitStatus::Denied, Some(id.as_str())),
        "the same action in the same run is denied at once, naming the person's denial"
    );

    let remembered = desk.denials("r7").await.unwrap();
    assert_eq!(
        remembered
            .iter()
            .map(|a| (a.approval_id.as_str(), a.decision_reason.as_deref()))
            .collect::<Vec<_>>(),
        vec![(id.as_str(), Some("not on this branch"))],
        "the run's remembered denial is listed with the person's reason"
    );
    assert!(
        matches!(
            agent.denials("r7").await,
            Err(ClientError::Api { status: 403, .. })
        ),
        "an agent may not list denials"
    );
    assert!(
        matches!(
            agent.forget_denial(&id).await,
            Err(ClientError::Api { status: 403, .. })
        ),
        "an agent may not undo a person's denial"
    );

    let forgotten = desk.forget_denial(&id).await.unwrap();
    assert_eq!(
        (forgotten.approval_id.as_str(), forgotten.status),
        (id.as_str(), ApprovalStatus::Denied),
        "undo answers the approval, still denied itself"
    );
    assert!(
        desk.denials("r7").await.unwrap().is_empty(),
        "a forgotten denial is no longer remembered"
    );
    match desk.forget_denial(&id).await {
        Err(ClientError::Api {
            status: 409,
            code: ErrorCode::Conflict,
            ..
        }) => {}
        other => panic!("forgetting twice is a conflict, got {other:?}"),
    }
    match desk.forget_denial("no-such-approval").await {
        Err(ClientError::Api { status: 404, .. }) => {}
        other => panic!("an unknown approval is 404, got {other:?}"),
    }
    let asked_again = agent
        .submit(&request("r7", "cargo test", "d3"))
        .await
        .unwrap();
    assert_eq!(
        asked_again.status,
        SubmitStatus::Pending,
        "after undo the same action asks a person again"
    );
    service.stop().await;
}
