//! A recording proxy in front of a real `assent serve`: it forwards every call unchanged
//! (the Host rewritten to the service's, which checks it) and keeps the body of each
//! `POST /v1/actions` and `POST /v1/actions/screen` (Codex's PreToolUse), so a test sees
//! exactly the request that reached the service.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::Value;

pub struct Tap {
    pub url: String,
    actions: Arc<Mutex<Vec<Value>>>,
}

impl Tap {
    /// A proxy to `upstream` (`http://127.0.0.1:PORT`) on a free port.
    pub fn start(upstream: &str) -> Tap {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let actions = Arc::new(Mutex::new(Vec::new()));
        let seen = actions.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let upstream = upstream.clone();
                let seen = seen.clone();
                std::thread::spawn(move || forward(client, &upstream, &seen));
            }
        });
        Tap { url, actions }
    }

    /// Every action request submitted so far, in order.
    pub fn actions(&self) -> Vec<Value> {
        self.actions.lock().unwrap().clone()
    }

    /// The last action request submitted.
    pub fn last(&self) -> Value {
        self.actions()
            .pop()
            .expect("an action request reached the service")
    }
}

fn forward(client: TcpStream, upstream: &str, seen: &Mutex<Vec<Value>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut head = Vec::new();
    let mut length = 0usize;
    let mut first = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if first.is_empty() {
            first = line.clone();
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("host:") {
            line = format!("Host: {upstream}\r\n");
        }
        let end = line == "\r\n";
        head.extend_from_slice(line.as_bytes());
        if end {
            break;
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    if first.starts_with("POST /v1/actions ") || first.starts_with("POST /v1/actions/screen ") {
        if let Ok(value) = serde_json::from_slice(&body) {
            seen.lock().unwrap().push(value);
        }
    }
    let mut server = TcpStream::connect(upstream).unwrap();
    server.write_all(&head).unwrap();
    server.write_all(&body).unwrap();
    let mut back = client;
    let _ = std::io::copy(&mut server, &mut back);
}
