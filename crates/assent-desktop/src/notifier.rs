//! The freedesktop notification interface over ONE session-bus connection: `Notify`
//! (with `replaces_id` for updates), `CloseNotification`, and one app-wide listener for
//! `ActionInvoked` / `NotificationClosed`.
//!
//! Sending and listening share the connection on purpose: some servers (GNOME Shell) send
//! the signals only to the connection that sent the `Notify`, so a per-notification
//! connection (notify-rust's model) and a separate listener would miss the clicks.

use std::collections::HashMap;

use futures::StreamExt;
use tokio::sync::mpsc;
use zbus::zvariant::Value;

use crate::prompt::PromptNotice;

/// The name notifications are sent under (and what the test server records).
pub const APP_NAME: &str = "Assent";

#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications"
)]
trait Notifications {
    #[allow(
        clippy::too_many_arguments,
        reason = "the freedesktop Notify signature"
    )]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Value<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    fn close_notification(&self, id: u32) -> zbus::Result<()>;

    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

    #[zbus(signal)]
    fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;
}

/// What the listener reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    Action { id: u32, key: String },
    Closed { id: u32 },
}

/// The connection to the notification server.
#[derive(Clone)]
pub struct Notifier {
    proxy: NotificationsProxy<'static>,
}

impl Notifier {
    /// Connects to the session bus and starts the one listener, which forwards every
    /// signal to `signals` until the receiver is dropped.
    pub async fn connect(
        connection: &zbus::Connection,
        signals: mpsc::Sender<Signal>,
    ) -> zbus::Result<Notifier> {
        let proxy = NotificationsProxy::new(connection).await?;
        let mut actions = proxy.receive_action_invoked().await?;
        let mut closed = proxy.receive_notification_closed().await?;
        tokio::spawn(async move {
            loop {
                let signal = tokio::select! {
                    Some(action) = actions.next() => match action.args() {
                        Ok(args) => Signal::Action { id: args.id, key: args.action_key },
                        Err(_) => continue,
                    },
                    Some(close) = closed.next() => match close.args() {
                        Ok(args) => Signal::Closed { id: args.id },
                        Err(_) => continue,
                    },
                    else => break,
                };
                if signals.send(signal).await.is_err() {
                    break;
                }
            }
        });
        Ok(Notifier { proxy })
    }

    /// Shows (or, with `replaces`, updates in place) a prompt's notification; its id.
    pub async fn show(&self, notice: &PromptNotice, replaces: Option<u32>) -> zbus::Result<u32> {
        let actions: Vec<&str> = notice
            .actions
            .iter()
            .flat_map(|action| [action.key(), action.label()])
            .collect();
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        hints.insert("urgency", Value::U8(notice.urgency as u8));
        hints.insert("category", Value::from("x-assent.prompt"));
        hints.insert("desktop-entry", Value::from("assent-desktop"));
        // 0: never expire on its own; it closes when the prompt settles.
        self.proxy
            .notify(
                APP_NAME,
                replaces.unwrap_or(0),
                "dialog-question",
                &notice.summary,
                &notice.body,
                &actions,
                hints,
                0,
            )
            .await
    }

    pub async fn close(&self, id: u32) -> zbus::Result<()> {
        self.proxy.close_notification(id).await
    }
}
