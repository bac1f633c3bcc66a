//! Who may call, from where: Host and Origin checks, bearer tokens, the web desk's session,
//! roles.

use assent_core::Identity;
use assent_protocol::AUTHORIZATION;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{ACCESS_CONTROL_ALLOW_ORIGIN, HOST, ORIGIN};
use axum::http::request::Parts;
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::identities::token_hash;
use crate::state::AppState;
use crate::web::origin::is_loopback_host;

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
    if !is_served_host(state, host) {
        return Err(ApiError::MisdirectedRequest);
    }
    if let Some(origin) = req.headers().get(ORIGIN) {
        // A browser: only the desk's own page, and only with its session (a page never holds
        // a bearer token). Anything else — another site, a token in a page — is refused.
        let own = crate::web::origin::own_origin(&state.inner, host);
        if own.as_deref().map(str::as_bytes) != Some(origin.as_bytes()) {
            return Err(ApiError::Forbidden(
                "requests from browsers are refused".to_owned(),
            ));
        }
        if req.headers().contains_key(AUTHORIZATION) {
            return Err(ApiError::Forbidden(
                "the desk's page signs in with a passkey, never with a token".to_owned(),
            ));
        }
    }
    let cross_site = req
        .headers()
        .get("sec-fetch-site")
        .is_some_and(|site| site.as_bytes() != b"same-origin" && site.as_bytes() != b"none");
    if cross_site && !req.uri().path().starts_with("/desk") {
        // Another site's page reaching the API (a link, an image, a form): never served, even
        // though no cookie would go with it.
        return Err(ApiError::Forbidden(
            "requests from other sites are refused".to_owned(),
        ));
    }
    if let Some(query) = req.uri().query() {
        let carries_token = query.split('&').any(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            TOKEN_KEYS.contains(&key.to_ascii_lowercase().as_str()) || looks_like_token(value)
        });
        if carries_token {
            return Err(ApiError::BadRequest(
                "tokens are accepted only in the Authorization header".to_owned(),
            ));
        }
    }
    Ok(())
}

/// A loopback name with the service's port, or the host of its `--public-url`.
fn is_served_host(state: &AppState, host: &str) -> bool {
    is_loopback_host(host, state.inner.port)
        || state
            .inner
            .public_url
            .as_ref()
            .is_some_and(|url| url.names_host(host))
}

/// A token of ours (`assent_p_…`, `assent_a_…`) or an older one (64 hex digits) in a URL,
/// where it would end up in logs and histories.
fn looks_like_token(value: &str) -> bool {
    value.contains("assent_p_")
        || value.contains("assent_a_")
        || (value.len() >= 64 && value.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whoever presented a known token: a person or an agent.
#[derive(Debug, Clone)]
pub struct Caller(pub Identity);

/// A person's token: decide (within their roles), revoke, resume, read everything.
#[derive(Debug, Clone)]
pub struct Person(pub Identity);

impl Caller {
    /// Whether this caller may read what `requester` asked for: people see everything, an
    /// agent only its own requests.
    pub fn may_read(&self, requester: &str) -> bool {
        self.0.is_person() || self.0.name == requester
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let presented = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|token| !token.is_empty());
        let Some(presented) = presented else {
            return session_caller(parts, state).await;
        };
        // Checked against the identity version on every request (a cache entry is served
        // only while nothing changed), so a removed identity's token stops at once.
        let inner = &state.inner;
        inner
            .identities
            .identity(inner.store.as_ref(), &token_hash(presented))
            .await?
            .map(Caller)
            .ok_or(ApiError::Unauthorized)
    }
}

/// The person of the web desk's session cookie. A change (anything but GET/HEAD) must also
/// name the desk's own origin: the guard has refused any other, and SameSite=Strict keeps the
/// cookie from other sites' requests, so a forged form or fetch cannot act as the person.
async fn session_caller(parts: &Parts, state: &AppState) -> Result<Caller, ApiError> {
    let value = crate::web::session::cookie(&parts.headers).ok_or(ApiError::Unauthorized)?;
    let person = crate::web::session::person(&state.inner, value)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    let reads = matches!(parts.method, Method::GET | Method::HEAD);
    if !reads && !parts.headers.contains_key(ORIGIN) {
        return Err(ApiError::Forbidden(
            "a signed-in change must come from the desk's page".to_owned(),
        ));
    }
    Ok(Caller(person))
}

impl FromRequestParts<AppState> for Person {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Caller(identity) = Caller::from_request_parts(parts, state).await?;
        if identity.is_person() {
            Ok(Person(identity))
        } else {
            Err(ApiError::Forbidden(format!(
                "this call takes a person's token; {} is an agent",
                identity.name
            )))
        }
    }
}
