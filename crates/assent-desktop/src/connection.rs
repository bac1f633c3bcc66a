//! A connection to a service and how making one fails: what the desk and the embedded service's
//! start both return, and attaching to a local service with the shared data dir's token.

use std::path::{Path, PathBuf};

use assent_client::{Client, ClientError};
use assent_protocol::APPROVER_TOKEN_FILE;

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
    /// The embedded service's address is taken by a service this desk cannot sign in to.
    #[error(
        "something else already listens on {address}, and this desk has no token for it \
         ({} is missing): quit that program, or start Assent with \
         ASSENT_DESKTOP_LISTEN=127.0.0.1:<a free port>",
        token.display()
    )]
    Foreign {
        address: std::net::SocketAddr,
        token: PathBuf,
    },
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
