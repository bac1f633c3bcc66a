//! The web desk's sign-in routes: invites, passkey ceremonies, the session. Each handler
//! extracts, calls one function of `crate::web`, answers (setting or clearing the cookie).

use assent_core::Identity;
use assent_protocol::{
    CeremonyFinish, CeremonyStart, Enrolled, ErrorBody, Invite, InviteRequest, Me, PasskeyInfo,
    RegisterStart,
};
use axum::extract::{Path, State};
use axum::http::header::{HOST, ORIGIN, SET_COOKIE};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::json::Body;
use crate::state::AppState;
use crate::web::invite::{self, InviteError};
use crate::web::{passkeys, session};

/// The desk's origin a ceremony runs at (see [`crate::web::origin::of_request`]).
fn browser_origin(headers: &HeaderMap) -> Result<String, ApiError> {
    crate::web::origin::of_request(headers, "passkeys are used from the desk's page")
}

fn me_of(who: Identity) -> Me {
    Me {
        name: who.name,
        kind: who.kind,
        roles: who.roles.into_iter().collect(),
    }
}

impl From<InviteError> for ApiError {
    fn from(err: InviteError) -> Self {
        match err {
            InviteError::Store(store) => store.into(),
            InviteError::NoSuchPerson(_) => ApiError::NotFound(err.to_string()),
            InviteError::BadLifetime => ApiError::BadRequest(err.to_string()),
            InviteError::NotAllowed
            | InviteError::Unknown
            | InviteError::Used
            | InviteError::Expired => ApiError::Forbidden(err.to_string()),
        }
    }
}

#[utoipa::path(post, path = "/v1/invites", tag = "desk",
    request_body = InviteRequest,
    responses((status = 200, body = Invite, description = "a one-time link to enrol a passkey (shown once)"),
        (status = 403, body = ErrorBody, description = "an agent, or inviting someone else without platform_admin"),
        (status = 404, body = ErrorBody, description = "no such person")),
    security(("bearer" = []), ("session" = [])))]
pub async fn invite_create(
    State(state): State<AppState>,
    Person(who): Person,
    headers: HeaderMap,
    Body(request): Body<InviteRequest>,
) -> Result<Json<Invite>, ApiError> {
    let shared = &state.inner;
    let valid_for = match request.valid_for.as_deref() {
        Some(text) => invite::parse_for(text)?,
        None => invite::DEFAULT_FOR,
    };
    let person = request.person.unwrap_or_else(|| who.name.clone());
    let desk = match headers.get(ORIGIN).and_then(|v| v.to_str().ok()) {
        Some(origin) => origin.to_owned(),
        None => desk_url_for(&state, &headers),
    };
    let invite = invite::make(
        shared.store.as_ref(),
        &person,
        Some(&who),
        valid_for,
        &desk,
        shared.clock.now(),
    )
    .await?;
    Ok(Json(invite))
}

/// Where a client that is no browser reaches the desk: the public URL, else the loopback
/// name it called (as `localhost`, the name passkeys accept).
fn desk_url_for(state: &AppState, headers: &HeaderMap) -> String {
    let host = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match crate::web::origin::own_origin(&state.inner, host) {
        Some(origin) => origin
            .replace("://127.0.0.1:", "://localhost:")
            .replace("://[::1]:", "://localhost:"),
        None => format!("http://localhost:{}", state.inner.port),
    }
}

#[utoipa::path(post, path = "/v1/passkeys/register/start", tag = "desk",
    request_body = RegisterStart,
    responses((status = 200, body = CeremonyStart, description = "options for navigator.credentials.create"),
        (status = 401, body = ErrorBody, description = "no invite and no session"),
        (status = 403, body = ErrorBody, description = "the invite is unknown, used or expired; not from the desk's page")),
    security(("session" = [])))]
pub async fn register_start(
    State(state): State<AppState>,
    headers: HeaderMap,
    caller: Result<Caller, ApiError>,
    Body(request): Body<RegisterStart>,
) -> Result<Json<CeremonyStart>, ApiError> {
    let origin = browser_origin(&headers)?;
    let shared = &state.inner;
    let (person, invite) = match request.invite {
        Some(code) => {
            let person = invite::check(shared.store.as_ref(), &code, shared.clock.now()).await?;
            (person, Some(crate::token::token_hash(&code)))
        }
        None => match caller {
            Ok(Caller(who)) if who.is_person() => (who.name, None),
            _ => return Err(ApiError::Unauthorized),
        },
    };
    passkeys::register_start(shared, &origin, &person, invite)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/v1/passkeys/register/finish", tag = "desk",
    request_body = CeremonyFinish,
    responses((status = 200, body = Enrolled, description = "the passkey; an invite's enrolment also signs in (sets assent_session)"),
        (status = 403, body = ErrorBody, description = "the ceremony is unknown, finished or expired, or the credential does not verify"),
        (status = 409, body = ErrorBody, description = "the invite was used meanwhile, or the passkey is registered already")))]
