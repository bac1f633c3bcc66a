//! `GET /v1/me`, `GET /v1/people`, `GET /v1/agents`: who is calling, and who exists.

use assent_core::IdentityKind;
use assent_protocol::{ErrorBody, IdentityList, Me};
use axum::extract::State;
use axum::Json;

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::state::AppState;

#[utoipa::path(get, path = "/v1/me", tag = "identities",
    responses((status = 200, body = Me, description = "the identity the token belongs to"),
        (status = 401, body = ErrorBody, description = "no token, an unknown one, or a removed identity's")),
    security(("bearer" = [])))]
pub async fn me(Caller(who): Caller) -> Json<Me> {
    Json(Me {
        name: who.name,
        kind: who.kind,
        roles: who.roles.into_iter().collect(),
    })
}

#[utoipa::path(get, path = "/v1/people", tag = "identities",
    responses((status = 200, body = IdentityList, description = "every person, with roles (never tokens)"),
        (status = 403, body = ErrorBody, description = "an agent's token")),
    security(("bearer" = [])))]
pub async fn people_list(
    State(state): State<AppState>,
    _person: Person,
) -> Result<Json<IdentityList>, ApiError> {
    list(&state, IdentityKind::Person).await
}

#[utoipa::path(get, path = "/v1/agents", tag = "identities",
    responses((status = 200, body = IdentityList, description = "every agent (never tokens)"),
        (status = 403, body = ErrorBody, description = "an agent's token")),
    security(("bearer" = [])))]
pub async fn agent_list(
    State(state): State<AppState>,
    _person: Person,
) -> Result<Json<IdentityList>, ApiError> {
    list(&state, IdentityKind::Agent).await
}

async fn list(state: &AppState, kind: IdentityKind) -> Result<Json<IdentityList>, ApiError> {
    let identities = state.inner.store.identities(kind).await?;
    Ok(Json(IdentityList { identities }))
}
