//! What every handler shares.

use std::sync::Arc;
use std::time::Duration;

use assent_core::Environment;
use tokio::sync::watch;

use crate::clock::Clock;
use crate::config::Config;
use crate::deadlines::Deadlines;
use crate::environment::{environment, OwnFiles};
use crate::reload::{LivePolicy, POLICY_FILE};
use crate::store::Store;
use crate::waiters::Waiters;
use crate::workflow::Workflow;

/// The service's shared state; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub store: Arc<dyn Store>,
    /// Token → identity, checked against the store's identity version on every request.
    pub identities: crate::identity_cache::IdentityCache,
    /// The workflow over `store`: every change of state goes through it.
    pub workflow: Workflow,
    /// The policy in force: read it with `policy.current()` (it is swapped on reload).
    pub policy: Arc<LivePolicy>,
    pub clock: Arc<dyn Clock>,
    pub env: Environment,
    /// The port clients must name in `Host`.
    pub port: u16,
    /// The other host clients may name in `Host` (`--public-url`).
    pub public_url: Option<crate::public_url::PublicUrl>,
    /// Whether the service itself serves HTTPS (the desk's origin is then `https://`).
    pub tls: bool,
    pub replay_limit: i64,
    pub heartbeat: Duration,
    /// Turns true when the service is shutting down; streams and long polls end.
    pub shutdown: watch::Receiver<bool>,
    /// Wakes the expiry sweeper when something with an earlier deadline is created.
    pub deadlines: Arc<Deadlines>,
    /// Agents long-polling each approval right now.
    pub waiters: Arc<Waiters>,
    /// Wakes a long-polling agent when an event names its approval.
    pub approval_watch: Arc<crate::approval_watch::ApprovalWatch>,
    /// The key signing audit checkpoints (its public half is shown by `/v1/audit/verify`).
    pub audit_key: Option<crate::audit_chain::AuditKey>,
    /// The desk streams open on this replica (who is present, see `crate::routing`).
    pub presence: Arc<crate::routing::presence::Presence>,
    /// What sends Web Push messages (its key answers `GET /v1/push/key`); `None` until
    /// [`AppState::with_push`].
    pub push: Option<crate::push::Sender>,
    /// The model reviewer's calls and their outcomes (`[reviewer]` in the policy).
    pub reviews: Arc<crate::reviews::Reviews>,
}

impl AppState {
    /// This state with the audit checkpoint key; call it before sharing the state.
    pub fn with_audit_key(mut self, key: crate::audit_chain::AuditKey) -> AppState {
        if let Some(shared) = Arc::get_mut(&mut self.inner) {
            shared.audit_key = Some(key);
        }
        self
    }

    /// This state with its Web Push sender; call it before sharing the state.
    pub(crate) fn with_push(mut self, sender: crate::push::Sender) -> AppState {
        if let Some(shared) = Arc::get_mut(&mut self.inner) {
            shared.push = Some(sender);
        }
        self
    }

    /// State for a service answering on `port`.
    pub fn new(
        store: Arc<dyn Store>,
        config: &Config,
        port: u16,
        shutdown: watch::Receiver<bool>,
    ) -> AppState {
        let policy_path = config
            .policy_path
            .clone()
            .unwrap_or_else(|| config.data_dir.join(POLICY_FILE));
        let context = crate::workflow::Context {
            policy: Arc::new(LivePolicy::new(
                config.policy.clone(),
                policy_path.clone(),
                config.clock.now(),
            )),
            env: environment(
                &config.home,
                OwnFiles {
                    data_dir: Some(&config.data_dir),
                    policy_file: Some(&policy_path),
                    audit_key: config.audit_key.as_deref(),
                    port: Some(port),
                    public_host: config.public_url.as_ref().map(|url| url.host()),
                },
            ),
            clock: config.clock.clone(),
            reviews: Arc::default(),
        };
        AppState {
            inner: Arc::new(Shared {
                identities: crate::identity_cache::IdentityCache::default(),
                approval_watch: crate::approval_watch::ApprovalWatch::new(store.clone()),
                policy: context.policy.clone(),
                clock: context.clock.clone(),
                env: context.env.clone(),
                reviews: context.reviews.clone(),
                workflow: Workflow::new(store.clone(), context, config.sync_policy_decisions),
                store,
                port,
                public_url: config.public_url.clone(),
                tls: config.tls.is_some(),
                replay_limit: config.replay_limit,
                heartbeat: config.heartbeat,
                shutdown,
                deadlines: Arc::default(),
                waiters: Waiters::new(config.clock.clone()),
                audit_key: None,
                presence: Arc::default(),
                push: None,
            }),
        }
    }
}
