//! `POST /v1/actions`: an agent asks to act.

use assent_core::request::{MAX_TASK_TURNS, MAX_TASK_TURN_CHARS};
use assent_core::{ActionRequest, Decision};
use assent_protocol::{ErrorBody, ExecutedRequest, ExecutedResponse, SubmitResponse, SubmitStatus};
use axum::extract::State;
use axum::Json;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::guard::Caller;
use crate::json::Body;
use crate::state::AppState;
use crate::store::rows::ExecutedBy;
use crate::store::{Submission, Submitted};
use crate::workflow::executed::Unsubmitted;

/// Longest identifier accepted for runs, tasks and idempotency keys.
const MAX_ID_LEN: usize = 200;

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

/// Evaluates the request and records it: auto → allowed, block → blocked, ask → a covering
/// grant's use or a (batched) prompt. `requester` is the identity asking: it sees only its own
/// requests and can never decide them. `screen`: an ask only answers `would_ask` (hooks that
/// can deny but not wait, such as Codex's PreToolUse).
pub async fn submit(
    state: &AppState,
    requester: &str,
    mut request: ActionRequest,
    screen: bool,
) -> Result<SubmitResponse, ApiError> {
    validate(&request)?;
    let shared = &state.inner;
    let policy = shared.policy.current();
    keep_task_turns(&mut request, &policy);
    let eval = assent_core::evaluate(&policy, &request, &shared.env)
        .map_err(|err| ApiError::BadRequest(err.to_string()))?;
    let body_hash = body_hash(&request)?;
    let now = shared.clock.now();
    let approval_expires_at = now + policy.approval_timeout();
    let required_approvals =
        policy.approvals_required(eval.decision.required_role, &eval.decision.rule);
    // Known before the prompt is announced: whether the reviewer will take it.
    let expected = if screen {
        None
    } else {
        shared.reviews.expect(&eval, &policy)
    };
    let submission = Box::new(Submission {
        action_id: uuid::Uuid::new_v4().to_string(),
        requester: requester.to_owned(),
        body_hash,
        request,
        eval,
        now,
        approval_expires_at,
        fallback_on_timeout: policy.fallback_on_timeout(),
        required_approvals,
        denials_since: policy.deny_memory.remembered_since(now),
        screen,
        routed: policy.routing.escalate_after().is_some(),
    });
    let submitted = shared.workflow.submit(submission).await;
    let opened =
        matches!(&submitted, Ok(Submitted::Recorded(a)) if a.status == SubmitStatus::Pending);
    if let Some(key) = expected.filter(|_| !opened) {
        shared.reviews.unexpect(&key);
    }
    match submitted? {
        Submitted::Recorded(answer) => {
            if answer.status == SubmitStatus::Pending {
                // A new prompt (a joined one expires sooner, which the sweeper knows).
                shared.deadlines.propose(approval_expires_at);
                // The reviewer's call and the first step's hook, off the agent's path.
                if policy.reviewer.is_some() {
                    if let Some(id) = answer.approval_id.clone() {
                        let state = state.clone();
                        tokio::spawn(async move { crate::reviewing::opened(&state, &id).await });
                    }
                }
                let (state, opened) = (state.clone(), answer.clone());
                tokio::spawn(async move { crate::routing::opened(&state, &opened).await });
            }
            Ok(answer)
        }
        Submitted::Replayed(answer) => Ok(answer),
        Submitted::KeyReused => Err(ApiError::Unprocessable(
            "this idempotency key was used with another request".to_owned(),
        )),
    }
}

/// The hash that tells a resubmission under an idempotency key from the key's reuse with
/// another body; empty without a key (nothing is ever compared with it).
fn body_hash(request: &ActionRequest) -> Result<String, ApiError> {
    if request.idempotency_key.is_none() {
        return Ok(String::new());
    }
    let body = serde_json::to_vec(request)
        .map_err(|err| ApiError::BadRequest(format!("invalid body: {err}")))?;
    Ok(hex::encode(Sha256::digest(&body)))
}

fn validate(request: &ActionRequest) -> Result<(), ApiError> {
    let ids = [
        ("run_id", Some(&request.run_id)),
        ("task_id", Some(&request.task_id)),
        ("idempotency_key", request.idempotency_key.as_ref()),
    ];
    for (field, value) in ids {
        let Some(value) = value else { continue };
        if value.is_empty() || value.len() > MAX_ID_LEN || value.chars().any(char::is_control) {
            return Err(ApiError::BadRequest(format!(
                "{field} must be 1 to {MAX_ID_LEN} printable characters"
            )));
        }
    }
    let turns = &request.context.task_turns;
    if turns.len() > MAX_TASK_TURNS
        || turns
            .iter()
            .any(|t| t.chars().count() > MAX_TASK_TURN_CHARS)
    {
        return Err(ApiError::BadRequest(format!(
            "context.task_turns holds at most {MAX_TASK_TURNS} turns of at most \
             {MAX_TASK_TURN_CHARS} characters each"
        )));
    }
    Ok(())
}

/// The person's task turns stay only when the model reviewer may read them (`share_task`),
/// masked; otherwise they are dropped on arrival and never stored.
fn keep_task_turns(request: &mut ActionRequest, policy: &assent_core::Policy) {
    let turns = &mut request.context.task_turns;
    if policy.reviewer.as_ref().is_some_and(|r| r.share_task) {
        for turn in turns.iter_mut() {
            *turn = assent_core::mask::mask_secrets(turn);
        }
    } else {
        turns.clear();
    }
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
    let shared = &state.inner;
    let now = shared.clock.now();
    let workflow = &shared.workflow;
    let key = ExecutedBy::Key(&report.idempotency_key);
    let mut executed = workflow
        .record_executed(&who.name, &report.run_id, key, now)
        .await?;
    if let (None, Some(action)) = (&executed, &report.action) {
        if action.run_id != report.run_id {
            return Err(ApiError::BadRequest(
                "the action's run_id is not the report's run_id".to_owned(),
            ));
        }
        let policy = shared.policy.current();
        let eval = assent_core::evaluate(&policy, action, &shared.env)
            .map_err(|err| ApiError::BadRequest(err.to_string()))?;
        let hash = ExecutedBy::ActionHash {
            hash: &eval.action_hash,
            key: &report.idempotency_key,
        };
        executed = match workflow
            .record_executed(&who.name, &report.run_id, hash, now)
            .await?
        {
            Some(found) => Some(found),
            // What the policy allows needs no submission to be covered.
            None if eval.decision.decision == Decision::Auto => None,
            None => {
                let ran = Unsubmitted {
                    requester: &who.name,
                    idempotency_key: &report.idempotency_key,
                    request: action,
                    eval: &eval,
                };
                Some(workflow.record_unsubmitted(ran, now).await?)
            }
        };
    }
    let executed = executed.ok_or_else(|| {
        ApiError::NotFound(
            "no action was submitted under this key (or like this action) in this run".to_owned(),
        )
    })?;
    Ok(Json(ExecutedResponse {
        action_id: executed.action_id,
        covered: executed.covered,
    }))
}
