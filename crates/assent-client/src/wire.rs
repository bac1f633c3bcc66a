//! A lean HTTP/1.1 exchange over `std::net::TcpStream`: one request, `Connection: close`,
//! bounded by an absolute deadline. The gate runs once per tool call, so it must not pay
//! for a runtime, a connection pool or TLS roots it never uses: TLS (rustls, blocking) is
//! set up only for an `https://` endpoint.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::{ClientConnection, StreamOwned};
use serde::de::DeserializeOwned;

use crate::config::{Endpoint, Scheme};
use crate::error::ClientError;

/// Largest answer the client accepts; anything bigger is malformed.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// One HTTP request.
pub struct Exchange<'a> {
    pub method: &'a str,
    /// Path and query, already percent-encoded.
    pub target: &'a str,
    pub token: &'a str,
    pub body: Option<&'a [u8]>,
    pub deadline: Instant,
}

/// A connected socket, plain or TLS, whose TCP socket carries the deadline.
trait Socket: Read + Write {
    fn tcp(&self) -> &TcpStream;
}

impl Socket for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Socket for StreamOwned<ClientConnection, TcpStream> {
    fn tcp(&self) -> &TcpStream {
        &self.sock
    }
}

/// Sends the request and returns the status and the (de-chunked) body. `tls` is the client
/// configuration for an `https://` endpoint (unused for `http://`).
pub fn exchange(
    endpoint: &Endpoint,
    tls: Option<&Arc<rustls::ClientConfig>>,
    req: &Exchange<'_>,
) -> Result<(u16, Vec<u8>), ClientError> {
    let stream = connect(endpoint, req.deadline)?;
    let head = request_head(endpoint, req);
    let mut out = head.into_bytes();
    if let Some(body) = req.body {
        out.extend_from_slice(body);
    }
    let raw = match endpoint.scheme {
        Scheme::Http => talk(stream, &out, req.deadline, io_error)?,
        Scheme::Https => {
            let config = tls.ok_or_else(|| {
                ClientError::Config("an https:// endpoint without a TLS configuration".into())
            })?;
            let name = ServerName::try_from(endpoint.host.clone()).map_err(|err| {
                ClientError::Config(format!("{} is not a TLS server name: {err}", endpoint.host))
            })?;
            let connection = ClientConnection::new(config.clone(), name)
                .map_err(|err| ClientError::Config(format!("TLS set-up: {err}")))?;
            let tls_error = |err| tls_io_error(endpoint, err);
            talk(
                StreamOwned::new(connection, stream),
                &out,
                req.deadline,
                tls_error,
            )?
        }
    };
    parse_response(&raw)
}

