//! `GET /v1/grants[?status=]`, `POST /v1/grants/{id}/revoke`, `POST /v1/runs/{id}/end`.

use assent_core::GrantStatus;
use assent_protocol::{ErrorBody, Grant, GrantList, RevokeRequest, RunEndResponse};
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::json::{Body, Params};
use crate::state::AppState;
use crate::store::{Actor, Revocation};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct GrantQuery {
    /// `active`, `expired`, `revoked`, `exhausted` or `invalidated`.
    #[param(value_type = Option<String>)]
    pub status: Option<GrantStatus>,
}

#[utoipa::path(get, path = "/v1/grants", tag = "grants", params(GrantQuery),
    responses((status = 200, body = GrantList), (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn grant_list(
    State(state): State<AppState>,
    _person: Person,
    Params(query): Params<GrantQuery>,
) -> Result<Json<GrantList>, ApiError> {
    let shared = &state.inner;
    let grants = shared
        .store
        .grants(query.status, shared.clock.now())
        .await?;
    Ok(Json(GrantList { grants }))
}

#[utoipa::path(post, path = "/v1/grants/{id}/revoke", tag = "grants",
    params(("id" = String, Path, description = "grant id")),
    request_body = RevokeRequest,
    responses((status = 200, body = Grant), (status = 404, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "an agent's token"),
        (status = 409, body = ErrorBody, description = "already revoked")),
    security(("bearer" = [])))]
pub async fn grant_revoke(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
    Body(request): Body<RevokeRequest>,
) -> Result<Json<Grant>, ApiError> {
    let shared = &state.inner;
    // Any person may revoke: taking authority back is never a risk. The audit names the role
    // they hold closest to the grant's (task_author first).
    let revoke = Revocation {
        by: Actor::person(&who),
        reason: &request.reason,
    };
    shared
        .workflow
        .revoke_grant(&id, revoke, shared.clock.now())
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no grant {id}")))
}

#[utoipa::path(post, path = "/v1/runs/{id}/end", tag = "runs",
    params(("id" = String, Path, description = "run id")),
    responses((status = 200, body = RunEndResponse), (status = 401, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn run_end(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(run_id): Path<String>,
) -> Result<Json<RunEndResponse>, ApiError> {
    let shared = &state.inner;
    // An agent ends its own part of the run; a person ends all of it.
    let by = (!caller.is_person()).then_some(caller.name.as_str());
    let ended = shared
        .workflow
        .end_run(&run_id, by, shared.clock.now())
        .await?;
    Ok(Json(RunEndResponse {
        run_id,
        grants_expired: ended.grants_expired,
        approvals_cancelled: ended.approvals_cancelled,
    }))
}
