//! The listeners the service accepts on: every accepted connection, plain or TLS (see
//! [`crate::tls`]), has Nagle's algorithm turned off.

use axum::serve::ListenerExt;
use tokio::net::TcpListener;

/// Turns Nagle's algorithm off on an accepted connection, plain or TLS: an event stream writes
/// one small event at a time, and with Nagle on, an event written while the previous one is
/// unacknowledged waits for that ACK — which a client that delays its ACKs sends up to 40 ms
/// later (docs/benchmarks.md, "Service"); a TLS handshake's round trips
/// would wait likewise.
pub(crate) fn no_delay(tcp: &mut tokio::net::TcpStream) {
    if let Err(err) = tcp.set_nodelay(true) {
        tracing::debug!(%err, "cannot turn Nagle off on a connection");
    }
}

/// The listener plain HTTP is served on: every accepted connection with Nagle off.
pub(crate) fn plain(
    listener: TcpListener,
) -> impl axum::serve::Listener<Io = tokio::net::TcpStream, Addr = std::net::SocketAddr> {
    listener.tap_io(no_delay)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection accepted through the listener `App::serve` serves plain HTTP on has Nagle
    /// off, so no event waits on the client's delayed ACK of the one before (the effect is
    /// measured by `bench/delayed_ack.sh`, not timed here).
    #[tokio::test]
    async fn accepted_connections_have_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = plain(listener);
        let (accepted, client) = tokio::join!(
            axum::serve::Listener::accept(&mut listener),
            tokio::net::TcpStream::connect(addr)
        );
        let (stream, _) = accepted;
        assert!(
            client.unwrap().nodelay().is_ok_and(|on| !on),
            "a fresh socket has Nagle on: the test would pass without no_delay otherwise"
        );
        assert!(
            stream.nodelay().unwrap(),
            "the accepted connection has TCP_NODELAY set"
        );
    }
}
