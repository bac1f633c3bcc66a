//! `GET /v1/approvals/{id}[?wait=]` and `GET /v1/approvals[?status=pending]`.

use std::time::Duration;

use assent_core::ApprovalStatus;
use assent_protocol::{Approval, ApprovalList, ErrorBody};
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::json::Params;
use crate::state::AppState;
use crate::store::ApprovalRecord;

/// The longest long poll.
const MAX_WAIT_SECONDS: u64 = 300;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    /// Long-poll up to this many seconds (max 300) until the approval settles.
    pub wait: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `pending` for open prompts only.
    pub status: Option<String>,
}

#[utoipa::path(get, path = "/v1/approvals/{id}", tag = "approvals",
    params(("id" = String, Path, description = "approval id"), WaitQuery),
    responses((status = 200, body = Approval), (status = 404, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn approval_get(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Params(query): Params<WaitQuery>,
) -> Result<Json<Approval>, ApiError> {
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(MAX_WAIT_SECONDS));
    let mut approval = wait_for_settlement(&state, &caller, &id, wait).await?;
    with_waiting(&state, &mut approval);
    with_policy_lines(&state.inner, &state.inner.policy.current(), &mut approval);
    Ok(Json(approval))
}

#[utoipa::path(get, path = "/v1/approvals", tag = "approvals", params(ListQuery),
    responses((status = 200, body = ApprovalList), (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn approval_list(
    State(state): State<AppState>,
    _person: Person,
    Params(query): Params<ListQuery>,
) -> Result<Json<ApprovalList>, ApiError> {
    let pending_only = match query.status.as_deref() {
        None | Some("all") => false,
        Some("pending" | "requested") => true,
        Some(other) => return Err(ApiError::BadRequest(format!("unknown status {other:?}"))),
    };
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    let mut approvals = shared.store.approvals(pending_only).await?;
    let policy = shared.policy.current();
    for approval in &mut approvals {
        with_waiting(&state, approval);
        with_policy_lines(shared, &policy, approval);
    }
    Ok(Json(ApprovalList { approvals }))
}

/// What the policy in force says of deciding `approval` on a desk: its one-act line
/// (`[desk] quick_up_to`) and, while `[approvals] step_up` holds it, the web desk's page where
/// a passkey confirms it — so no desk offers a click the service would refuse. With them go
/// the prompt's words (`words`), made once for every desk.
pub(crate) fn with_policy_lines(
    shared: &crate::state::Shared,
    policy: &assent_core::Policy,
    approval: &mut Approval,
) {
    approval.quick_up_to = policy.desk.quick_up_to;
    approval.words = assent_protocol::words::prompt_words(approval);
    shared.reviews.annotate(approval, policy);
    let held = approval.status == ApprovalStatus::Requested
        && policy.approvals.step_up_holds(approval.facts.risk);
    approval.step_up_url = held.then(|| {
        format!(
            "{}/desk/#/pending/{}",
            crate::web::origin::desk_base(shared),
            approval.approval_id
        )
    });
}

/// Who waits on `approval` now, and when the last agent stopped (a settled one: nobody).
fn with_waiting(state: &AppState, approval: &mut Approval) {
    let (waiting, stopped) = state.inner.waiters.state(&approval.approval_id);
    approval.agents_waiting = waiting;
    approval.agents_stopped_waiting_at =
        stopped.filter(|_| approval.status == ApprovalStatus::Requested);
}

/// Loads the approval, settling it first when its time has run out.
pub async fn current(state: &AppState, id: &str) -> Result<Option<ApprovalRecord>, ApiError> {
    let shared = &state.inner;
    let Some(record) = shared.store.approval(id).await? else {
        return Ok(None);
    };
    let now = shared.clock.now();
    if record.approval.status == ApprovalStatus::Requested && now >= record.approval.expires_at {
        shared.workflow.expire_due(now).await?;
        return Ok(shared.store.approval(id).await?);
    }
    Ok(Some(record))
}

/// Answers at once when settled or `wait` is zero; otherwise when it settles or `wait` passes.
async fn wait_for_settlement(
    state: &AppState,
    caller: &Caller,
    id: &str,
    wait: Duration,
) -> Result<Approval, ApiError> {
    let deadline = Instant::now() + wait;
    // A waiting agent is a gate that will run the action once it is approved.
    let gate = (!caller.0.is_person() && !wait.is_zero()).then(|| state.inner.waiters.enter(id));
    // Subscribed before the first read: whatever happens to the approval after it wakes us.
    let mut changes = state.inner.approval_watch.subscribe(id);
    let mut shutdown = state.inner.shutdown.clone();
    // The approval as a wake told it settled: the answer, not read again (the caller was
    // found allowed to read it on the first round).
    let mut told: Option<Approval> = None;
    loop {
        let approval = match told.take() {
            Some(approval) => approval,
            None => {
                current(state, id)
                    .await?
                    .filter(|record| caller.may_read(&record.requester))
                    .ok_or_else(|| ApiError::NotFound(format!("no approval {id}")))?
                    .approval
            }
        };
        if approval.status != ApprovalStatus::Requested {
            if gate.is_some() {
                // This gate runs what was approved: a "once" grant's use is its, even when
                // another replica settled (that one could not count this gate as waiting).
                let now = state.inner.clock.now();
                state.inner.workflow.gate_answered(&approval, now).await?;
            }
            return Ok(approval);
        }
        if Instant::now() >= deadline {
            return Ok(approval);
        }
        tokio::select! {
            changed = changes.changed() => {
                if !changed {
                    return Ok(approval);
                }
                told = changes.settled();
            }
            () = tokio::time::sleep_until(deadline) => {}
            _ = shutdown.wait_for(|stop| *stop) => return Ok(approval),
        }
    }
}
