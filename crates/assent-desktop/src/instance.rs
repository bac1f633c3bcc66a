//! Single instance over the session bus: the first `assent-desktop` owns [`BUS_NAME`]; a
//! second launch finds it taken, asks the first to open its window (unless it was started
//! with `--tray`) and exits 0.

use tokio::sync::mpsc;
use zbus::fdo::{RequestNameFlags, RequestNameReply};

use crate::autostart::TRAY_FLAG;
use crate::tray::MenuCommand;

/// The well-known name of the running desk (the app's identifier).
pub const BUS_NAME: &str = "dev.assent.Desktop";
const PATH: &str = "/dev/assent/Desktop";

/// Whether this process is the desk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This process owns the name (or there is no bus to ask: it runs alone).
    Mine,
    /// Another desk runs.
    Taken,
}

struct Instance {
    commands: mpsc::UnboundedSender<MenuCommand>,
}

#[zbus::interface(name = "dev.assent.Desktop1")]
impl Instance {
    /// Another launch with these arguments: opens the window unless it asked for `--tray`.
    fn activate(&self, args: Vec<String>) {
        if !args.iter().any(|arg| arg == TRAY_FLAG) {
            let _ = self.commands.send(MenuCommand::Open);
        }
    }
}

#[zbus::proxy(
    interface = "dev.assent.Desktop1",
    default_service = "dev.assent.Desktop",
    default_path = "/dev/assent/Desktop"
)]
trait Desktop {
    fn activate(&self, args: &[String]) -> zbus::Result<()>;
}

/// Tries to become the desk. Serves [`BUS_NAME`]'s `Activate` if so.
pub async fn claim(bus: &zbus::Connection, commands: mpsc::UnboundedSender<MenuCommand>) -> Claim {
    if let Err(err) = bus.object_server().at(PATH, Instance { commands }).await {
        tracing::warn!(%err, "cannot serve the single-instance object; running alone");
        return Claim::Mine;
    }
    match bus
        .request_name_with_flags(BUS_NAME, RequestNameFlags::DoNotQueue.into())
        .await
    {
        Ok(RequestNameReply::PrimaryOwner | RequestNameReply::AlreadyOwner) => Claim::Mine,
        Ok(RequestNameReply::Exists | RequestNameReply::InQueue) => Claim::Taken,
        Err(zbus::Error::NameTaken) => Claim::Taken,
        Err(err) => {
            tracing::warn!(%err, "cannot claim the single-instance name; running alone");
            Claim::Mine
        }
    }
}

/// Hands this launch's arguments to the running desk.
pub async fn hand_over(bus: &zbus::Connection, args: &[String]) {
    let handed = async { DesktopProxy::new(bus).await?.activate(args).await };
    match handed.await {
        Ok(()) => tracing::info!("Assent already runs: asked it to open its window"),
        Err(err) => tracing::warn!(%err, "Assent already runs but did not answer"),
    }
}
