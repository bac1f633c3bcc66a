//! A run's start and fleet campaigns: `POST /v1/runs/{id}/start`, `POST /v1/campaigns`,
//! `GET /v1/campaigns[/{id}]`, `POST /v1/campaigns/{id}/stages|outcomes|resume`.

use assent_core::campaign::Campaign;
use assent_core::pre_run::RunPlan;
use assent_core::RiskLevel;
use assent_protocol::{
    CampaignAnswer, CampaignCreate, CampaignList, ErrorBody, OutcomeReport, RunStartRequest,
    RunStartResponse, RunStartStatus, StageProposal,
};
use axum::extract::{Path, State};
use axum::Json;
use utoipa::{Modify, OpenApi};

use crate::error::ApiError;
use crate::guard::{Caller, Person};
use crate::json::Body;
use crate::state::AppState;
use crate::store::Actor;
use crate::workflow::campaign;
use crate::workflow::start::{self, StartError, StartGround};

impl From<StartError> for ApiError {
    fn from(err: StartError) -> Self {
        match err {
            StartError::NotFound(message) => ApiError::NotFound(message),
            StartError::BadRequest(message) => ApiError::BadRequest(message),
            StartError::Store(err) => err.into(),
        }
    }
}

/// Longest run id, task, repository or listed item.
const MAX_TEXT: usize = 2000;

#[utoipa::path(post, path = "/v1/runs/{id}/start", tag = "runs",
    params(("id" = String, Path, description = "run id")),
    request_body = RunStartRequest,
    responses((status = 200, body = RunStartResponse, description = "started, pending (a pre-run approval is open) or blocked"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such campaign"),
        (status = 409, body = ErrorBody, description = "the run is paused or cancelled")),
    security(("bearer" = [])))]
pub async fn run_start(
    State(state): State<AppState>,
    Caller(who): Caller,
    Path(run_id): Path<String>,
    Body(request): Body<RunStartRequest>,
) -> Result<Json<RunStartResponse>, ApiError> {
    let plan = plan_of(run_id, &request)?;
    let shared = &state.inner;
    let policy = shared.policy.current();
    let now = shared.clock.now();
    shared.workflow.expire_due(now).await?;
    let ground = StartGround {
        requester: &who.name,
        policy: &policy,
        env: &shared.env,
        now,
    };
    let answer = start::start(
        shared.store.as_ref(),
        &plan,
        request.repo.as_deref(),
        ground,
    )
    .await?;
    if answer.status == RunStartStatus::Pending {
        shared.deadlines.propose(now + policy.approval_timeout());
    }
    Ok(Json(answer))
}

/// The run's plan, its texts checked.
fn plan_of(run_id: String, r: &RunStartRequest) -> Result<RunPlan, ApiError> {
    let texts = std::iter::once(&run_id)
        .chain(std::iter::once(&r.task))
        .chain(&r.repos)
        .chain(&r.expected)
        .chain(&r.credentials)
        .chain(&r.remote_mutation)
        .chain(&r.campaign)
        .chain(&r.repo);
    for text in texts {
        if text.trim().is_empty() || text.len() > MAX_TEXT || text.contains(['\0', '\r']) {
            return Err(ApiError::BadRequest(format!(
                "run id, task and every listed item must be 1 to {MAX_TEXT} characters"
            )));
        }
    }
    if r.repo.is_some() != r.campaign.is_some() {
        return Err(ApiError::BadRequest(
            "--campaign and --repo go together".to_owned(),
        ));
    }
    Ok(RunPlan {
        run_id,
        task: r.task.clone(),
        risk: r.risk.unwrap_or(RiskLevel::Low),
        repos: r.repos.clone(),
        expected_actions: r.expected.clone(),
        credentials: r.credentials.clone(),
        remote_mutation: r.remote_mutation.clone(),
        campaign: r.campaign.clone(),
    })
}

#[utoipa::path(post, path = "/v1/campaigns", tag = "campaigns",
    request_body = CampaignCreate,
    responses((status = 200, body = CampaignAnswer, description = "created, its definition's fleet approval open"),
        (status = 400, body = ErrorBody, description = "the file has an error (its line and field named); nothing was created"),
        (status = 409, body = ErrorBody, description = "a campaign of that name exists")),
    security(("bearer" = [])))]
pub async fn campaign_create(
    State(state): State<AppState>,
    Caller(who): Caller,
    Body(request): Body<CampaignCreate>,
) -> Result<Json<CampaignAnswer>, ApiError> {
    let shared = &state.inner;
    let policy = shared.policy.current();
    let now = shared.clock.now();
    let ground = StartGround {
        requester: &who.name,
        policy: &policy,
        env: &shared.env,
        now,
    };
    let answer = campaign::create(shared.store.as_ref(), &request.file, ground).await?;
    shared.deadlines.propose(now + policy.approval_timeout());
    Ok(Json(answer))
}

