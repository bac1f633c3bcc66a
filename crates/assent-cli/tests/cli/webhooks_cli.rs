//! `assent webhooks add|list|remove|deliveries` against a real `assent serve` (SQLite): a
//! platform admin registers a receiver on loopback, a person's decision reaches it signed,
//! the deliveries are listed with their attempts; agents and bad URLs get the documented exit
//! codes.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::gate_support::*;

fn assent(args: &[&str], url: &str, token: &str) -> Ran {
    let child = Command::new(BIN)
        .args(args)
        .env("ASSENT_URL", url)
        .env("ASSENT_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child)
}

/// One HTTP request a receiver got: its head (lower-cased) and its body.
struct Got {
    head: String,
    body: String,
}

/// A receiver on a free loopback port answering 200 to every request.
fn receiver() -> (u16, mpsc::Receiver<Got>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut raw = Vec::new();
            let mut buf = [0u8; 4096];
            let (head, mut body) = loop {
                let n = stream.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break (String::from_utf8_lossy(&raw).to_lowercase(), Vec::new());
                }
                raw.extend_from_slice(&buf[..n]);
                if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&raw[..end]).to_lowercase();
                    break (head, raw[end + 4..].to_vec());
                }
            };
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while body.len() < length {
                let n = stream.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&buf[..n]);
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = tx.send(Got {
                head,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
    });
    (port, rx)
}

#[test]
fn an_admin_registers_a_webhook_and_a_decision_reaches_it() {
    let service = Service::start();
    let (url, admin, agent) = (
        service.url.as_str(),
        service.approver.as_str(),
        service.requester.as_str(),
    );
    let (port, got) = receiver();
    let hook = format!("http://127.0.0.1:{port}/hook");

    let added = assent(
        &["webhooks", "add", &hook, "--event", "approval.settled"],
        url,
        admin,
    );
    assert_eq!(added.code, 0, "the owner registers it: {}", added.stderr);
    let field = |name: &str| {
        added
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| panic!("{name} is printed: {}", added.stdout))
    };
    let (id, secret) = (field("id "), field("secret "));
    assert!(
        secret.starts_with("whsec_"),
        "the secret, shown once: {secret}"
    );

    let refused = assent(&["webhooks", "add", &hook], url, agent);
    assert_eq!(refused.code, 1, "an agent cannot: {}", refused.stderr);
    let bad = assent(
        &["webhooks", "add", "http://hooks.example.com/x"],
        url,
        admin,
    );
    assert_eq!(
        bad.code, 2,
        "plain http off loopback is bad input: {}",
        bad.stderr
    );
    assert!(
        bad.stderr.contains("https://"),
        "and says why: {}",
        bad.stderr
    );

    let listed = assent(&["webhooks", "list"], url, admin);
    assert_eq!(listed.code, 0, "listed: {}", listed.stderr);
    assert!(
        listed.stdout.contains(&id) && listed.stdout.contains(&hook),
        "the list names it: {}",
        listed.stdout
    );
    assert!(
        !listed.stdout.contains("whsec_"),
        "never the secret: {}",
        listed.stdout
    );

    let asking = Command::new(BIN)
        .args([
            "request", "--run", "r-hook", "--wait", "60", "--", "mvn", "-B", "test",
        ])
        .env("ASSENT_URL", url)
        .env("ASSENT_TOKEN", agent)
        .env_remove("ASSENT_RUN_ID")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pending = wait_pending(&service, 1);
    approve(
        &service,
        &pending[0].approval_id,
        assent_core::ScopeKind::Run,
    );
    let asked = finish(asking);
    assert_eq!(asked.code, 0, "the request is allowed: {}", asked.stderr);

    let delivery = got
        .recv_timeout(Duration::from_secs(30))
        .expect("the decision is delivered");
    assert!(
        delivery.head.starts_with("post /hook"),
        "posted to the hook's path: {}",
        delivery.head
    );
    for header in [
        "webhook-id: msg_",
        "webhook-timestamp:",
        "webhook-signature: v1,",
    ] {
        assert!(
            delivery.head.contains(header),
            "{header} is sent: {}",
            delivery.head
        );
    }
    let body: serde_json::Value = serde_json::from_str(&delivery.body).unwrap();
    assert_eq!(body["type"], "approval.settled", "the settlement: {body}");
    assert_eq!(
        body["data"]["approval_id"],
        pending[0].approval_id.as_str(),
        "of that prompt: {body}"
    );

    let mut shown = String::new();
    for _ in 0..100 {
        let ran = assent(&["webhooks", "deliveries", &id], url, admin);
        assert_eq!(ran.code, 0, "deliveries are listed: {}", ran.stderr);
        shown = ran.stdout;
        if shown.contains("delivered") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        shown.contains("approval.settled") && shown.contains("delivered") && shown.contains("200"),
        "one delivery, delivered with a 200: {shown}"
    );

    let removed = assent(&["webhooks", "remove", &id], url, admin);
    assert_eq!(removed.code, 0, "removed: {}", removed.stderr);
    let again = assent(&["webhooks", "remove", &id], url, admin);
    assert_eq!(again.code, 1, "an unknown id is refused: {}", again.stderr);
    let listed = assent(&["webhooks", "list"], url, admin);
    assert_eq!(listed.stdout, "no webhooks", "none left: {}", listed.stdout);
}
