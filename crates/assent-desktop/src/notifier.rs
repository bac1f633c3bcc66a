//! The freedesktop notification interface over ONE session-bus connection: `Notify`
//! (with `replaces_id` for updates), `CloseNotification`, and one app-wide listener for
//! `ActionInvoked` / `NotificationClosed`.
//!
//! Sending and listening share the connection on purpose: some servers (GNOME Shell) send
//! the signals only to the connection that sent the `Notify`, so a per-notification
//! connection (notify-rust's model) and a separate listener would miss the clicks.
//!
//! Both signals come through ONE stream (one match rule over the interface), so they are
//! handled in the order the server sent them. Real servers (GNOME Shell, KDE, dunst) answer a
//! button press with `ActionInvoked` and right after it `NotificationClosed` (reason 2); two
//! streams merged by `select!` would take a ready pair in random order, and a close handled
//! first used to lose the click.

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
    /// A button (or, with key `default`, the body) of notification `id` was pressed.
    Action { id: u32, key: String },
    /// Notification `id` left the screen; `reason` as the specification numbers it (1 expired,
    /// 2 dismissed by the person, 3 closed by `CloseNotification`, 4 undefined).
    Closed { id: u32, reason: u32 },
}

impl Signal {
    /// The signal a message of the interface carries (`None` for any other signal).
    fn of(message: zbus::Message) -> Option<Signal> {
        if let Some(action) = ActionInvoked::from_message(message.clone()) {
            let args = action.args().ok()?;
            return Some(Signal::Action {
                id: args.id,
                key: args.action_key,
            });
        }
        let closed = NotificationClosed::from_message(message)?;
        let args = closed.args().ok()?;
        Some(Signal::Closed {
            id: args.id,
            reason: args.reason,
        })
    }
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
        // Every signal of the interface, in bus order, on the sending connection.
        let mut received = proxy.inner().receive_all_signals().await?;
        tokio::spawn(async move {
            while let Some(message) = received.next().await {
                let Some(signal) = Signal::of(message) else {
                    continue;
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
            .flat_map(|action| [action.key(), notice.label(*action)])
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
