//! `POST /v1/approvals/{id}/decision`: a person approves (with a scope) or denies.

use assent_core::Identity;
use assent_protocol::{
    CeremonyStart, DecisionBody, DecisionRequest, DecisionResponse, ErrorBody, StepUpProof,
    SubmitStatus,
};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;

use crate::error::ApiError;
use crate::guard::Person;
use crate::handlers::approvals::current;
use crate::json::Body;
use crate::state::AppState;
use crate::store::ApprovalRecord;
use crate::workflow::Ground;

#[utoipa::path(post, path = "/v1/approvals/{id}/decision", tag = "approvals",
    params(("id" = String, Path, description = "approval id")),
    request_body = DecisionRequest,
    responses(
        (status = 200, body = DecisionResponse),
        (status = 400, body = ErrorBody, description = "scope not offered, or lifetime past the policy maximum"),
        (status = 403, body = ErrorBody, description = "an agent, the requester itself, a person without the required role, or step_up_required: the policy's [approvals] step_up asks a passkey assertion made for this approval (\"step_up\": {\"ceremony\", \"credential\"} in the body, from POST /v1/approvals/{id}/step-up)"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already settled, expired, or blocked"),
    ),
    security(("bearer" = [])))]
pub async fn approval_decide(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
    Body(body): Body<DecisionBody>,
) -> Result<Json<DecisionResponse>, ApiError> {
    // The prompt, read once for the step-up and the decision.
    let record = current(&state, &id).await?;
    step_up(
        &state,
        &who,
        &id,
        record.as_ref(),
        &body.request,
        body.step_up,
    )
    .await?;
    decide(&state, &who, &id, record, body.request)
        .await
        .map(Json)
}

/// The policy's `[approvals] step_up`: approving a prompt at or above that risk needs a
/// passkey assertion made for it, by the person deciding — a token, a session or the
/// desktop's credential alone is refused with `step_up_required`.
async fn step_up(
    state: &AppState,
    who: &Identity,
    id: &str,
    record: Option<&ApprovalRecord>,
    request: &DecisionRequest,
    proof: Option<StepUpProof>,
) -> Result<(), ApiError> {
    let DecisionRequest::Approve { .. } = request else {
        return Ok(());
    };
    let shared = &state.inner;
    let policy = shared.policy.current();
    if policy.approvals.step_up.is_none() {
        return Ok(());
    }
    let Some(record) = record else {
        return Ok(()); // the decision answers 404 / 409 itself
    };
    if !policy.approvals.step_up_holds(record.approval.facts.risk) {
        return Ok(());
    }
    let Some(proof) = proof else {
        return Err(ApiError::StepUpRequired(format!(
            "approving a {} risk prompt needs your passkey: confirm it in the web desk ({}/desk/#/pending/{id})",
            crate::web::risk_word(record.approval.facts.risk),
            crate::web::origin::desk_base(shared),
        )));
    };
    let binding = binding_of(&record.approval);
    crate::web::passkeys::step_up_finish(shared, who, &binding, &proof.ceremony, proof.credential)
        .await
}

/// The approval and every action in it: a batch that grew after the step-up started (a new
/// member joined) is not what the person confirmed, so the proof no longer fits.
fn binding_of(approval: &assent_protocol::Approval) -> String {
    let mut hashes: Vec<&str> = approval
        .members
        .iter()
        .map(|member| member.action_hash.as_str())
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    crate::web::passkeys::step_up_binding(&approval.approval_id, &hashes.join(","))
}

#[utoipa::path(post, path = "/v1/approvals/{id}/step-up", tag = "approvals",
    params(("id" = String, Path, description = "approval id")),
    responses(
        (status = 200, body = CeremonyStart, description = "options for navigator.credentials.get, bound to this approval and its action"),
        (status = 403, body = ErrorBody, description = "not from the desk's page, or the person holds no passkey"),
        (status = 404, body = ErrorBody),
    ),
    security(("session" = [])))]
pub async fn approval_step_up(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<CeremonyStart>, ApiError> {
    let origin =
        crate::web::origin::of_request(&headers, "a step-up is made from the desk's page")?;
    let Some(record) = current(&state, &id).await? else {
        return Err(missing(&state, &id).await);
    };
    crate::web::passkeys::step_up_start(&state.inner, &origin, &who, binding_of(&record.approval))
        .await
        .map(Json)
}

/// `who` decides the approval `id`, read as `record` (see `crate::workflow::Workflow::decide`;
/// [`current`] settled it first when its time had run out).
pub async fn decide(
    state: &AppState,
    who: &Identity,
    id: &str,
    record: Option<ApprovalRecord>,
    request: DecisionRequest,
) -> Result<DecisionResponse, ApiError> {
    let Some(record) = record else {
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
