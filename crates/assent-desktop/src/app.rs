//! The tray app as its tasks share it ([`App`]): the app's state ([`crate::app_state`]), the
//! window, the embedded service's guard and the autostart entry. The entry point builds it;
//! the window's commands and the live task read it.

use std::sync::Arc;

use crate::app_state::{self, Hub};
use crate::autostart::Autostart;
use crate::window::WindowHost;

/// Everything the tray process shares between its tasks.
pub(crate) struct App {
    pub(crate) hub: Arc<Hub>,
    pub(crate) window: WindowHost,
    pub(crate) guard: ServiceGuard,
    pub(crate) autostart: Autostart,
}

/// Holds the embedded service's shutdown sender for the app's lifetime (dropping it would
/// stop the service). It is started at most once per process: a second start attaches.
#[derive(Default)]
pub(crate) struct ServiceGuard(std::sync::Mutex<Vec<tokio::sync::oneshot::Sender<()>>>);

impl ServiceGuard {
    pub(crate) fn keep(&self, stop: Option<tokio::sync::oneshot::Sender<()>>) {
        if let Some(stop) = stop {
            app_state::locked(&self.0).push(stop);
        }
    }

    /// Asks the embedded service to stop (on Quit).
    pub(crate) fn stop(&self) {
        for sender in app_state::locked(&self.0).drain(..) {
            let _ = sender.send(());
        }
    }
}
