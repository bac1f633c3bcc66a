//! Reachable by a team: the `--public-url` host passes the Host check (and nothing else new
//! does), the service speaks TLS with a PEM certificate and key, and unusable files are named.

use crate::common;
use std::path::Path;
use std::sync::Arc;

use crate::common::Service;
use assent_core::Policy;
use assent_server::{App, Config, PublicUrl, ServerTls, TlsError};
use reqwest::header::{ACCESS_CONTROL_ALLOW_ORIGIN, HOST, ORIGIN};
use reqwest::StatusCode;
use tokio::sync::oneshot;

const TEAM_HOST: &str = "team.assent.test";

/// A self-signed certificate for the team host and loopback, written as PEM files.
struct TestCert {
    dir: tempfile::TempDir,
    pem: String,
}

impl TestCert {
    fn new() -> TestCert {
        let made = rcgen::generate_simple_self_signed(vec![
            TEAM_HOST.to_owned(),
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
        ])
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let pem = made.cert.pem();
        std::fs::write(dir.path().join("cert.pem"), &pem).unwrap();
        std::fs::write(dir.path().join("key.pem"), made.signing_key.serialize_pem()).unwrap();
        TestCert { dir, pem }
    }

    fn cert(&self) -> std::path::PathBuf {
        self.dir.path().join("cert.pem")
    }

    fn key(&self) -> std::path::PathBuf {
        self.dir.path().join("key.pem")
    }

    fn tls(&self) -> ServerTls {
        ServerTls::load(&self.cert(), &self.key()).unwrap()
    }
}

/// A TLS service on loopback whose public URL names the team host on the service's port.
struct TlsService {
    port: u16,
    requester: String,
    stop: oneshot::Sender<()>,
    served: tokio::task::JoinHandle<Result<(), assent_server::LaunchError>>,
}

async fn start_tls(cert: &TestCert) -> TlsService {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut config = Config::new(dir.path(), Policy::default());
    config.public_url = Some(PublicUrl::parse(&format!("https://{TEAM_HOST}:{port}")).unwrap());
    config.tls = Some(cert.tls());
    let app = App::open(config).await.unwrap();
    let token = app.tokens().unwrap().requester.clone();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        let _dir = dir;
        app.serve(listener, async move {
            let _ = stopped.await;
        })
        .await
    });
    TlsService {
        port,
        requester: token,
        stop,
        served,
    }
}