/// Writes the request and reads the answer: up to its `Content-Length` (or the last chunk),
/// else to the end of the connection. Waiting for the service to close the connection after a
/// complete answer would only add its teardown to every tool call.
fn talk<S: Socket>(
    mut stream: S,
    out: &[u8],
    deadline: Instant,
    io_error: impl Fn(std::io::Error) -> ClientError,
) -> Result<Vec<u8>, ClientError> {
    set_timeouts(stream.tcp(), deadline)?;
    stream.write_all(out).map_err(&io_error)?;
    stream.flush().map_err(&io_error)?;
    let mut raw = Vec::with_capacity(4096);
    let mut chunk = [0u8; 16 * 1024];
    loop {
        set_timeouts(stream.tcp(), deadline)?;
        let n = stream.read(&mut chunk).map_err(&io_error)?;
        if n == 0 {
            return Ok(raw);
        }
        raw.extend_from_slice(chunk.get(..n).unwrap_or_default());
        if raw.len() > MAX_RESPONSE_BYTES {
            return Err(ClientError::Malformed(format!(
                "answer larger than {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        if is_complete(&raw) {
            return Ok(raw);
        }
    }
}

/// Whether `raw` already holds a whole answer: its header and as many body bytes as its
/// `Content-Length` says, or a chunked body through its last chunk. Without either (an answer
/// delimited by the connection's end), only the end says.
fn is_complete(raw: &[u8]) -> bool {
    let Some(split) = find(raw, b"\r\n\r\n") else {
        return false;
    };
    let Ok(head) = std::str::from_utf8(raw.get(..split).unwrap_or_default()) else {
        return false;
    };
    let body = raw.get(split + 4..).unwrap_or_default();
    for line in head.split("\r\n").skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            return value.parse::<usize>().is_ok_and(|n| body.len() >= n);
        }
        if name.eq_ignore_ascii_case("transfer-encoding")
            && value.to_ascii_lowercase().contains("chunked")
        {
            return body.ends_with(b"0\r\n\r\n") && dechunk(body).is_ok();
        }
    }
    false
}

/// A failed TLS exchange: a refused certificate says so, and where trust comes from.
fn tls_io_error(endpoint: &Endpoint, err: std::io::Error) -> ClientError {
    match err.kind() {
        std::io::ErrorKind::InvalidData => ClientError::Unavailable(format!(
            "TLS with {}: {}",
            endpoint.authority(),
            crate::tls::explain(&err)
        )),
        _ => io_error(err),
    }
}

fn request_head(endpoint: &Endpoint, req: &Exchange<'_>) -> String {
    let mut head = format!(
        "{} {}{} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nAccept: application/json\r\nConnection: close\r\n",
        req.method,
        endpoint.prefix,
        req.target,
        endpoint.authority(),
        req.token
    );
    if let Some(body) = req.body {
        head.push_str("Content-Type: application/json\r\n");
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    } else if req.method == "POST" {
        head.push_str("Content-Length: 0\r\n");
    }
    head.push_str("\r\n");
    head
}

fn remaining(deadline: Instant) -> Result<Duration, ClientError> {
    match deadline.checked_duration_since(Instant::now()) {
        Some(left) if !left.is_zero() => Ok(left),
        _ => Err(ClientError::Timeout),
    }
}

fn connect(endpoint: &Endpoint, deadline: Instant) -> Result<TcpStream, ClientError> {
    let addrs: Vec<SocketAddr> = (endpoint.host.as_str(), endpoint.port)
        .to_socket_addrs()
        .map_err(|err| ClientError::Unavailable(format!("resolve {}: {err}", endpoint.host)))?
        .collect();
    let mut last = ClientError::Unavailable(format!("no address for {}", endpoint.host));
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, remaining(deadline)?) {
            Ok(stream) => {
                stream.set_nodelay(true).map_err(io_error)?;
                return Ok(stream);
            }
            Err(err) => last = io_error(err),
        }
    }
    Err(last)
}

fn set_timeouts(stream: &TcpStream, deadline: Instant) -> Result<(), ClientError> {
    let left = remaining(deadline)?;
    stream.set_read_timeout(Some(left)).map_err(io_error)?;
    stream.set_write_timeout(Some(left)).map_err(io_error)
}

fn io_error(err: std::io::Error) -> ClientError {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => ClientError::Timeout,
        _ => ClientError::Unavailable(err.to_string()),
    }
}

/// Decodes a 2xx body as `T`; anything else is an API error or malformed.
pub(crate) fn decode<T: DeserializeOwned>(status: u16, bytes: &[u8]) -> Result<T, ClientError> {
    if (200..300).contains(&status) {
        serde_json::from_slice(bytes)
            .map_err(|err| ClientError::Malformed(format!("status {status}: {err}")))
    } else {
        Err(ClientError::from_status(status, bytes))
    }
}

/// Parses a full HTTP/1.1 response (status line, headers, body by length or chunks).
pub fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), ClientError> {
    let split = find(raw, b"\r\n\r\n")
        .ok_or_else(|| ClientError::Malformed("no complete HTTP header".into()))?;
    let (head, rest) = raw.split_at(split);
    let body = rest.get(4..).unwrap_or_default();
    let head = std::str::from_utf8(head)
        .map_err(|_| ClientError::Malformed("HTTP header is not UTF-8".into()))?;
    let mut lines = head.split("\r\n");
    let status = parse_status_line(lines.next().unwrap_or_default())?;
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| ClientError::Malformed(format!("bad header line {line:?}")))?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let n: usize = value
                .parse()
                .map_err(|_| ClientError::Malformed(format!("bad Content-Length {value:?}")))?;
            length = Some(n);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        }
    }
    let body = if chunked {
        dechunk(body)?
    } else if let Some(n) = length {
        body.get(..n)
            .ok_or_else(|| ClientError::Malformed("answer shorter than its Content-Length".into()))?
            .to_vec()
    } else {
        body.to_vec()
    };
    Ok((status, body))
}

