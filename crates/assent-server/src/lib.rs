//! Assent's approval service: the HTTP API, the live event stream, the durable store, audit.
//!
//! Embed it with [`launch`] (or [`App::open`] + [`App::serve`] to read the tokens first), or
//! build the [`router`] yourself over an [`AppState`].

mod clock;
mod config;
pub mod environment;
mod error;
mod expiry;
mod fatigue;
mod guard;
pub mod identities;
mod json;
pub mod realpath;
mod records;
mod routes;
mod state;
pub mod store;
pub mod suggestions;
mod workflow;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

pub use clock::{Clock, FakeClock, SystemClock};
pub use config::{redacted, Config, Database, DatabaseChoiceError, TokenError, Tokens};
pub use error::ApiError;
pub use guard::is_loopback_host;
pub use identities::{Directory, DirectoryError};
pub use json::BODY_LIMIT;
pub use routes::openapi::ApiDoc;
pub use routes::router;
pub use state::AppState;
pub use store::{PgStore, SqliteStore, Store, StoreError};

/// Why the service cannot start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Tokens(#[from] TokenError),
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
}

impl App {
    /// Creates the data dir, the tokens (first start) and the database; runs migrations. With
    /// a PostgreSQL database only the database is opened: no token file is written.
    pub async fn open(config: Config) -> Result<App, LaunchError> {
        let (store, tokens): (Arc<dyn Store>, _) = match &config.database {
            Database::Sqlite => {
                let tokens = Tokens::load_or_create(&config.data_dir, config.owner_in_memory)?;
                let store = SqliteStore::open(&config.database_path()).await?;
                let now = config.clock.now();
                identities::attach(&store, &tokens, config.owner_in_memory, now).await?;
                (Arc::new(store), Some(tokens))
            }
            Database::Postgres(url) => (Arc::new(PgStore::open(url).await?), None),
        };
        Ok(App {
            config,
            tokens,
            store,
        })
    }

    /// Like [`App::open`], over a store the caller opened (any backend; the story tests run
    /// over the one they are given): the data dir's tokens are attached to it.
    pub async fn over(config: Config, store: Arc<dyn Store>) -> Result<App, LaunchError> {
        let tokens = Tokens::load_or_create(&config.data_dir, config.owner_in_memory)?;
        identities::attach(
            store.as_ref(),
            &tokens,
            config.owner_in_memory,
            config.clock.now(),
        )
        .await?;
        Ok(App {
            config,
            tokens: Some(tokens),
            store,
        })
    }

    /// The data dir's tokens (`None` with a PostgreSQL database).
    pub fn tokens(&self) -> Option<&Tokens> {
        self.tokens.as_ref()
    }

    /// Serves on `listener` until `shutdown` completes, then closes the store.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), LaunchError> {
        let port = listener.local_addr()?.port();
        let (stop, stopping) = watch::channel(false);
        let state = AppState::new(self.store.clone(), &self.config, port, stopping.clone());
        let sweeper = tokio::spawn(expiry::sweep(state.clone(), self.config.expiry_recheck));
        tokio::spawn(async move {
            shutdown.await;
            let _ = stop.send(true);
        });
        let mut until_stopped = stopping;
        let served = axum::serve(listener, router(state))
            .with_graceful_shutdown(async move {
                let _ = until_stopped.wait_for(|stop| *stop).await;
            })
            .await;
        sweeper.abort();
        let _ = sweeper.await;
        self.store.close().await;
        Ok(served?)
    }
}

/// Opens the service from `config` and serves on `listener` until `shutdown` completes.
pub async fn launch(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), LaunchError> {
    App::open(config).await?.serve(listener, shutdown).await
}
