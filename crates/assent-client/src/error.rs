use assent_protocol::ErrorCode;

/// Why a call to the service failed. Callers branch on the variant (and on `code` for
/// [`ClientError::Api`]), never on message text.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The service could not be reached (connection refused, reset, DNS, bad URL scheme).
    #[error("assent service unavailable: {0}")]
    Unavailable(String),
    /// The service accepted the call but did not answer before the deadline.
    #[error("assent service did not answer in time")]
    Timeout,
    /// The service answered with an error body.
    #[error("assent service refused ({status}, {code:?}): {message}")]
    Api {
        status: u16,
        code: ErrorCode,
        message: String,
    },
    /// The answer was not what the API promises (bad JSON, bad HTTP, too large).
    #[error("malformed answer from assent service: {0}")]
    Malformed(String),
    /// The client itself is misconfigured (no token, bad URL).
    #[error("assent client configuration: {0}")]
    Config(String),
}

impl ClientError {
    /// Maps an error status and body to [`ClientError::Api`]; a body that is not the
    /// API's error shape is [`ClientError::Malformed`] (a 5xx from a proxy, for example).
    pub(crate) fn from_status(status: u16, body: &[u8]) -> ClientError {
        match serde_json::from_slice::<assent_protocol::ErrorBody>(body) {
            Ok(err) => ClientError::Api {
                status,
                code: err.error.code,
                message: err.error.message,
            },
            Err(_) => ClientError::Malformed(format!(
                "status {status} without an error body: {}",
                String::from_utf8_lossy(body.get(..200).unwrap_or(body))
            )),
        }
    }
}
