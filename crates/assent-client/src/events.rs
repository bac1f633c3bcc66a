//! `GET /v1/events` as a stream that reconnects with backoff and resumes with
//! `Last-Event-ID` by itself.

use std::time::Duration;

use assent_protocol::EventEnvelope;
use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::client::{transport_error, Client};
use crate::error::ClientError;

/// What the event stream yields.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "the desktop codes against Event(EventEnvelope); each item is moved once"
)]
pub enum StreamItem {
    /// (Re)connected; events from here on are live or replayed from the last id seen.
    Connected,
    Event(EventEnvelope),
    /// The connection dropped (the reason); the stream reconnects on its own.
    Disconnected(String),
}

/// First pause before a reconnect; doubled up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(250);
pub const MAX_BACKOFF: Duration = Duration::from_secs(10);
/// With a heartbeat every 15 s, this long without a byte means the connection is dead.
pub const IDLE_LIMIT: Duration = Duration::from_secs(45);

impl Client {
    /// Subscribes to `/v1/events` (approver). The stream ends only when it is dropped.
    /// Must be called inside a tokio runtime.
    pub fn events(
        &self,
        last_event_id: Option<i64>,
    ) -> impl Stream<Item = StreamItem> + Send + 'static {
        let (tx, rx) = mpsc::channel(256);
        let client = self.clone();
        tokio::spawn(follow(client, last_event_id, tx));
        ReceiverStream::new(rx)
    }
}

async fn follow(client: Client, mut last_id: Option<i64>, tx: mpsc::Sender<StreamItem>) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let reason = match connect(&client, last_id).await {
            Ok(response) => {
                backoff = FIRST_BACKOFF;
                if tx.send(StreamItem::Connected).await.is_err() {
                    return;
                }
                match pump(response, &mut last_id, &tx).await {
                    Some(reason) => reason,
                    None => return,
                }
            }
            Err(err) => err.to_string(),
        };
        if tx.send(StreamItem::Disconnected(reason)).await.is_err() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = tx.closed() => return,
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

async fn connect(client: &Client, last_id: Option<i64>) -> Result<reqwest::Response, ClientError> {
    let mut request = client
        .http
        .get(format!("{}/v1/events", client.base))
        .bearer_auth(&client.token)
        .header("accept", "text/event-stream");
    if let Some(id) = last_id {
        request = request.header("last-event-id", id.to_string());
    }
    let response = request.send().await.map_err(transport_error)?;
    let status = response.status().as_u16();
    if response.status().is_success() {
        return Ok(response);
    }
    let body = response.bytes().await.map_err(transport_error)?;
    Err(ClientError::from_status(status, &body))
}

/// The body's chunks, ending with an error once `limit` passed without a byte. The limit
/// watches the bytes, not the parsed events: the service's heartbeat is an SSE comment, which
/// the parser drops, so an idle but healthy stream must not count as dead.
fn idle_limited<S, B>(body: S, limit: Duration) -> impl Stream<Item = Result<B, String>>
where
    S: Stream<Item = Result<B, reqwest::Error>> + Send + 'static,
{
    futures::stream::unfold(Some(Box::pin(body)), move |state| async move {
        let mut body = state?;
        match tokio::time::timeout(limit, body.next()).await {
            Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(body))),
            Ok(Some(Err(err))) => Some((Err(err.to_string()), None)),
            Ok(None) => None,
            Err(_) => Some((Err("no heartbeat from the service".to_owned()), None)),
        }
    })
}

/// Forwards events until the connection ends (`Some(reason)`) or the receiver is gone (`None`).
async fn pump(
    response: reqwest::Response,
    last_id: &mut Option<i64>,
    tx: &mpsc::Sender<StreamItem>,
) -> Option<String> {
    let mut events = Box::pin(idle_limited(response.bytes_stream(), IDLE_LIMIT).eventsource());
    loop {
        let next = tokio::select! {
            next = events.next() => next,
            () = tx.closed() => return None,
        };
        let event = match next {
            None => return Some("the service closed the stream".into()),
            Some(Err(eventsource_stream::EventStreamError::Transport(reason))) => {
                return Some(reason)
            }
            Some(Err(err)) => return Some(err.to_string()),
            Some(Ok(event)) => event,
        };
        let Ok(envelope) = serde_json::from_str::<EventEnvelope>(&event.data) else {
            continue;
        };
        *last_id = Some(envelope.id);
        if tx.send(StreamItem::Event(envelope)).await.is_err() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body sending `chunks` heartbeat comments `gap` apart, then stalling.
    fn heartbeats(
        chunks: usize,
        gap: Duration,
    ) -> impl Stream<Item = Result<&'static [u8], reqwest::Error>> + Send + 'static {
        futures::stream::unfold(0, move |sent| async move {
            if sent == chunks {
                std::future::pending::<()>().await;
            }
            tokio::time::sleep(gap).await;
            Some((Ok(&b":heartbeat\n\n"[..]), sent + 1))
        })
    }

    #[tokio::test]
    async fn heartbeat_comments_keep_a_quiet_stream_alive_and_silence_ends_it() {
        let limit = Duration::from_millis(300);
        let mut events =
            Box::pin(idle_limited(heartbeats(6, Duration::from_millis(100)), limit).eventsource());
        let started = tokio::time::Instant::now();
        let ended = events.next().await;
        let lasted = started.elapsed();
        assert!(
            lasted >= Duration::from_millis(600),
            "six heartbeats, each within the limit, kept the stream open although no event came ({lasted:?})"
        );
        match ended {
            Some(Err(eventsource_stream::EventStreamError::Transport(reason))) => assert_eq!(
                reason, "no heartbeat from the service",
                "silence past the limit ends the stream, saying why"
            ),
            other => panic!("a comment is never an event; silence is an error: {other:?}"),
        }
    }
}
