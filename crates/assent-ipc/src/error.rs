//! The one error every call answers with.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Why a command failed. The page branches on `code`, never on `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandError {
    pub code: CommandErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
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
    pub fn new(code: CommandErrorCode, message: impl Into<String>) -> CommandError {
        CommandError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> CommandError {
        CommandError::new(CommandErrorCode::Invalid, message)
    }

    pub fn unavailable(message: impl Into<String>) -> CommandError {
        CommandError::new(CommandErrorCode::Unavailable, message)
    }

    pub fn local(message: impl Into<String>) -> CommandError {
        CommandError::new(CommandErrorCode::Local, message)
    }
}
