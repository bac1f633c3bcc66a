//! `POST /v1/approvals/{id}/decision`: a person approves (with a scope) or denies.

use assent_core::Identity;
use assent_protocol::{DecisionRequest, DecisionResponse, ErrorBody, SubmitStatus};
use axum::extract::{Path, State};
use axum::Json;

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::Body;
use crate::routes::approvals::current;
use crate::state::AppState;
use crate::workflow::Ground;

#[utoipa::path(post, path = "/v1/approvals/{id}/decision", tag = "approvals",
    params(("id" = String, Path, description = "approval id")),
    request_body = DecisionRequest,
    responses(
        (status = 200, body = DecisionResponse),
        (status = 400, body = ErrorBody, description = "scope not offered, or lifetime past the policy maximum"),
        (status = 403, body = ErrorBody, description = "an agent, the requester itself, or a person without the required role"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already settled, expired, or blocked"),
    ),
    security(("bearer" = [])))]
pub async fn approval_decide(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
    Body(request): Body<DecisionRequest>,
) -> Result<Json<DecisionResponse>, ApiError> {
    decide(&state, &who, &id, request).await.map(Json)
}

/// `who` decides the approval `id` (see `crate::workflow::Workflow::decide`); settling it
/// first when its time has run out.
pub async fn decide(
    state: &AppState,
    who: &Identity,
    id: &str,
    request: DecisionRequest,
) -> Result<DecisionResponse, ApiError> {
    let Some(record) = current(state, id).await? else {
        return Err(missing(state, id).await);
    };
    let shared = &state.inner;
    let policy = shared.policy.current();
    let ground = Ground {
        policy: &policy,
        env: &shared.env,
        gate_waiting: shared.waiters.count(id) > 0,
        now: shared.clock.now(),
    };
    let decided = shared
        .workflow
        .decide(&record, who, request, ground)
        .await?;
    if let Some(grant) = &decided.grant {
        shared.deadlines.propose(grant.grant.expires_at);
    }
    Ok(decided)
}

/// 409 for a blocked action (never approvable), 404 for anything else unknown.
async fn missing(state: &AppState, id: &str) -> ApiError {
    match state.inner.store.action(id).await {
        Ok(Some(action)) if action.status == SubmitStatus::Blocked => {
            ApiError::Conflict("blocked actions are never offered for approval".to_owned())
        }
        Ok(_) => ApiError::NotFound(format!("no approval {id}")),
        Err(err) => err.into(),
    }
}
