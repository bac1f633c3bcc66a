//! `GET /v1/runs/{id}` and `POST /v1/runs/{id}/resume`: runs held by a timeout fallback.

use assent_protocol::{ErrorBody, RunState};
use axum::extract::{Path, State};
use axum::Json;

use crate::error::ApiError;
use crate::guard::{Approver, Caller};
use crate::state::AppState;

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
    shared.store.expire_due(shared.clock.now()).await?;
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
    _approver: Approver,
    Path(run_id): Path<String>,
) -> Result<Json<RunState>, ApiError> {
    let shared = &state.inner;
    let now = shared.clock.now();
    shared.store.expire_due(now).await?;
    Ok(Json(shared.store.resume_run(&run_id, now).await?))
}
