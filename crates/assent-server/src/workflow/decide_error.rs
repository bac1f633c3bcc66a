//! Why a decision is refused, and the HTTP answer each reason gets; deciding and publishing a
//! prompt's settlement both return it.

use crate::error::ApiError;
use crate::store::StoreError;

/// Why a decision is refused.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// The prompt's state refuses it (settled, blocked, no longer evaluates): 409.
    #[error("{0}")]
    Conflict(String),
    /// Not this person's to decide: 403.
    #[error("{0}")]
    Forbidden(String),
    /// The choice is not allowed (scope not offered, lifetime past the policy): 400.
    #[error("{0}")]
    BadRequest(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DecideError> for ApiError {
    fn from(err: DecideError) -> Self {
        match err {
            DecideError::Conflict(message) => ApiError::Conflict(message),
            DecideError::Forbidden(message) => ApiError::Forbidden(message),
            DecideError::BadRequest(message) => ApiError::BadRequest(message),
            DecideError::Store(err) => err.into(),
        }
    }
}