fn parse_status_line(line: &str) -> Result<u16, ClientError> {
    let mut parts = line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let code = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(ClientError::Malformed(format!("bad status line {line:?}")));
    }
    code.parse::<u16>()
        .ok()
        .filter(|c| (100..600).contains(c))
        .ok_or_else(|| ClientError::Malformed(format!("bad status line {line:?}")))
}

fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, ClientError> {
    let mut out = Vec::with_capacity(body.len());
    loop {
        let eol = find(body, b"\r\n")
            .ok_or_else(|| ClientError::Malformed("truncated chunk size".into()))?;
        let (size_line, rest) = body.split_at(eol);
        let size_text = std::str::from_utf8(size_line).unwrap_or_default();
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ClientError::Malformed(format!("bad chunk size {size_text:?}")))?;
        let rest = rest.get(2..).unwrap_or_default();
        if size == 0 {
            return Ok(out);
        }
        let data = rest
            .get(..size)
            .ok_or_else(|| ClientError::Malformed("truncated chunk".into()))?;
        out.extend_from_slice(data);
        body = rest
            .get(size..)
            .and_then(|r| r.strip_prefix(b"\r\n"))
            .ok_or_else(|| ClientError::Malformed("chunk without CRLF".into()))?;
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Percent-encodes one path segment (ids from agents are untrusted).
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_length_and_chunked_bodies() {
        let plain = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}trailing";
        assert_eq!(
            parse_response(plain).ok(),
            Some((200, b"{}".to_vec())),
            "Content-Length bounds the body"
        );
        let chunked = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n";
        assert_eq!(
            parse_response(chunked).ok(),
            Some((201, b"{\"a\":1}".to_vec())),
            "chunks are joined, extensions ignored"
        );
    }

    #[test]
    fn refuses_broken_answers() {
        let cases: [&[u8]; 7] = [
            b"",
            b"HTTP/1.1 200 OK\r\n",
            b"SMTP 220 hello\r\n\r\n",
            b"HTTP/1.1 999 What\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        ];
        for raw in cases {
            assert!(
                matches!(parse_response(raw), Err(ClientError::Malformed(_))),
                "{:?} must be malformed, not a success",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn knows_when_an_answer_is_whole() {
        let rows: [(&[u8], bool, &str); 7] = [
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
                true,
                "length reached",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}",
                false,
                "body still short",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-len",
                false,
                "header not finished",
            ),
            (
                b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                true,
                "last chunk read",
            ),
            (
                b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n",
                false,
                "more chunks may come",
            ),
            (
                b"HTTP/1.1 200 OK\r\n\r\n{}",
                false,
                "no length: only the end says",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n{}",
                false,
                "a bad length waits for the end, whose parse then refuses it",
            ),
        ];
        for (raw, whole, why) in rows {
            assert_eq!(
                is_complete(raw),
                whole,
                "{why}: {:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    /// A service that answers in full but keeps the connection open: the client returns the
    /// answer at once instead of waiting (until its deadline) for the connection to close.
    #[test]
    fn a_whole_answer_is_taken_without_waiting_for_the_close() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let (done, hold) = std::sync::mpsc::channel::<()>();
        let server = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("the client connects");
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{\"ok\":true}")
                .expect("the answer is sent");
            // Held open until the client has its answer (or the test gives up).
            let _ = hold.recv_timeout(Duration::from_secs(30));
        });
        let endpoint = Endpoint::parse(&format!("http://127.0.0.1:{port}")).expect("a URL");
        let got = exchange(
            &endpoint,
            None,
            &Exchange {
                method: "GET",
                target: "/v1/healthz",
                token: "t",
                body: None,
                deadline: Instant::now() + Duration::from_secs(10),
            },
        );
        let _ = done.send(());
        server.join().expect("the server thread ends");
        assert_eq!(
            got.ok(),
            Some((200, b"{\"ok\":true}".to_vec())),
            "a complete answer is the answer, not a timeout waiting for the close"
        );
    }

    #[test]
    fn encodes_hostile_segments() {
        assert_eq!(
            encode_segment("a/../b?c#d e"),
            "a%2F..%2Fb%3Fc%23d%20e",
            "a segment cannot escape its path"
        );
        assert_eq!(
            encode_segment("sess-1_A.b~"),
            "sess-1_A.b~",
            "unreserved characters stay"
        );
    }
}
