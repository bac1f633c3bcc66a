//! `POST /v1/actions`: an agent asks to act.

use assent_core::ActionRequest;
use assent_protocol::{ErrorBody, ExecutedRequest, ExecutedResponse, SubmitResponse};
use axum::extract::State;
use axum::Json;

use crate::error::ApiError;
use crate::guard::Caller;
use crate::json::Body;
use crate::state::AppState;
use crate::workflow::Answered;

#[utoipa::path(post, path = "/v1/actions", tag = "actions",
    request_body = ActionRequest,
    responses(
        (status = 200, body = SubmitResponse, description = "allowed, blocked or pending"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 422, body = ErrorBody, description = "idempotency key reused with another body"),
    ),
    security(("bearer" = [])))]
pub async fn submit_action(
    State(state): State<AppState>,
    Caller(who): Caller,
    Body(request): Body<ActionRequest>,
) -> Result<Json<SubmitResponse>, ApiError> {
    submit(&state, &who.name, request, false).await.map(Json)
}

#[utoipa::path(post, path = "/v1/actions/screen", tag = "actions",
    request_body = ActionRequest,
    responses(
        (status = 200, body = SubmitResponse, description = "allowed, blocked, denied (a person denied an equivalent action in this run) or would_ask: no prompt is opened and an ask records nothing"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 422, body = ErrorBody, description = "idempotency key reused with another body"),
    ),
    security(("bearer" = [])))]
pub async fn screen_action(
    State(state): State<AppState>,
    Caller(who): Caller,
    Body(request): Body<ActionRequest>,
) -> Result<Json<SubmitResponse>, ApiError> {
    submit(&state, &who.name, request, true).await.map(Json)
}

/// Records the request (the workflow checks and evaluates it: auto → allowed, block →
/// blocked, ask → a covering grant's use or a (batched) prompt), then what a new prompt sets
/// going off the agent's path: the expiry sweeper, the model reviewer, the first routing step.
/// `requester` is the identity asking: it sees only its own requests and can never decide
/// them. `screen`: an ask only answers `would_ask`.
pub async fn submit(
    state: &AppState,
    requester: &str,
    request: ActionRequest,
    screen: bool,
) -> Result<SubmitResponse, ApiError> {
    let shared = &state.inner;
    let Answered { answer, prompt } = shared.workflow.submit(requester, request, screen).await?;
    if let Some(prompt) = prompt {
        // A new prompt (a joined one expires sooner, which the sweeper knows).
        shared.deadlines.propose(prompt.record.approval.expires_at);
        if prompt.opened {
            let (state, approval) = (state.clone(), prompt.record.approval.clone());
            tokio::spawn(async move { crate::routing::opened(&state, &approval).await });
        }
        if prompt.policy.reviewer.is_some() {
            let state = state.clone();
            tokio::spawn(async move { crate::reviewing::opened(&state, prompt).await });
        }
    }
    Ok(answer)
}

#[utoipa::path(post, path = "/v1/actions/executed", tag = "actions",
    request_body = ExecutedRequest,
    responses(
        (status = 200, body = ExecutedResponse, description = "recorded (once) and audited; `covered` says whether anything allowed it"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody, description = "no action was submitted under this key in this run"),
    ),
    security(("bearer" = [])))]
pub async fn action_executed(
    State(state): State<AppState>,
    Caller(who): Caller,
    Body(report): Body<ExecutedRequest>,
) -> Result<Json<ExecutedResponse>, ApiError> {
    let executed = state
        .inner
        .workflow
        .executed(&who.name, &report)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(
                "no action was submitted under this key (or like this action) in this run"
                    .to_owned(),
            )
        })?;
    Ok(Json(ExecutedResponse {
        action_id: executed.action_id,
        covered: executed.covered,
    }))
}
