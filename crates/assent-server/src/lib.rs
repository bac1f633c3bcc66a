//! Assent's approval service: the HTTP API, the live event stream, the durable store, audit.
//!
//! Embed it with [`launch`] (or [`App::open`] + [`App::serve`] to read the tokens first), or
//! build the [`router`] yourself over an [`AppState`].

mod approval_watch;
pub mod audit_chain;
mod clock;
mod config;
mod deadlines;
pub mod environment;
mod error;
mod expiry;
mod fatigue;
mod guard;
mod handlers;
pub mod identities;
mod identity_cache;
mod json;
mod listener;
pub mod logging;
mod policy_watch;
mod public_url;
mod push;
pub mod realpath;
pub mod records;
pub mod reload;
pub mod reviewer;
mod reviewing;
mod reviews;
pub mod routing;
mod secret_source;
mod state;
pub mod store;
pub mod suggestions;
mod tls;
mod token;
mod waiters;
mod web;
mod webhooks;
mod workflow;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

/// Writing a file whole; it lives in `assent-fs` (the desk and the CLI use it too).
pub use assent_fs::atomic_file;
pub use clock::{Clock, FakeClock, SystemClock};
pub use config::{
    redacted, Config, Database, DatabaseChoiceError, TokenError, Tokens, DEFAULT_CHECKPOINT_EVENTS,
};
pub use error::ApiError;
pub use handlers::openapi::ApiDoc;
pub use handlers::router;
pub use identities::{Directory, DirectoryError};
pub use json::BODY_LIMIT;
pub use public_url::{PublicUrl, PublicUrlError};
pub use push::Retry as PushRetry;
pub use state::AppState;
pub use store::{PgStore, SqliteStore, Store, StoreError};
pub use tls::{ServerTls, TlsError};
pub use web::origin::is_loopback_host;
pub use webhooks::{
    sign as sign_webhook, Resolver as WebhookResolver, Resolving as WebhookResolving,
    SystemResolver,
};

