//! The desk's side of the window link's types (crate `assent-ipc`, shared with the window):
//! its events carry the desk's snapshot, and a failed service call becomes a
//! [`CommandError`] the page branches on.

use assent_client::ClientError;
use assent_protocol::ErrorCode;

pub use assent_ipc::{CommandError, CommandErrorCode, DESK_EVENT};

use crate::desk::DeskSnapshot;

/// Every event on [`DESK_EVENT`], with the desk's snapshot.
pub type DeskEvent = assent_ipc::DeskEvent<DeskSnapshot>;

/// A failed service call as the page reads it: its code says what the page can do about it.
pub fn command_error(err: ClientError) -> CommandError {
    let code = match &err {
        ClientError::Unavailable(_) | ClientError::Timeout => CommandErrorCode::Unavailable,
        ClientError::Api {
            code: ErrorCode::Conflict,
            ..
        } => CommandErrorCode::Conflict,
        ClientError::Api {
            code: ErrorCode::BadRequest | ErrorCode::Unprocessable,
            ..
        } => CommandErrorCode::Invalid,
        ClientError::Api { .. } | ClientError::Malformed(_) | ClientError::Config(_) => {
            CommandErrorCode::Refused
        }
    };
    CommandError::new(code, said(&err))
}

/// A failed call as people read it: the service's own message when it refused (e.g. "this
/// approval needs the platform_admin role, which alice does not hold"), else what went wrong.
pub fn said(err: &ClientError) -> String {
    match err {
        ClientError::Api { message, .. } => message.clone(),
        other => other.to_string(),
    }
}
