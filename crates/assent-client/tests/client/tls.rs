//! Both clients against a real in-process TLS service (self-signed certificate made here):
//! they are served when told to trust its certificate, refuse it with a clear error when not,
//! and name an unusable CA file; loopback `http://` works as before.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use assent_client::{blocking, Client, ClientError, StreamItem, Trust, CA_FILE_ENV};
use assent_core::{ActionRequest, ScopeKind};
use assent_protocol::{DecisionRequest, Event, SubmitStatus};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::oneshot;

struct TlsService {
    port: u16,
    requester: String,
    approver: String,
    /// The service's self-signed certificate: the CA a client must trust.
    ca_file: PathBuf,
    _dir: tempfile::TempDir,
    _stop: oneshot::Sender<()>,
}

async fn start_tls() -> TlsService {
    let dir = tempfile::tempdir().unwrap();
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    let cert = dir.path().join("cert.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let mut config = assent_server::Config::new(dir.path().join("data"), Default::default());
    config.tls = Some(assent_server::ServerTls::load(&cert, &key).unwrap());
    start(config, dir, cert).await
}

async fn start(
    config: assent_server::Config,
    dir: tempfile::TempDir,
    ca_file: PathBuf,
) -> TlsService {
    let app = assent_server::App::open(config).await.unwrap();
    let tokens = app.tokens().unwrap().clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    TlsService {
        port,
        requester: tokens.requester,
        approver: tokens.approver,
        ca_file,
        _dir: dir,
        _stop: stop,
    }
}

fn request(command: &str, key: &str) -> ActionRequest {
    serde_json::from_value(json!({
        "run_id": "tls-run", "task_id": "t1", "requested_by": "agent", "idempotency_key": key,
        "action": {"kind": "shell", "command": command, "cwd": "/tmp"},
        "reason": "test"
    }))
    .unwrap()
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_clients_are_served_over_tls_when_they_trust_the_ca() {
    let svc = start_tls().await;
    let url = format!("https://localhost:{}", svc.port);
    let trust = Trust {
        ca_file: Some(svc.ca_file.clone()),
    };
    let agent = Client::with_trust(&url, &svc.requester, &trust).unwrap();
    let desk = Client::with_trust(&url, &svc.approver, &trust).unwrap();

    let me = desk.me().await.unwrap();
    assert_eq!(me.name, "owner", "the desk's person token works over TLS");
    let auto = agent.submit(&request("git status", "k1")).await.unwrap();
    assert_eq!(
        auto.status,
        SubmitStatus::Allowed,
        "the async client submits over TLS"
    );

    let mut events = desk.events(None);
    assert_eq!(
        events.next().await,
        Some(StreamItem::Connected),
        "the desk's event stream connects over TLS"
    );

    // The gate's blocking client, by IP address this time (the certificate names it too).
    let gate = blocking::Client::with_trust(
        &format!("https://127.0.0.1:{}", svc.port),
        &svc.requester,
        &trust,
    )
    .unwrap();
    gate.health(soon()).unwrap();
    let asked = tokio::task::spawn_blocking(move || {
        let asked = gate.submit(&request("cargo test", "k2"), soon()).unwrap();
        (gate, asked)
    })
    .await
    .unwrap();
    let (gate, asked) = asked;
    assert_eq!(
        asked.status,
        SubmitStatus::Pending,
        "the blocking client submits over TLS and gets the prompt"
    );
    let id = asked.approval_id.clone().unwrap();
    let Some(StreamItem::Event(event)) = events.next().await else {
        panic!("the prompt reaches the desk's stream")
    };
    assert!(
        matches!(event.event, Event::ApprovalRequested { .. }),
        "the desk hears the prompt over TLS: {event:?}"
    );

    let waiting = {
        let id = id.clone();
        tokio::task::spawn_blocking(move || gate.wait_settled(&id, soon()))
    };
    let decision = DecisionRequest::Approve {
        scope: ScopeKind::Once,
        expires_in_seconds: 600,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    desk.decide(&id, &decision).await.unwrap();
    let settled = waiting.await.unwrap().unwrap();
    assert!(
        assent_client::is_settled(&settled),
        "the gate's long poll over TLS returns the decision: {settled:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_is_refused_with_a_clear_error() {
    let svc = start_tls().await;
    let url = format!("https://localhost:{}", svc.port);
    let system_only = Trust::default();

    let agent = Client::with_trust(&url, &svc.requester, &system_only).unwrap();
    match agent.submit(&request("git status", "k1")).await {
        Err(ClientError::Unavailable(message)) => assert!(
            message.contains("certificate") && message.contains(CA_FILE_ENV),
            "the async client says the certificate is not trusted and what to set: {message}"
        ),
        other => panic!("an untrusted service is unavailable, never an answer: {other:?}"),
    }

    let gate = blocking::Client::with_trust(&url, &svc.requester, &system_only).unwrap();
    let result = tokio::task::spawn_blocking(move || gate.submit(&request("ls", "k2"), soon()))
        .await
        .unwrap();
    match result {
        Err(ClientError::Unavailable(message)) => assert!(
            message.contains("certificate") && message.contains(CA_FILE_ENV),
            "the gate's client says the certificate is not trusted and what to set: {message}"
        ),
        other => panic!("the gate must fail closed on an untrusted service: {other:?}"),
    }

    let plain = blocking::Client::new(&format!("http://127.0.0.1:{}", svc.port), "t").unwrap();
    let result = tokio::task::spawn_blocking(move || plain.health(soon()))
        .await
        .unwrap();
    assert!(
        result.is_err(),
        "plain http:// to a TLS service gets no answer to trust: {result:?}"
    );
}

#[test]
fn an_unusable_ca_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("not-a-ca.pem");
    std::fs::write(&garbage, "hello\n").unwrap();
    let missing = dir.path().join("missing.pem");
    for file in [garbage, missing] {
        let trust = Trust {
            ca_file: Some(file.clone()),
        };
        let blocking = blocking::Client::with_trust("https://localhost:1", "t", &trust);
        let asynchronous = Client::with_trust("https://localhost:1", "t", &trust);
        for (which, result) in [("blocking", blocking.err()), ("async", asynchronous.err())] {
            match result {
                Some(ClientError::Config(message)) => assert!(
                    message.contains(CA_FILE_ENV) && message.contains(&file.display().to_string()),
                    "the {which} client names the variable and the file: {message}"
                ),
                other => panic!(
                    "{} is a configuration error before any call: {other:?}",
                    file.display()
                ),
            }
        }
    }
    assert!(
        blocking::Client::with_trust(
            "http://127.0.0.1:1",
            "t",
            &Trust {
                ca_file: Some(dir.path().join("missing.pem")),
            }
        )
        .is_ok(),
        "a loopback http:// client never reads the CA file: no TLS set-up on the gate's fast path"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_http_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let config = assent_server::Config::new(dir.path().join("data"), Default::default());
    let svc = start(config, dir, PathBuf::new()).await;
    let url = format!("http://127.0.0.1:{}", svc.port);
    let agent = Client::new(&url, &svc.requester).unwrap();
    assert_eq!(
        agent
            .submit(&request("git status", "k1"))
            .await
            .unwrap()
            .status,
        SubmitStatus::Allowed,
        "the async client speaks plain http on loopback"
    );
    let gate = blocking::Client::new(&url, &svc.requester).unwrap();
    let answer = tokio::task::spawn_blocking(move || gate.submit(&request("ls", "k2"), soon()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        answer.status,
        SubmitStatus::Allowed,
        "the gate's client speaks plain http on loopback"
    );
}
