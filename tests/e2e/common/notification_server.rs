//! A freedesktop notification server for tests: owns `org.freedesktop.Notifications` on the
//! (private) session bus, records every call, and plays the person: [`NotificationServer::press`]
//! sends what real servers (GNOME Shell, KDE, dunst) send when a button is pressed —
//! `ActionInvoked`, then `NotificationClosed` with reason 2 — or the two the other way round.
//! Like real servers it answers `CloseNotification` of a notification on screen with
//! `NotificationClosed` reason 3; it never closes one by itself (no timeouts).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::mpsc;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

pub const PATH: &str = "/org/freedesktop/Notifications";

/// One recorded call.
#[derive(Debug, Clone)]
pub enum Call {
    Notify {
        id: u32,
        replaces_id: u32,
        app_name: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        urgency: Option<u8>,
        at: Instant,
    },
    Close {
        id: u32,
    },
}

/// `NotificationClosed` reasons, as the specification numbers them.
pub const DISMISSED: u32 = 2;
pub const CLOSED_BY_CALL: u32 = 3;

/// The order in which a server sends the two signals of one button press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressOrder {
    /// `ActionInvoked`, then `NotificationClosed` (what GNOME Shell, KDE and dunst send).
    ActionFirst,
    /// `NotificationClosed`, then `ActionInvoked`.
    CloseFirst,
}

/// The notifications on screen.
type OnScreen = Arc<Mutex<HashSet<u32>>>;

struct Server {
    calls: mpsc::UnboundedSender<Call>,
    next_id: AtomicU32,
    on_screen: OnScreen,
}

fn locked(on_screen: &OnScreen) -> std::sync::MutexGuard<'_, HashSet<u32>> {
    on_screen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(
        clippy::too_many_arguments,
        reason = "the freedesktop Notify signature"
    )]
    fn notify(
        &self,
        app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let at = Instant::now();
        let id = if replaces_id == 0 {
            self.next_id.fetch_add(1, Ordering::SeqCst)
        } else {
            replaces_id
        };
        let urgency = hints.get("urgency").and_then(|v| u8::try_from(v).ok());
        locked(&self.on_screen).insert(id);
        let _ = self.calls.send(Call::Notify {
            id,
            replaces_id,
            app_name,
            summary,
            body,
            actions,
            urgency,
            at,
        });
        id
    }

    async fn close_notification(
        &self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        let _ = self.calls.send(Call::Close { id });
        let was_on_screen = locked(&self.on_screen).remove(&id);
        if was_on_screen {
            Server::notification_closed(&emitter, id, CLOSED_BY_CALL).await?;
        }
        Ok(())
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec![
            "actions".into(),
            "body".into(),
            "body-markup".into(),
            "persistence".into(),
        ]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "assent-e2e".into(),
            "assent".into(),
            "1.0".into(),
            "1.2".into(),
        )
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

/// The running server: its recorded calls and a way to click.
pub struct NotificationServer {
    connection: zbus::Connection,
    pub calls: mpsc::UnboundedReceiver<Call>,
    on_screen: OnScreen,
}

impl NotificationServer {
    /// Owns the well-known name before returning (start it before the app).
    pub async fn start() -> NotificationServer {
        let (tx, calls) = mpsc::unbounded_channel();
        let on_screen = OnScreen::default();
        let server = Server {
            calls: tx,
            next_id: AtomicU32::new(1),
            on_screen: Arc::clone(&on_screen),
        };
        let connection = zbus::connection::Builder::session()
            .expect("a session bus (run under dbus-run-session)")
            .serve_at(PATH, server)
            .expect("serve")
            .name("org.freedesktop.Notifications")
            .expect("name")
            .build()
            .await
            .expect("own org.freedesktop.Notifications");
        NotificationServer {
            connection,
            calls,
            on_screen,
        }
    }

    async fn emitter(&self) -> SignalEmitter<'static> {
        let iface = self
            .connection
            .object_server()
            .interface::<_, Server>(PATH)
            .await
            .expect("interface");
        iface.signal_emitter().clone()
    }

    /// `ActionInvoked` alone: a server that keeps a notification on screen after a click, or
    /// a click that crossed the app's `CloseNotification`.
    pub async fn invoke(&self, id: u32, key: &str) {
        Server::action_invoked(&self.emitter().await, id, key)
            .await
            .expect("emit ActionInvoked");
    }

    /// The person presses `key` on notification `id`, which is on screen: the server sends
    /// the action and closes the notification (reason 2), the two signals back to back in
    /// `order`.
    pub async fn press(&self, id: u32, key: &str, order: PressOrder) {
        assert!(
            locked(&self.on_screen).remove(&id),
            "a person can press a button only on a notification on screen ({id})"
        );
        match order {
            PressOrder::ActionFirst => {
                self.invoke(id, key).await;
                self.closed(id, DISMISSED).await;
            }
            PressOrder::CloseFirst => {
                self.closed(id, DISMISSED).await;
                self.invoke(id, key).await;
            }
        }
    }

    /// The person dismisses notification `id` (on screen) without pressing a button.
    pub async fn dismiss(&self, id: u32) {
        assert!(
            locked(&self.on_screen).remove(&id),
            "a person can dismiss only a notification on screen ({id})"
        );
        self.closed(id, DISMISSED).await;
    }

    async fn closed(&self, id: u32, reason: u32) {
        Server::notification_closed(&self.emitter().await, id, reason)
            .await
            .expect("emit NotificationClosed");
    }

    /// Whether notification `id` is on screen (shown, and neither closed nor pressed).
    pub fn on_screen(&self, id: u32) -> bool {
        locked(&self.on_screen).contains(&id)
    }

    /// The next recorded call, waiting at most `timeout`.
    pub async fn next(&mut self, timeout: std::time::Duration) -> Option<Call> {
        tokio::time::timeout(timeout, self.calls.recv())
            .await
            .ok()
            .flatten()
    }
}