/// Why the service cannot start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Tokens(#[from] TokenError),
    #[error("the policy file does not load: {0}")]
    Policy(#[from] reload::PolicyLoadError),
    #[error(transparent)]
    AuditKey(#[from] audit_chain::KeyError),
    #[error(transparent)]
    PushKey(#[from] push::PushKeyError),
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    #[error("cannot serve: {0}")]
    Io(#[from] std::io::Error),
}

/// An opened service: its store and tokens exist; it is not listening yet.
#[derive(Debug)]
pub struct App {
    config: Config,
    /// The data dir's tokens; none with a PostgreSQL database (identities come from
    /// `assent people|agents add --database URL`).
    tokens: Option<Tokens>,
    store: Arc<dyn Store>,
    audit_key: audit_chain::AuditKey,
    push_key: push::PushKey,
}

impl App {
    /// Creates the data dir, the tokens (first start) and the database; runs migrations. With
    /// a PostgreSQL database only the database is opened: no token file is written.
    pub async fn open(config: Config) -> Result<App, LaunchError> {
        App::opening(config, None).await
    }

    /// Like [`App::open`], over a store the caller opened (any backend; the story tests run
    /// over the one they are given): the data dir's tokens are attached to it.
    pub async fn over(config: Config, store: Arc<dyn Store>) -> Result<App, LaunchError> {
        App::opening(config, Some(store)).await
    }

    /// The policy file, the tokens, then the store (SQLite in the data dir unless given).
    async fn opening(
        mut config: Config,
        store: Option<Arc<dyn Store>>,
    ) -> Result<App, LaunchError> {
        let (policy, path) = reload::resolve(
            &config.policy,
            config.policy_path.as_deref(),
            &config.data_dir,
        )?;
        config.policy = policy;
        config.policy_path = Some(path);
        if let (None, Database::Postgres(url)) = (&store, &config.database) {
            // A team's database: identities are made by name; no token file is written.
            let audit_key = open_audit_key(&config)?;
            let store: Arc<dyn Store> = Arc::new(PgStore::open(url).await?);
            // Replicas share the database, not a data dir: the VAPID key is kept there.
            let fresh = push::PushKey::generate().to_hex();
            let push_key = push::PushKey::from_hex(&store.push_key(&fresh).await?, "push_key")?;
            return Ok(App {
                config,
                tokens: None,
                store,
                audit_key,
                push_key,
            });
        }
        let tokens = Tokens::load_or_create(&config.data_dir, config.owner_in_memory)?;
        let audit_key = open_audit_key(&config)?;
        let push_key = push::PushKey::load_or_create(&config.push_key_path())?;
        let store: Arc<dyn Store> = match store {
            Some(store) => store,
            None => Arc::new(SqliteStore::open(&config.database_path()).await?),
        };
        let now = config.clock.now();
        identities::attach(store.as_ref(), &tokens, config.owner_in_memory, now).await?;
        Ok(App {
            config,
            tokens: Some(tokens),
            store,
            audit_key,
            push_key,
        })
    }

    /// The data dir's tokens (`None` with a PostgreSQL database).
    pub fn tokens(&self) -> Option<&Tokens> {
        self.tokens.as_ref()
    }

    /// Serves on `listener` (HTTPS when the config has TLS) until `shutdown` completes, then
    /// closes the store.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), LaunchError> {
        let port = listener.local_addr()?.port();
        let (stop, stopping) = watch::channel(false);
        let state = AppState::new(self.store.clone(), &self.config, port, stopping.clone())
            .with_audit_key(self.audit_key.clone())
            .with_push(self.push_sender()?);
        let every = self.config.audit_checkpoint_events;
        self.store
            .sign_every((every > 0).then(|| audit_chain::CountSigner {
                key: self.audit_key.clone(),
                every,
                clock: self.config.clock.clone(),
            }));
        // Fix the rows from before the chain once (an upgraded store; a fresh one signs none),
        // then sign the head at start (covers what a previous run left unsigned), every
        // interval, and at shutdown (after the last request), so a truncated tail is caught.
        self.sign_chain_start().await;
        self.checkpoint().await;
        let checkpointer = tokio::spawn(audit_checkpoints(
            self.store.clone(),
            self.audit_key.clone(),
            self.config.clock.clone(),
            self.config.audit_checkpoint_every,
        ));
        let sweeper = tokio::spawn(expiry::sweep(state.clone(), self.config.expiry_recheck));
        let presence = tokio::spawn(routing::presence::keep(
            state.inner.presence.clone(),
            state.inner.store.clone(),
            state.inner.clock.clone(),
        ));
        let deliverer = webhooks::Deliverer::new(
            self.store.clone(),
            self.config.clock.clone(),
            self.config.webhook_resolver.clone(),
            self.config.webhook_timeout,
        )?;
        let webhooks = tokio::spawn(Arc::new(deliverer).run());
        let watcher = tokio::spawn(policy_watch::watch(
            state.clone(),
            self.config.policy_recheck,
        ));
        tokio::spawn(async move {
            shutdown.await;
            let _ = stop.send(true);
        });
        // The accept loop runs on a worker thread, not on the caller's (`assent serve` blocks
        // its main thread on this): a connection accepted on a worker starts there, where one
        // accepted on the main thread wakes a parked worker first — a hand-off between threads
        // on every request of a gate, which opens a connection per tool call.
        // Aborted if this future is dropped (as the loop was when it ran here); its panic is
        // this function's.
        let tls = self.config.tls.clone();
        let mut accepting = AbortOnDrop(tokio::spawn(async move {
            match &tls {
                None => serve_until(listener::plain(listener), state, stopping).await,
                Some(tls) => {
                    serve_until(tls::TlsListener::new(listener, tls), state, stopping).await
                }
            }
        }));
        let served = match (&mut accepting.0).await {
            Ok(served) => served,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(err) => Err(std::io::Error::other(err)),
        };
        sweeper.abort();
        let _ = sweeper.await;
        presence.abort();
        let _ = presence.await;
        watcher.abort();
        let _ = watcher.await;
        webhooks.abort();
        let _ = webhooks.await;
        checkpointer.abort();
        let _ = checkpointer.await;
        self.store.sign_every(None);
        self.checkpoint().await;
        self.store.close().await;
        Ok(served?)
    }
}

impl App {
    /// What sends this service's Web Push messages.
    fn push_sender(&self) -> Result<push::Sender, LaunchError> {
        let subject = match &self.config.public_url {
            Some(url) if url.is_https() => url.origin(),
            _ => "mailto:assent@localhost".to_owned(),
        };
        Ok(push::Sender {
            key: self.push_key.clone(),
            http: push::http_client()?,
            subject,
            retry: self.config.push_retry,
            clock: self.config.clock.clone(),
            store: self.store.clone(),
        })
    }

    /// Signs the record of the audit rows from before the chain when the store has none yet
    /// (logged, not fatal: until it is written, `verify` reports those rows as unsigned).
    async fn sign_chain_start(&self) {
        let now = self.config.clock.now();
        if let Err(err) = self
            .store
            .audit_sign_chain_start(&self.audit_key, now)
            .await
        {
            tracing::warn!(%err, "cannot sign the start of the audit chain");
        }
    }

    /// Signs the audit chain's head now (logged, not fatal: the chain itself is intact).
    async fn checkpoint(&self) {
        let now = self.config.clock.now();
        if let Err(err) = self.store.audit_checkpoint(&self.audit_key, now).await {
            tracing::warn!(%err, "cannot sign an audit checkpoint");
        }
    }
}

/// The audit checkpoint key (created on first start).
fn open_audit_key(config: &Config) -> Result<audit_chain::AuditKey, LaunchError> {
    Ok(audit_chain::AuditKey::load_or_create(
        &config.audit_key_path(),
    )?)
}

/// Signs the audit chain's head every `every` (when it moved).
async fn audit_checkpoints(
    store: Arc<dyn Store>,
    key: audit_chain::AuditKey,
    clock: Arc<dyn Clock>,
    every: std::time::Duration,
) {
    loop {
        tokio::time::sleep(every).await;
        if let Err(err) = store.audit_checkpoint(&key, clock.now()).await {
            tracing::warn!(%err, "cannot sign an audit checkpoint");
        }
    }
}

/// A task aborted when this is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves the router on `listener` until `stopping` turns true.
async fn serve_until<L>(
    listener: L,
    state: AppState,
    mut stopping: watch::Receiver<bool>,
) -> std::io::Result<()>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async move {
            let _ = stopping.wait_for(|stop| *stop).await;
        })
        .await
}

/// Opens the service from `config` and serves on `listener` until `shutdown` completes.
pub async fn launch(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), LaunchError> {
    App::open(config).await?.serve(listener, shutdown).await
}
