//! The tray app's state ([`Hub`]): the service in use, the live picture, the pause
//! and the settings. A changed service URL or token takes effect at once: [`Hub::follow`]
//! connects to the new service and the live task resubscribes.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use assent_client::Client;
use chrono::Utc;
use tokio::sync::{mpsc, oneshot};

use crate::desk::{Desk, DeskSnapshot};
use crate::live::input::Input;
use crate::pause::Pause;
use crate::service::{self, Connected, ServiceError};
use crate::settings::{Service, Settings};

/// The service the desk talks to now.
#[derive(Clone)]
pub struct Current {
    pub client: Client,
    /// Where it is, for the settings page.
    pub url: String,
    pub embedded: bool,
    /// What was asked for (the settings or the environment).
    pub service: Service,
}

impl Current {
    pub fn of(connected: &Connected, service: Service) -> Current {
        Current {
            client: connected.client.clone(),
            url: connected.url.clone(),
            embedded: connected.embedded,
            service,
        }
    }
}

pub struct Hub {
    pub inputs: mpsc::Sender<Input>,
    pub settings_path: PathBuf,
    current: Mutex<Current>,
    /// The embedded service this process started, kept for a return to it: its owner
    /// credential lives only in this process's memory (there is no token file to read again).
    embedded: Mutex<Option<Current>>,
    pub(crate) desk: Mutex<Desk>,
    pub(crate) pause: Mutex<Pause>,
    pub(crate) settings: Mutex<Settings>,
}

pub(crate) fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Hub {
    pub fn new(
        current: Current,
        inputs: mpsc::Sender<Input>,
        settings: Settings,
        settings_path: PathBuf,
    ) -> Hub {
        Hub {
            inputs,
            settings_path,
            embedded: Mutex::new(current.embedded.then(|| current.clone())),
            current: Mutex::new(current),
            desk: Mutex::new(Desk::default()),
            pause: Mutex::new(Pause::Off),
            settings: Mutex::new(settings),
        }
    }

    /// A client of the service in use now.
    pub fn client(&self) -> Client {
        locked(&self.current).client.clone()
    }

    pub fn current(&self) -> Current {
        locked(&self.current).clone()
    }

    pub fn settings(&self) -> Settings {
        locked(&self.settings).clone()
    }

    pub fn set_settings(&self, settings: Settings) {
        *locked(&self.settings) = settings;
    }

    pub(crate) fn paused(&self) -> bool {
        let now = Utc::now();
        locked(&self.pause).is_paused(now) || locked(&self.settings).notifications_off
    }

    pub fn snapshot(&self) -> DeskSnapshot {
        let paused = locked(&self.pause).describe(Utc::now()).or_else(|| {
            locked(&self.settings)
                .notifications_off
                .then(|| "off".to_owned())
        });
        locked(&self.desk).snapshot(paused)
    }

    /// Switches to `wanted` if it is not the service in use: connects (starting the embedded
    /// service, or attaching to the one already listening), swaps the client and asks the live
    /// task to resubscribe. A remote service that is down is no error: the desk shows it as
    /// disconnected and keeps retrying. An embedded service left behind keeps running until
    /// Quit (agents on this machine may still be talking to it). Returns whether it switched
    /// and, if it started the embedded service, that service's stop sender.
    pub async fn follow(&self, wanted: Service) -> Result<Switched, ServiceError> {
        if locked(&self.current).service == wanted {
            return Ok(Switched::Unchanged);
        }
        let started = locked(&self.embedded).clone();
        let (next, stop_embedded) = match started {
            // Back to the embedded service this process runs: same client, same owner.
            Some(started) if wanted == Service::Embedded => (started, None),
            _ => {
                let connected = service::connect(wanted.clone()).await?;
                let next = Current::of(&connected, wanted);
                if next.embedded {
                    *locked(&self.embedded) = Some(next.clone());
                }
                (next, connected.shutdown)
            }
        };
        let url = next.url.clone();
        *locked(&self.current) = next;
        // The live task may be gone only while the app quits.
        let _ = self.inputs.send(Input::Reconnect).await;
        Ok(Switched::To { url, stop_embedded })
    }
}

/// What [`Hub::follow`] did.
#[derive(Debug)]
pub enum Switched {
    Unchanged,
    To {
        url: String,
        stop_embedded: Option<oneshot::Sender<()>>,
    },
}

#[cfg(test)]
#[path = "app_state_tests.rs"]
mod tests;
