//! `GET /v1/runs/{id}/denials` and `POST /v1/approvals/{id}/forget`: a person's denial answers
//! equivalent requests of its run at once (never asking twice) until a person undoes it.

use assent_protocol::{Approval, ApprovalList, ErrorBody};
use axum::extract::{Path, State};
use axum::Json;

use crate::error::ApiError;
use crate::guard::Person;
use crate::state::AppState;
use crate::store::Actor;

#[utoipa::path(get, path = "/v1/runs/{id}/denials", tag = "runs",
    params(("id" = String, Path, description = "run id")),
    responses((status = 200, body = ApprovalList, description = "the run's remembered denials, newest first"),
        (status = 403, body = ErrorBody, description = "an agent's token")),
    security(("bearer" = [])))]
pub async fn denial_list(
    State(state): State<AppState>,
    _person: Person,
    Path(run_id): Path<String>,
) -> Result<Json<ApprovalList>, ApiError> {
    let shared = &state.inner;
    // With `deny_memory = "off"` nothing is remembered, so nothing is listed.
    let Some(since) = shared
        .policy
        .current()
        .deny_memory
        .remembered_since(shared.clock.now())
    else {
        return Ok(Json(ApprovalList {
            approvals: Vec::new(),
        }));
    };
    let approvals = shared.store.remembered_denials(&run_id, since).await?;
    Ok(Json(ApprovalList { approvals }))
}

#[utoipa::path(post, path = "/v1/approvals/{id}/forget", tag = "approvals",
    params(("id" = String, Path, description = "a denied approval")),
    responses((status = 200, body = Approval, description = "forgotten: equivalent requests ask again"),
        (status = 403, body = ErrorBody, description = "an agent's token"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "not a remembered denial")),
    security(("bearer" = [])))]
pub async fn denial_forget(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Result<Json<Approval>, ApiError> {
    let shared = &state.inner;
    let by = Actor::person(&who);
    shared
        .workflow
        .forget_denial(&id, by, shared.clock.now())
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no approval {id}")))
}
