//! `GET /v1/runs?status=`, `GET /v1/runs/{id}` and `POST /v1/runs/{id}/resume`: runs held by
//! a timeout fallback.

use assent_protocol::{ErrorBody, RunList, RunState, RunStatus};
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::json::Params;
use crate::state::AppState;
use crate::store::Actor;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RunQuery {
    /// `paused` (the default) or `cancelled`.
    #[param(value_type = Option<String>)]
    pub status: Option<RunStatus>,
}

#[utoipa::path(get, path = "/v1/runs", tag = "runs", params(RunQuery),
    responses((status = 200, body = RunList, description = "the runs held with that status, most recent first"),
        (status = 400, body = ErrorBody, description = "`running` is not a held status"),
        (status = 403, body = ErrorBody, description = "not the approver")),
    security(("bearer" = [])))]
pub async fn run_list(
    State(state): State<AppState>,
    _person: Person,
    Params(query): Params<RunQuery>,
) -> Result<Json<RunList>, ApiError> {
    let status = query.status.unwrap_or(RunStatus::Paused);
    if status == RunStatus::Running {
        return Err(ApiError::BadRequest(
            "status must be paused or cancelled: running runs are not listed".to_owned(),
        ));
    }
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    let runs = shared.store.held_runs(status).await?;
    Ok(Json(RunList { runs }))
}

#[utoipa::path(get, path = "/v1/runs/{id}", tag = "runs",
    params(("id" = String, Path, description = "run id")),
    responses((status = 200, body = RunState, description = "running, paused (awaiting a person) or cancelled"),
        (status = 401, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn run_get(
    State(state): State<AppState>,
    _caller: Caller,
    Path(run_id): Path<String>,
) -> Result<Json<RunState>, ApiError> {
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    Ok(Json(shared.store.run_state(&run_id).await?))
}

#[utoipa::path(post, path = "/v1/runs/{id}/resume", tag = "runs",
    params(("id" = String, Path, description = "run id")),
    responses((status = 200, body = RunState, description = "the run may ask again"),
        (status = 403, body = ErrorBody, description = "not the approver"),
        (status = 409, body = ErrorBody, description = "the run is not paused (running, or cancelled for good)")),
    security(("bearer" = [])))]
pub async fn run_resume(
    State(state): State<AppState>,
    Person(who): Person,
    Path(run_id): Path<String>,
) -> Result<Json<RunState>, ApiError> {
    let shared = &state.inner;
    let now = shared.clock.now();
    shared.workflow.expire_due(now).await?;
    if who.roles.is_empty() {
        return Err(ApiError::Forbidden(format!(
            "{} holds no role, so may not resume a run",
            who.name
        )));
    }
    let by = Actor::person(&who);
    Ok(Json(shared.workflow.resume_run(&run_id, by, now).await?))
}
