//! Following a changed service at once, against two real services (assent-server in this
//! process, real SQLite files, real HTTP on free ports).
#![allow(clippy::expect_used, clippy::panic, reason = "tests")]

use super::*;
use crate::fixtures::{asked, service, Running};

fn remote(running: &Running, token: &str) -> Service {
    Service::Remote {
        url: running.url.clone(),
        token: token.to_owned(),
    }
}

fn hub_on(running: &Running) -> (Hub, mpsc::Receiver<Input>) {
    let current = Current {
        client: Client::new(&running.url, &running.tokens.approver).expect("client"),
        url: running.url.clone(),
        embedded: false,
        service: remote(running, &running.tokens.approver),
    };
    hub_with(current)
}

fn hub_with(current: Current) -> (Hub, mpsc::Receiver<Input>) {
    let (inputs, received) = mpsc::channel(8);
    let hub = Hub::new(
        current,
        inputs,
        Settings::default(),
        PathBuf::from("unused.json"),
    );
    (hub, received)
}

#[tokio::test]
async fn a_changed_service_is_followed_at_once_and_the_same_one_is_kept() {
    let first = service().await;
    let second = service().await;
    let (hub, mut received) = hub_on(&first);

    let same = hub
        .follow(remote(&first, &first.tokens.approver))
        .await
        .expect("follow");
    assert!(
        matches!(same, Switched::Unchanged),
        "saving the same service keeps the connection"
    );
    assert!(
        received.try_recv().is_err(),
        "no resubscription when nothing changed"
    );

    let requester = Client::new(&second.url, &second.tokens.requester).expect("client");
    let submitted = requester.submit(&asked("run-2")).await.expect("submit");
    let waiting = submitted.approval_id.expect("the second service asks");

    let switched = hub
        .follow(remote(&second, &second.tokens.approver))
        .await
        .expect("follow");
    match switched {
        Switched::To { url, stop_embedded } => {
            assert_eq!(url, second.url, "switched to the new URL");
            assert!(stop_embedded.is_none(), "a remote service embeds nothing");
        }
        Switched::Unchanged => panic!("a new URL must switch"),
    }
    assert!(
        matches!(received.try_recv(), Ok(Input::Reconnect)),
        "the live task is told to resubscribe"
    );
    assert_eq!(hub.current().url, second.url, "the settings page shows it");
    let pending = hub.client().pending().await.expect("pending");
    assert_eq!(
        pending
            .iter()
            .map(|a| a.approval_id.as_str())
            .collect::<Vec<_>>(),
        [waiting.as_str()],
        "decisions and fetches now go to the new service"
    );
}

#[tokio::test]
async fn a_changed_token_alone_reconnects_and_a_wrong_one_is_refused_by_the_service() {
    let running = service().await;
    let (hub, mut received) = hub_on(&running);
    let switched = hub
        .follow(remote(&running, "not-the-approver-token"))
        .await
        .expect("a token is only checked by the service");
    assert!(
        matches!(switched, Switched::To { .. }),
        "a new token is a new connection"
    );
    assert!(
        matches!(received.try_recv(), Ok(Input::Reconnect)),
        "the live task resubscribes with the new token"
    );
    assert!(
        hub.client().pending().await.is_err(),
        "the service refuses a wrong token (the desk shows it as disconnected)"
    );
}

#[tokio::test]
async fn a_return_to_the_embedded_service_reuses_its_in_memory_owner() {
    // `home` stands for the service this process embedded: its owner token is in memory only.
    let home = service().await;
    let other = service().await;
    let (hub, mut received) = hub_with(Current {
        client: Client::new(&home.url, &home.tokens.approver).expect("client"),
        url: home.url.clone(),
        embedded: true,
        service: Service::Embedded,
    });
    hub.follow(remote(&other, &other.tokens.approver))
        .await
        .expect("away to another service");
    assert!(
        matches!(received.try_recv(), Ok(Input::Reconnect)),
        "the live task follows the other service"
    );

    let back = hub
        .follow(Service::Embedded)
        .await
        .expect("back home without reading any token file");
    match back {
        Switched::To { url, stop_embedded } => {
            assert_eq!(url, home.url, "back on the embedded service's URL");
            assert!(
                stop_embedded.is_none(),
                "the embedded service still runs: nothing new to stop"
            );
        }
        Switched::Unchanged => panic!("leaving the other service must switch"),
    }
    assert!(
        matches!(received.try_recv(), Ok(Input::Reconnect)),
        "the live task follows the embedded service again"
    );
    let current = hub.current();
    assert!(
        current.embedded,
        "the settings page shows the embedded service"
    );
    let me = hub.client().me().await.expect("who is signed in");
    assert_eq!(
        me.name, "owner",
        "decisions go to the embedded service as its owner again"
    );
}
