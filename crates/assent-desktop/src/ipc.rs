//! The typed IPC surface besides the commands: one event channel carrying [`DeskEvent`]s, and
//! the one error type every command returns.

use assent_client::ClientError;
use assent_protocol::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::desk::DeskSnapshot;

/// The one event channel from Rust to the window.
pub const DESK_EVENT: &str = "assent:desk";

/// Every event on [`DESK_EVENT`].
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DeskEvent {
    /// The whole live picture (sent after every change).
    State { snapshot: DeskSnapshot },
    /// Show this prompt (tray menu or notification body click).
    Focus { approval_id: String },
}

/// Why a command failed. The UI branches on `code`, never on `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandError {
    pub code: CommandErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandErrorCode {
    /// The input is not acceptable (e.g. a deny without a reason).
    Invalid,
    /// The service cannot be reached.
    Unavailable,
    /// Somebody else decided first.
    Conflict,
    /// The service refused (role, own request, not found).
    Refused,
    /// Saving settings or another local failure.
    Local,
}

impl CommandError {
    pub fn invalid(message: impl Into<String>) -> CommandError {
        CommandError {
            code: CommandErrorCode::Invalid,
            message: message.into(),
        }
    }

    pub fn unavailable(message: impl Into<String>) -> CommandError {
        CommandError {
            code: CommandErrorCode::Unavailable,
            message: message.into(),
        }
    }

    pub fn local(message: impl Into<String>) -> CommandError {
        CommandError {
            code: CommandErrorCode::Local,
            message: message.into(),
        }
    }
}

impl From<ClientError> for CommandError {
    fn from(err: ClientError) -> Self {
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
        CommandError {
            code,
            message: said(&err),
        }
    }
}

/// A failed call as people read it: the service's own message when it refused (e.g. "this
/// approval needs the platform_admin role, which alice does not hold"), else what went wrong.
pub fn said(err: &ClientError) -> String {
    match err {
        ClientError::Api { message, .. } => message.clone(),
        other => other.to_string(),
    }
}
