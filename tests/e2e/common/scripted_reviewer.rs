//! A scripted model reviewer for the desk's e2e suites (issue 44): a Chat Completions server
//! on loopback that answers every call with one verdict, and a closed loopback port.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A Chat Completions server on loopback answering every call with one verdict (`outcome`,
/// low risk, `rationale`) after `delay`; its base URL.
/// Plain HTTP/1.1, one request per connection, as the service's client sends it.
pub async fn scripted_reviewer(outcome: &str, rationale: &str, delay: Duration) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    let verdict = serde_json::json!({
        "outcome": outcome, "risk": "low", "user_authorized": "unclear", "rationale": rationale,
    })
    .to_string();
    let body = serde_json::json!({
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": verdict}}],
    })
    .to_string();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 8192];
                // The head, then as much body as it announces.
                loop {
                    let Ok(n) = conn.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                let (name, value) = l.split_once(':')?;
                                name.eq_ignore_ascii_case("content-length")
                                    .then(|| value.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                tokio::time::sleep(delay).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(answer.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// A loopback port nothing listens on: every call to it fails at once.
pub async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}
