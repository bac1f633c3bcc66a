use serde::{Deserialize, Serialize};

/// Every error answer: `{"error":{"code","message"}}`. Clients branch on `code`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    pub message: String,
}

/// Stable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PayloadTooLarge,
    UnsupportedMediaType,
    Unprocessable,
    MisdirectedRequest,
    Internal,
    Unavailable,
    /// 403: approving this needs a passkey assertion made for it (`[approvals] step_up`).
    StepUpRequired,
}
