//! Who may call, from where: Host and Origin checks, bearer tokens, roles.

use assent_protocol::AUTHORIZATION;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{ACCESS_CONTROL_ALLOW_ORIGIN, HOST, ORIGIN};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::ApiError;
use crate::state::AppState;

/// Query keys that look like credentials; tokens travel only in `Authorization`.
const TOKEN_KEYS: &[&str] = &[
    "token",
    "access_token",
    "auth",
    "authorization",
    "api_key",
    "apikey",
    "bearer",
];

/// Refuses foreign hosts (DNS rebinding), browsers, and tokens in URLs, before any handler.
pub async fn refuse_hostile(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Err(err) = check_request(&state, &req) {
        return err.into_response();
    }
    let mut response = next.run(req).await;
    response.headers_mut().remove(ACCESS_CONTROL_ALLOW_ORIGIN);
    response
}

fn check_request(state: &AppState, req: &Request) -> Result<(), ApiError> {
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !is_loopback_host(host, state.inner.port) {
        return Err(ApiError::MisdirectedRequest);
    }
    if req.headers().contains_key(ORIGIN) {
        return Err(ApiError::Forbidden(
            "requests from browsers are refused".to_owned(),
        ));
    }
    if let Some(query) = req.uri().query() {
        let tokens = &state.inner.tokens;
        let carries_token = query.split('&').any(|pair| {
            let key = pair
                .split('=')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            TOKEN_KEYS.contains(&key.as_str())
        }) || query.contains(&tokens.requester)
            || query.contains(&tokens.approver);
        if carries_token {
            return Err(ApiError::BadRequest(
                "tokens are accepted only in the Authorization header".to_owned(),
            ));
        }
    }
    Ok(())
}

/// `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`, nothing else.
pub fn is_loopback_host(host: &str, port: u16) -> bool {
    let Some((name, host_port)) = host.rsplit_once(':') else {
        return false;
    };
    if host_port != port.to_string() {
        return false;
    }
    name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost") || name == "[::1]"
}

/// What a token allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Agents and gates: submit, read their own approvals, end runs.
    Requester,
    /// The person's app: decide, revoke, read everything.
    Approver,
}

impl Role {
    /// The identity recorded as `decided_by` and used for "its own" checks.
    pub fn name(self) -> &'static str {
        match self {
            Role::Requester => "requester",
            Role::Approver => "approver",
        }
    }
}

/// Any valid token.
#[derive(Debug, Clone, Copy)]
pub struct Caller(pub Role);

/// A requester token.
#[derive(Debug, Clone, Copy)]
pub struct Requester;

/// An approver token.
#[derive(Debug, Clone, Copy)]
pub struct Approver;

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let presented = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or(ApiError::Unauthorized)?;
        let tokens = &state.inner.tokens;
        let same = |token: &str| bool::from(presented.as_bytes().ct_eq(token.as_bytes()));
        if same(&tokens.approver) {
            Ok(Caller(Role::Approver))
        } else if same(&tokens.requester) {
            Ok(Caller(Role::Requester))
        } else {
            Err(ApiError::Unauthorized)
        }
    }
}

impl FromRequestParts<AppState> for Requester {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match Caller::from_request_parts(parts, state).await? {
            Caller(Role::Requester) => Ok(Requester),
            Caller(Role::Approver) => Err(ApiError::Forbidden(
                "this call takes the requester token".to_owned(),
            )),
        }
    }
}

impl FromRequestParts<AppState> for Approver {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match Caller::from_request_parts(parts, state).await? {
            Caller(Role::Approver) => Ok(Approver),
            Caller(Role::Requester) => Err(ApiError::Forbidden(
                "only the approver may do this".to_owned(),
            )),
        }
    }
}
