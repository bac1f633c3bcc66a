//! The embedded service: assent-server in-process on 127.0.0.1:7391 (data and tokens in the
//! user's data dir, where the gate finds the requester token). If something already listens
//! there (say `assent serve`), the desk attaches to it with the approver token instead.

use std::net::SocketAddr;
use std::path::Path;

use assent_client::Client;
use assent_core::Policy;
use assent_protocol::DEFAULT_LISTEN;
use assent_server::{App, Config};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::connection::{attach_local, Connected, ServiceError};

/// Overrides the embedded service's address (tests run several desks side by side).
pub const LISTEN_ENV: &str = "ASSENT_DESKTOP_LISTEN";
/// A policy file for the embedded service; the built-in default policy otherwise.
pub const POLICY_ENV: &str = "ASSENT_POLICY";

fn policy() -> Result<Policy, ServiceError> {
    let Some(path) = std::env::var_os(POLICY_ENV) else {
        return Ok(Policy::default());
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|err| ServiceError::Embed(format!("cannot read the policy: {err}")))?;
    Policy::from_toml(&text).map_err(|err| ServiceError::Embed(format!("policy: {err}")))
}

/// Starts the embedded service, or attaches to one already listening on its address.
pub async fn start(data_dir: &Path) -> Result<Connected, ServiceError> {
    let address = std::env::var(LISTEN_ENV).unwrap_or_else(|_| DEFAULT_LISTEN.to_owned());
    let address: SocketAddr = address
        .parse()
        .map_err(|err| ServiceError::Embed(format!("{LISTEN_ENV}={address}: {err}")))?;
    let listener = match TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => {
            tracing::info!(%address, "a service already listens there; attaching to it");
            return attach_local(data_dir, &format!("http://{address}")).map_err(|err| match err {
                ServiceError::Token { path, .. } => ServiceError::Foreign {
                    address,
                    token: path,
                },
                other => other,
            });
        }
        Err(err) => {
            return Err(ServiceError::Embed(format!(
                "cannot listen on {address}: {err}"
            )))
        }
    };
    let mut config = Config::new(data_dir, policy()?);
    // The owner's credential lives only in this process: no approver.token for an agent to read.
    config.owner_in_memory = true;
    // Agents are blocked from the policy file the service runs with.
    config.policy_path = std::env::var_os(POLICY_ENV).map(std::path::PathBuf::from);
    let app = App::open(config)
        .await
        .map_err(|err| ServiceError::Embed(err.to_string()))?;
    let token = app
        .tokens()
        .map(|tokens| tokens.approver.clone())
        .ok_or_else(|| ServiceError::Embed("the desk keeps its database in SQLite".to_owned()))?;
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        if let Err(err) = app.serve(listener, shutdown).await {
            tracing::error!(%err, "the embedded service stopped");
        }
    });
    let url = format!("http://{address}");
    Ok(Connected {
        client: Client::new(&url, &token)?,
        url,
        embedded: true,
        shutdown: Some(stop),
    })
}
