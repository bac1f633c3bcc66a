//! A freedesktop notification server for tests: owns `org.freedesktop.Notifications` on the
//! (private) session bus, records every call, and emits `ActionInvoked` on demand. Like a
//! server whose notifications stay until closed, it does not close one by itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
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

struct Server {
    calls: mpsc::UnboundedSender<Call>,
    next_id: AtomicU32,
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

    fn close_notification(&self, id: u32) {
        let _ = self.calls.send(Call::Close { id });
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
}

impl NotificationServer {
    /// Owns the well-known name before returning (start it before the app).
    pub async fn start() -> NotificationServer {
        let (tx, calls) = mpsc::unbounded_channel();
        let server = Server {
            calls: tx,
            next_id: AtomicU32::new(1),
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
        NotificationServer { connection, calls }
    }

    /// The person clicks `key` on notification `id`.
    pub async fn invoke(&self, id: u32, key: &str) {
        let iface = self
            .connection
            .object_server()
            .interface::<_, Server>(PATH)
            .await
            .expect("interface");
        Server::action_invoked(iface.signal_emitter(), id, key)
            .await
            .expect("emit ActionInvoked");
    }

    /// The next recorded call, waiting at most `timeout`.
    pub async fn next(&mut self, timeout: std::time::Duration) -> Option<Call> {
        tokio::time::timeout(timeout, self.calls.recv())
            .await
            .ok()
            .flatten()
    }
}
