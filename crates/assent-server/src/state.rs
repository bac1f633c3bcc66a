//! What every handler shares.

use std::sync::Arc;
use std::time::Duration;

use assent_core::{Environment, Policy};
use tokio::sync::watch;

use crate::clock::Clock;
use crate::config::Config;
use crate::environment::{environment, OwnFiles};
use crate::expiry::Deadlines;
use crate::store::Store;

/// The service's shared state; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub store: Arc<dyn Store>,
    pub policy: Policy,
    pub clock: Arc<dyn Clock>,
    pub env: Environment,
    /// The port clients must name in `Host`.
    pub port: u16,
    pub replay_limit: i64,
    pub heartbeat: Duration,
    /// Turns true when the service is shutting down; streams and long polls end.
    pub shutdown: watch::Receiver<bool>,
    /// Wakes the expiry sweeper when something with an earlier deadline is created.
    pub deadlines: Arc<Deadlines>,
}

impl AppState {
    /// State for a service answering on `port`.
    pub fn new(
        store: Arc<dyn Store>,
        config: &Config,
        port: u16,
        shutdown: watch::Receiver<bool>,
    ) -> AppState {
        AppState {
            inner: Arc::new(Shared {
                store,
                policy: config.policy.clone(),
                clock: config.clock.clone(),
                env: environment(
                    &config.home,
                    OwnFiles {
                        data_dir: Some(&config.data_dir),
                        policy_file: config.policy_path.as_deref(),
                        port: Some(port),
                    },
                ),
                port,
                replay_limit: config.replay_limit,
                heartbeat: config.heartbeat,
                shutdown,
                deadlines: Arc::default(),
            }),
        }
    }
}
