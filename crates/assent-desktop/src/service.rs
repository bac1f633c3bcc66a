//! Which service the desk talks to: the embedded one (assent-server in-process on
//! 127.0.0.1:7391, data in the user's data dir, tokens where the gate finds them), or a remote
//! one from `ASSENT_URL` + `ASSENT_TOKEN` or the settings.

use assent_client::{default_data_dir, Client};

pub use crate::connection::{Connected, ServiceError};
use crate::prompt::Urgency;
use crate::settings::Service;

/// The summary of the notification a failed start raises.
pub const START_FAILED: &str = "Assent could not start";

/// Tells the person why the desk did not start — not only on stderr, which nobody reads when
/// it starts at login: a notification (best effort; there may be no session bus).
pub fn tell_start_failure(message: &str) {
    eprintln!("{START_FAILED}: {message}");
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let sent = runtime.block_on(async {
        let bus = zbus::Connection::session().await?;
        tell(&bus, START_FAILED, message, Urgency::Critical).await
    });
    if let Err(err) = sent {
        tracing::warn!(%err, "cannot show why Assent did not start");
    }
}

/// The summary of the notification raised when the configured service is not the one used.
pub const SERVICE_NOT_USED: &str = "Assent is not using the service you set";

/// Tells the person that part of the configured service is not used (and which one is), at
/// start: on stderr and as a notification, so it is not a silent fallback.
pub async fn tell_not_used(bus: Option<&zbus::Connection>, message: &str) {
    tracing::warn!(%message, "part of the configured service is not used");
    let Some(bus) = bus else {
        return;
    };
    if let Err(err) = tell(bus, SERVICE_NOT_USED, message, Urgency::Normal).await {
        tracing::warn!(%err, "cannot show that the configured service is not used");
    }
}

/// A buttonless notification with `summary` and `message` (escaped), at most 3 s to send.
async fn tell(
    bus: &zbus::Connection,
    summary: &str,
    message: &str,
    urgency: Urgency,
) -> zbus::Result<()> {
    let hints: std::collections::HashMap<&str, zbus::zvariant::Value<'_>> =
        [("urgency", zbus::zvariant::Value::U8(urgency as u8))]
            .into_iter()
            .collect();
    let body = crate::text::untrusted(message, 400);
    let icon = match urgency {
        Urgency::Critical => "dialog-error",
        _ => "dialog-warning",
    };
    let args = (
        "Assent",
        0u32,
        icon,
        summary,
        body.as_str(),
        Vec::<&str>::new(),
        hints,
        -1i32,
    );
    let call = bus.call_method(
        Some("org.freedesktop.Notifications"),
        "/org/freedesktop/Notifications",
        Some("org.freedesktop.Notifications"),
        "Notify",
        &args,
    );
    tokio::time::timeout(std::time::Duration::from_secs(3), call)
        .await
        .map_err(|_| zbus::Error::Failure("timed out".to_owned()))?
        .map(|_| ())
}

/// Connects to `service`, starting the embedded one when that is what is configured.
pub async fn connect(service: Service) -> Result<Connected, ServiceError> {
    match service {
        Service::Remote { url, token } => Ok(Connected {
            client: Client::new(&url, &token)?,
            url,
            embedded: false,
            shutdown: None,
        }),
        Service::Embedded => {
            let data_dir = default_data_dir().ok_or(ServiceError::NoDataDir)?;
            crate::embed::start(&data_dir).await
        }
    }
}
