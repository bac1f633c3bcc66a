//! Typed errors inside, `{"error":{"code","message"}}` outside; internals only in the log.

use assent_protocol::{ErrorBody, ErrorCode, ErrorDetail};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::store::StoreError;

/// Why a request failed, as the client may know it.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("a valid bearer token is required")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Conflict(String),
    #[error("the body is larger than 512 KiB")]
    PayloadTooLarge,
    #[error("the body must be application/json")]
    UnsupportedMediaType,
    #[error("{0}")]
    Unprocessable(String),
    #[error("this host name is not served here")]
    MisdirectedRequest,
    #[error("internal error")]
    Internal(#[source] StoreError),
    /// The policy file could not be read or written (the detail is logged).
    #[error("cannot write the policy file")]
    PolicyFile(String),
    #[error("the service is shutting down")]
    Unavailable,
    /// The policy's `[approvals] step_up`: approving needs a passkey assertion for it.
    #[error("{0}")]
    StepUpRequired(String),
    /// The database cannot be reached (or is restarting); nothing was recorded, so the
    /// client may retry, and a gate fails closed.
    #[error("the database is unreachable; nothing was recorded, retry shortly")]
    DatabaseUnavailable(#[source] StoreError),
    /// The disk holding the database is full: nothing was recorded until space is freed.
    #[error("the service's disk is full: nothing was recorded; free space where its data is kept")]
    DiskFull(#[source] StoreError),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, ErrorCode) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, ErrorCode::Forbidden),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound),
            ApiError::MethodNotAllowed => {
                (StatusCode::METHOD_NOT_ALLOWED, ErrorCode::MethodNotAllowed)
            }
            ApiError::Conflict(_) => (StatusCode::CONFLICT, ErrorCode::Conflict),
            ApiError::PayloadTooLarge => {
                (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge)
            }
            ApiError::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
            ),
            ApiError::Unprocessable(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::Unprocessable)
            }
            ApiError::MisdirectedRequest => (
                StatusCode::MISDIRECTED_REQUEST,
                ErrorCode::MisdirectedRequest,
            ),
            ApiError::Internal(_) | ApiError::PolicyFile(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal)
            }
            ApiError::StepUpRequired(_) => (StatusCode::FORBIDDEN, ErrorCode::StepUpRequired),
            ApiError::Unavailable | ApiError::DatabaseUnavailable(_) | ApiError::DiskFull(_) => {
                (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Unavailable)
            }
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Conflict(message) => ApiError::Conflict(message),
            full if full.is_disk_full() => ApiError::DiskFull(full),
            StoreError::Database(db) if connection_lost(&db) => {
                ApiError::DatabaseUnavailable(StoreError::Database(db))
            }
            other => ApiError::Internal(other),
        }
    }
}

/// Whether `err` says the database is out of reach (rather than that a statement failed):
/// no connection within the pool's timeout, a broken socket, or a server shutting down.
fn connection_lost(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        // SQLSTATE class 08 (connection exception) and 57P (operator intervention: the
        // server shuts down, restarts, or cannot accept connections yet).
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        match &self {
            ApiError::Internal(source) => {
                tracing::error!(error = %source, ?source, "request failed")
            }
            ApiError::DatabaseUnavailable(source) => {
                tracing::warn!(error = %source, "request failed: the database is unreachable");
            }
            ApiError::DiskFull(source) => {
                tracing::error!(error = %source, "request failed: the disk is full");
            }
            ApiError::PolicyFile(detail) => {
                tracing::error!(%detail, "cannot write the policy file");
            }
            _ => {}
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code,
                message: self.to_string(),
            },
        };
        (status, Json(body)).into_response()
    }
}