pub async fn register_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    Body(request): Body<CeremonyFinish>,
) -> Result<Response, ApiError> {
    let origin = browser_origin(&headers)?;
    let shared = &state.inner;
    let done = passkeys::register_finish(
        shared,
        &origin,
        &request.ceremony,
        request.credential,
        request.label.as_deref(),
    )
    .await?;
    let passkey = passkeys::info(&done.key);
    let mut cookie = None;
    if done.invite.is_some() {
        let person = shared.store.identity(&done.person).await?.ok_or_else(|| {
            ApiError::NotFound(format!("there is no person named {}", done.person))
        })?;
        cookie = Some(session::open(shared, &person, "enrolled a passkey").await?);
    }
    let body = Json(Enrolled {
        person: done.person,
        passkey,
        signed_in: cookie.is_some(),
    });
    Ok(match cookie {
        Some(value) => ([(SET_COOKIE, session::set_cookie(&value, &origin))], body).into_response(),
        None => body.into_response(),
    })
}

#[utoipa::path(get, path = "/v1/passkeys", tag = "desk",
    responses((status = 200, body = [PasskeyInfo], description = "the caller's passkeys")),
    security(("bearer" = []), ("session" = [])))]
pub async fn passkey_list(
    State(state): State<AppState>,
    Person(who): Person,
) -> Result<Json<Vec<PasskeyInfo>>, ApiError> {
    let rows = state.inner.store.passkeys_of(&who.name).await?;
    Ok(Json(rows.iter().map(passkeys::info).collect()))
}

#[utoipa::path(delete, path = "/v1/passkeys/{id}", tag = "desk",
    params(("id" = String, Path, description = "credential id, base64url")),
    responses((status = 204, description = "removed; the last passkey's removal ends the person's sessions"),
        (status = 404, body = ErrorBody)),
    security(("bearer" = []), ("session" = [])))]
pub async fn passkey_remove(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Result<axum::http::StatusCode, ApiError> {
    if passkeys::remove(&state.inner, &who, &id).await? {
        Ok(axum::http::StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(
            "you hold no passkey with that id".to_owned(),
        ))
    }
}

#[utoipa::path(post, path = "/v1/session/start", tag = "desk",
    responses((status = 200, body = CeremonyStart, description = "options for navigator.credentials.get (any passkey of this desk)"),
        (status = 403, body = ErrorBody, description = "not from the desk's page")))]
pub async fn session_start(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<CeremonyStart>, ApiError> {
    let origin = browser_origin(&headers)?;
    passkeys::sign_in_start(&state.inner, &origin)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/v1/session/finish", tag = "desk",
    request_body = CeremonyFinish,
    responses((status = 200, body = Me, description = "signed in: sets the assent_session cookie"),
        (status = 403, body = ErrorBody, description = "a wrong, replayed or unknown assertion, or a finished ceremony")))]
pub async fn session_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    Body(request): Body<CeremonyFinish>,
) -> Result<Response, ApiError> {
    let origin = browser_origin(&headers)?;
    let shared = &state.inner;
    let person =
        passkeys::sign_in_finish(shared, &origin, &request.ceremony, request.credential).await?;
    let value = session::open(shared, &person, "passkey").await?;
    Ok((
        [(SET_COOKIE, session::set_cookie(&value, &origin))],
        Json(me_of(person)),
    )
        .into_response())
}

#[utoipa::path(post, path = "/v1/session/end", tag = "desk",
    responses((status = 204, description = "signed out: the session ends and its cookie is cleared")))]
pub async fn session_end(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let origin = browser_origin(&headers)?;
    if let Some(value) = session::cookie(&headers) {
        session::end(&state.inner, value).await?;
    }
    Ok((
        axum::http::StatusCode::NO_CONTENT,
        [(SET_COOKIE, session::clear_cookie(&origin))],
    )
        .into_response())
}