#[tokio::test]
async fn the_public_host_is_served_and_every_other_host_still_refused() {
    let svc = Service::start_with(|config| {
        config.public_url = Some(PublicUrl::parse(&format!("https://{TEAM_HOST}")).unwrap());
    })
    .await;
    let status = |host: String| {
        let req = svc
            .http
            .get(format!("{}/healthz", svc.url))
            .header(HOST, host);
        async move { req.send().await.unwrap().status() }
    };
    let cases = [
        (
            TEAM_HOST.to_owned(),
            StatusCode::OK,
            "the public host, default https port",
        ),
        (
            format!("{TEAM_HOST}:443"),
            StatusCode::OK,
            "the public host with its port spelled out",
        ),
        (
            "TEAM.Assent.TEST".to_owned(),
            StatusCode::OK,
            "host names are case-insensitive",
        ),
        (
            format!("127.0.0.1:{}", svc.port),
            StatusCode::OK,
            "loopback stays served",
        ),
        (
            format!("{TEAM_HOST}:{}", svc.port),
            StatusCode::MISDIRECTED_REQUEST,
            "the public host on another port",
        ),
        (
            format!("{TEAM_HOST}:80"),
            StatusCode::MISDIRECTED_REQUEST,
            "the public host on the http port",
        ),
        (
            format!("{TEAM_HOST}.evil.example"),
            StatusCode::MISDIRECTED_REQUEST,
            "a name that only starts like it",
        ),
        (
            "evil.example".to_owned(),
            StatusCode::MISDIRECTED_REQUEST,
            "a foreign host (DNS rebinding)",
        ),
        (
            "127.0.0.1".to_owned(),
            StatusCode::MISDIRECTED_REQUEST,
            "loopback without the service's port",
        ),
    ];
    for (host, want, why) in cases {
        assert_eq!(status(host.clone()).await, want, "Host {host}: {why}");
    }

    let resp = svc
        .http
        .get(format!("{}/v1/grants", svc.url))
        .bearer_auth(&svc.approver)
        .header(HOST, TEAM_HOST)
        .header(ORIGIN, format!("https://{TEAM_HOST}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::FORBIDDEN,
        "a browser Origin is refused even from the public host itself"
    );
    let resp = svc
        .http
        .get(format!("{}/v1/grants", svc.url))
        .bearer_auth(&svc.approver)
        .header(HOST, TEAM_HOST)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "the public host reaches the API with a token"
    );
    assert!(
        resp.headers().get(ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
        "still no CORS header on the public host"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_public_url_with_a_port_needs_that_port_in_host() {
    let svc = Service::start_with(|config| {
        config.public_url = Some(PublicUrl::parse(&format!("https://{TEAM_HOST}:8443")).unwrap());
    })
    .await;
    for (host, want) in [
        (format!("{TEAM_HOST}:8443"), StatusCode::OK),
        (TEAM_HOST.to_owned(), StatusCode::MISDIRECTED_REQUEST),
        (format!("{TEAM_HOST}:443"), StatusCode::MISDIRECTED_REQUEST),
    ] {
        let got = svc
            .http
            .get(format!("{}/healthz", svc.url))
            .header(HOST, &host)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(
            got, want,
            "Host {host}: the public URL's port is part of its name"
        );
    }
    svc.stop().await;
}

#[tokio::test]
async fn a_tls_service_answers_at_its_public_name_and_only_over_tls() {
    let cert = TestCert::new();
    let svc = start_tls(&cert).await;
    let (port, token) = (svc.port, svc.requester.clone());
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let trusting = reqwest::Client::builder()
        .resolve(TEAM_HOST, loopback)
        .add_root_certificate(reqwest::Certificate::from_pem(cert.pem.as_bytes()).unwrap())
        .build()
        .unwrap();

    let resp = trusting
        .get(format!("https://{TEAM_HOST}:{port}/v1/me"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "the team reaches the service by its public name over TLS"
    );
    let me: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(
        me["name"], "default",
        "the agent token works over TLS as over loopback"
    );

    let resp = trusting
        .get(format!("https://localhost:{port}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "loopback names stay served on a TLS service"
    );

    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await;
    assert!(
        plain.map(|r| r.status() != StatusCode::OK).unwrap_or(true),
        "plain HTTP to the TLS port gets no answer from the API"
    );

    let untrusting = reqwest::Client::builder()
        .resolve(TEAM_HOST, loopback)
        .build()
        .unwrap();
    let refused = untrusting
        .get(format!("https://{TEAM_HOST}:{port}/healthz"))
        .send()
        .await;
    assert!(
        refused.is_err(),
        "a client that does not trust the certificate is not served"
    );

    // After refused handshakes, the listener still serves the next client.
    let resp = trusting
        .get(format!("https://{TEAM_HOST}:{port}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "failed handshakes do not stop the listener"
    );

    // A client holding an unfinished handshake does not hold up the shutdown either.
    let _silent = tokio::net::TcpStream::connect(loopback).await.unwrap();
    svc.stop.send(()).unwrap();
    let stopped = tokio::time::timeout(std::time::Duration::from_secs(30), svc.served).await;
    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "the TLS service shuts down gracefully and closes its store: {stopped:?}"
    );
}

fn load_error(cert: &Path, key: &Path) -> String {
    match ServerTls::load(cert, key) {
        Ok(_) => panic!("{} + {} must not load", cert.display(), key.display()),
        Err(err) => err.to_string(),
    }
}

#[test]
fn unusable_certificate_and_key_files_are_named() {
    let good = TestCert::new();
    let other = TestCert::new();
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "this is not PEM at all\n").unwrap();
    let truncated = dir.path().join("truncated.pem");
    std::fs::write(&truncated, &good.pem[..good.pem.len() / 2]).unwrap();
    let missing = dir.path().join("missing.pem");

    let cases: [(&Path, &Path, &Path, &str); 6] = [
        (&missing, &good.key(), &missing, "cannot read"),
        (&good.cert(), &missing, &missing, "cannot read"),
        (&garbage, &good.key(), &garbage, "no PEM certificate"),
        (
            &truncated,
            &good.key(),
            &truncated,
            "not a valid PEM certificate",
        ),
        (&good.cert(), &garbage, &garbage, "no PEM private key"),
        (
            &good.cert(),
            &good.cert(),
            &good.cert(),
            "no PEM private key",
        ),
    ];
    for (cert, key, named, says) in cases {
        let message = load_error(cert, key);
        assert!(
            message.contains(&named.display().to_string()) && message.contains(says),
            "the error names the file at fault ({}) and says what is wrong ({says}): {message}",
            named.display()
        );
    }

    let message = load_error(&good.cert(), &other.key());
    assert!(
        message.contains(&good.cert().display().to_string())
            && message.contains(&other.key().display().to_string()),
        "a key of another certificate names both files: {message}"
    );
    assert!(
        matches!(
            ServerTls::load(&good.cert(), &other.key()),
            Err(TlsError::Mismatch { .. })
        ),
        "a key of another certificate is a mismatch, not a read error"
    );
}

#[tokio::test]
async fn an_agent_calling_approver_routes_by_the_team_host_is_blocked() {
    let svc = Service::start_with(|config| {
        config.public_url = Some(PublicUrl::parse(&format!("https://{TEAM_HOST}")).unwrap());
    })
    .await;
    let cases = [
        format!("curl -s https://{TEAM_HOST}/v1/people"),
        format!("curl -X POST https://{TEAM_HOST}/v1/agents -d @agent.json"),
        format!("wget -qO- https://{TEAM_HOST}:443/v1/grants"),
    ];
    for command in cases {
        let answer = svc
            .submit(&common::shell("r-team", &command, "trusted", None))
            .await;
        assert_eq!(
            answer["status"], "blocked",
            "behind a proxy on 443 the team host's approver routes are still Assent's: {command} → {answer}"
        );
    }
    let other = svc
        .submit(&common::shell(
            "r-team",
            "curl -s https://api.example.com/v1/people",
            "trusted",
            None,
        ))
        .await;
    assert_ne!(
        other["status"], "blocked",
        "another host's /v1/people is not Assent's route: {other}"
    );
    svc.stop().await;
}
