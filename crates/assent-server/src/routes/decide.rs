//! `POST /v1/approvals/{id}/decision`: a person approves (with a scope) or denies.

use assent_core::workflow::{approve_event, grant_summary, issue_grant, GrantChoice, GrantOrder};
use assent_core::{
    may_decide, tally, ApprovalEvent, ApprovalStatus, Decidable, Identity, Role, Tally, Vote,
};
use assent_protocol::{
    Approval, DecisionRequest, DecisionResponse, ErrorBody, Resolution, SubmitStatus,
};
use axum::extract::{Path, State};
use axum::Json;

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::Body;
use crate::routes::approvals::current;
use crate::state::AppState;
use crate::store::{ApprovalRecord, NewGrant, Settlement};

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

/// `who` decides the approval `id`: a deny, or the approval that meets its threshold, settles
/// it and every member of its batch (creating the grant if approved); an approval short of
/// the threshold is recorded and the prompt stays pending.
pub async fn decide(
    state: &AppState,
    who: &Identity,
    id: &str,
    request: DecisionRequest,
) -> Result<DecisionResponse, ApiError> {
    let Some(record) = current(state, id).await? else {
        return Err(missing(state, id).await);
    };
    if record.approval.status != ApprovalStatus::Requested {
        return Err(ApiError::Conflict(format!(
            "the approval is already settled ({})",
            status_name(record.approval.status)
        )));
    }
    let requesters = [record.requester.clone()];
    let role = may_decide(
        who,
        Decidable {
            required_role: record.approval.required_role,
            requesters: &requesters,
        },
    )
    .map_err(|refusal| ApiError::Forbidden(refusal.to_string()))?;
    let by = Decider { who, role };
    let settlement = match request {
        DecisionRequest::Deny { reason } => settlement(
            state,
            &record,
            by,
            ApprovalEvent::Deny,
            reason.into(),
            None,
            Vec::new(),
        )?,
        DecisionRequest::Approve {
            scope,
            expires_in_seconds,
            max_uses,
            reason,
            path_patterns,
        } => {
            let grant = grant_for(
                state,
                &record,
                by,
                &GrantChoice {
                    scope,
                    expires_in_seconds,
                    max_uses,
                    path_patterns,
                },
            )?;
            let vote = Vote {
                by: who.name.clone(),
                role,
                at: state.inner.clock.now(),
            };
            let so_far: Vec<Vote> = record
                .approval
                .approvals
                .iter()
                .cloned()
                .map(Into::into)
                .collect();
            match tally(&so_far, vote.clone(), record.approval.required_approvals) {
                Tally::Short { .. } => {
                    let at = vote.at;
                    let approval = state.inner.workflow.vote(id, &vote, at).await?;
                    return Ok(DecisionResponse {
                        approval,
                        grant: None,
                    });
                }
                Tally::Met(votes) => settlement(
                    state,
                    &record,
                    by,
                    approve_event(scope),
                    reason,
                    Some(grant),
                    votes,
                )?,
            }
        }
    };
    let settled = state.inner.workflow.settle(&settlement).await?;
    if let Some(grant) = &settled.grant {
        state.inner.deadlines.propose(grant.grant.expires_at);
    }
    Ok(DecisionResponse {
        approval: settled.approval,
        grant: settled.grant,
    })
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

/// The person deciding and the role they decide in.
#[derive(Debug, Clone, Copy)]
struct Decider<'a> {
    who: &'a Identity,
    role: Role,
}

fn settlement(
    state: &AppState,
    record: &ApprovalRecord,
    by: Decider<'_>,
    event: ApprovalEvent,
    reason: Option<String>,
    grant: Option<NewGrant>,
    votes: Vec<Vote>,
) -> Result<Settlement, ApiError> {
    let status = record
        .approval
        .status
        .apply(event)
        .map_err(|err| ApiError::Conflict(err.to_string()))?;
    let resolution = if event == ApprovalEvent::Deny {
        Resolution::Denied
    } else {
        Resolution::Approved
    };
    Ok(Settlement {
        approval_id: record.approval.approval_id.clone(),
        status,
        resolution,
        decided_by: by.who.name.clone(),
        decided_role: Some(by.role),
        votes,
        reason,
        grant,
        now: state.inner.clock.now(),
    })
}

/// The grant an approval of `choice` creates: the core's rule (`issue_grant`) over the
/// prompt, today's policy and evaluation of its first request, and the gates waiting now.
fn grant_for(
    state: &AppState,
    record: &ApprovalRecord,
    by: Decider<'_>,
    choice: &GrantChoice,
) -> Result<NewGrant, ApiError> {
    let shared = &state.inner;
    let approval: &Approval = &record.approval;
    let request = &record.first_request;
    let eval = assent_core::evaluate(&shared.policy, request, &shared.env)
        .map_err(|err| ApiError::Conflict(format!("the request no longer evaluates: {err}")))?;
    let grant_id = crate::records::new_id();
    let order = GrantOrder {
        grant_id: &grant_id,
        approval_id: &approval.approval_id,
        run_id: &approval.run_id,
        action_kind: approval.action_kind,
        offered_scopes: &approval.offered_scopes,
        request,
        eval: &eval,
        max_lifetime: shared.policy.max_lifetime(choice.scope),
        created_by: &by.who.name,
        gate_waiting: shared.waiters.count(&approval.approval_id) > 0,
        now: shared.clock.now(),
    };
    let grant = issue_grant(order, choice).map_err(|err| {
        if err.is_conflict() {
            ApiError::Conflict(err.to_string())
        } else {
            ApiError::BadRequest(err.to_string())
        }
    })?;
    let summary = grant_summary(
        &grant,
        approval.profile.as_deref(),
        &approval.evidence.summary,
    );
    Ok(NewGrant {
        grant,
        summary,
        created_by_role: Some(by.role),
    })
}

fn status_name(status: ApprovalStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