#[utoipa::path(get, path = "/v1/campaigns", tag = "campaigns",
    responses((status = 200, body = CampaignList, description = "every campaign, most recently changed first")),
    security(("bearer" = [])))]
pub async fn campaign_list(
    State(state): State<AppState>,
    _caller: Caller,
) -> Result<Json<CampaignList>, ApiError> {
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    let campaigns = campaign::list(shared.store.as_ref()).await?;
    Ok(Json(CampaignList { campaigns }))
}

#[utoipa::path(get, path = "/v1/campaigns/{id}", tag = "campaigns",
    params(("id" = String, Path, description = "campaign name")),
    responses((status = 200, body = Campaign), (status = 404, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn campaign_get(
    State(state): State<AppState>,
    _caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Campaign>, ApiError> {
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    Ok(Json(campaign::get(shared.store.as_ref(), &id).await?))
}

#[utoipa::path(post, path = "/v1/campaigns/{id}/stages", tag = "campaigns",
    params(("id" = String, Path, description = "campaign name")),
    request_body = StageProposal,
    responses((status = 200, body = CampaignAnswer, description = "the stage proposed, its fleet approval open"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "not active (awaiting approval, stopped), a stage pending, or nothing left to stage")),
    security(("bearer" = [])))]
pub async fn campaign_stage(
    State(state): State<AppState>,
    Caller(who): Caller,
    Path(id): Path<String>,
    Body(request): Body<StageProposal>,
) -> Result<Json<CampaignAnswer>, ApiError> {
    let shared = &state.inner;
    let policy = shared.policy.current();
    let now = shared.clock.now();
    shared.workflow.expire_due(now).await?;
    let ground = StartGround {
        requester: &who.name,
        policy: &policy,
        env: &shared.env,
        now,
    };
    let answer = campaign::stage(shared.store.as_ref(), &id, request.next, ground).await?;
    shared.deadlines.propose(now + policy.approval_timeout());
    Ok(Json(answer))
}

#[utoipa::path(post, path = "/v1/campaigns/{id}/outcomes", tag = "campaigns",
    params(("id" = String, Path, description = "campaign name")),
    request_body = OutcomeReport,
    responses((status = 200, body = CampaignAnswer, description = "recorded; `campaign.status` is `stopped` when the threshold was reached"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the repository is in no approved batch")),
    security(("bearer" = [])))]
pub async fn campaign_report(
    State(state): State<AppState>,
    Caller(who): Caller,
    Path(id): Path<String>,
    Body(request): Body<OutcomeReport>,
) -> Result<Json<CampaignAnswer>, ApiError> {
    let shared = &state.inner;
    let by = Actor::person(&who);
    let outcome = (request.repo.as_str(), request.result);
    let now = shared.clock.now();
    let answer = campaign::report(shared.store.as_ref(), &id, outcome, by, now).await?;
    Ok(Json(answer))
}

#[utoipa::path(post, path = "/v1/campaigns/{id}/resume", tag = "campaigns",
    params(("id" = String, Path, description = "campaign name")),
    responses((status = 200, body = CampaignAnswer, description = "active again"),
        (status = 403, body = ErrorBody, description = "not a person holding a role"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the campaign is not stopped")),
    security(("bearer" = [])))]
pub async fn campaign_resume(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Result<Json<CampaignAnswer>, ApiError> {
    if who.roles.is_empty() {
        return Err(ApiError::Forbidden(format!(
            "{} holds no role, so may not resume a campaign",
            who.name
        )));
    }
    let shared = &state.inner;
    let now = shared.clock.now();
    let answer = campaign::resume(shared.store.as_ref(), &id, Actor::person(&who), now).await?;
    Ok(Json(answer))
}

/// These routes' part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(
    paths(
        run_start,
        campaign_create,
        campaign_list,
        campaign_get,
        campaign_stage,
        campaign_report,
        campaign_resume
    ),
    components(schemas(
        RunStartRequest,
        RunStartResponse,
        RunStartStatus,
        CampaignCreate,
        CampaignList,
        CampaignAnswer,
        StageProposal,
        OutcomeReport,
        Campaign,
        assent_core::campaign::CampaignDefinition,
        assent_core::campaign::CampaignStatus,
        assent_core::campaign::Stage,
        assent_core::campaign::StageStatus,
        assent_core::campaign::Outcome,
        assent_core::campaign::OutcomeResult,
        assent_core::PreRunPacket,
        assent_core::FleetPacket,
    ))
)]
pub struct CampaignDoc;

/// Adds [`CampaignDoc`] to the service's document.
pub struct CampaignPaths;

impl Modify for CampaignPaths {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi.merge(CampaignDoc::openapi());
    }
}
