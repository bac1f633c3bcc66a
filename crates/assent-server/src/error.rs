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
    #[error("the body is larger than 64 KiB")]
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
            ApiError::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Unavailable),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Conflict(message) => ApiError::Conflict(message),
            other => ApiError::Internal(other),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        if let ApiError::Internal(source) = &self {
            tracing::error!(error = %source, ?source, "request failed");
        }
        if let ApiError::PolicyFile(detail) = &self {
            tracing::error!(%detail, "cannot write the policy file");
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
