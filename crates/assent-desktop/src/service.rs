//! Which service the desk talks to: the embedded one (assent-server in-process on
//! 127.0.0.1:7391, data in the user's data dir, tokens where the gate finds them), or a remote
//! one from `ASSENT_URL` + `ASSENT_TOKEN` or the settings.

use std::path::{Path, PathBuf};

use assent_client::{default_data_dir, Client, ClientError};
use assent_protocol::APPROVER_TOKEN_FILE;

use crate::settings::Service;

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("no data directory (set XDG_DATA_HOME or HOME)")]
    NoDataDir,
    #[error("cannot read the approver token {path}: {source}")]
    Token {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("cannot start the embedded service: {0}")]
    Embed(String),
}

/// The connection the desk uses.
pub struct Connected {
    pub client: Client,
    pub url: String,
    pub embedded: bool,
    /// Stops the embedded service (dropped or sent on quit).
    pub shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Reads a token file (trimmed).
pub fn read_token(path: &Path) -> Result<String, ServiceError> {
    std::fs::read_to_string(path)
        .map(|text| text.trim().to_owned())
        .map_err(|source| ServiceError::Token {
            path: path.to_owned(),
            source,
        })
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

/// A client of a local service already listening at `url` (e.g. `assent serve`), using the
/// approver token of the shared data dir.
pub fn attach_local(data_dir: &Path, url: &str) -> Result<Connected, ServiceError> {
    let token = read_token(&data_dir.join(APPROVER_TOKEN_FILE))?;
    Ok(Connected {
        client: Client::new(url, &token)?,
        url: url.to_owned(),
        embedded: false,
        shutdown: None,
    })
}
