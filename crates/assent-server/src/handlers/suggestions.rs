//! `GET /v1/suggestions?since_days=`: policy changes proposed from what people decided (the
//! same proposals as `assent policy suggest`), each with its evidence. `POST
//! /v1/suggestions/apply`: one of them written into the policy file and put in force at once.
//! `GET /v1/policy`: the policy in force and whether its file's last edit loaded.

use assent_core::suggest::Suggestion;
use assent_core::Role;
use assent_protocol::{
    ErrorBody, Event, PolicyStatus, SuggestionApplied, SuggestionApply, SuggestionList,
};
use axum::extract::State;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::{Body, Params};
use crate::reload::ApplyError;
use crate::state::AppState;

/// The role that may change the policy (the desk's owner holds every role).
const POLICY_ROLE: Role = Role::PlatformAdmin;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SuggestionQuery {
    /// How many days back to look (1–366, default 7).
    pub since_days: Option<i64>,
}

fn since(state: &AppState, days: Option<i64>) -> Result<DateTime<Utc>, ApiError> {
    let days = days.unwrap_or(7);
    if !(1..=366).contains(&days) {
        return Err(ApiError::BadRequest(
            "since_days must be between 1 and 366".to_owned(),
        ));
    }
    Ok(state.inner.clock.now() - chrono::Duration::days(days))
}

async fn current(state: &AppState, days: Option<i64>) -> Result<Vec<Suggestion>, ApiError> {
    let shared = &state.inner;
    let since = since(state, days)?;
    let policy = shared.policy.current();
    Ok(crate::suggestions::suggestions_since(shared.store.as_ref(), &policy, since).await?)
}

#[utoipa::path(get, path = "/v1/suggestions", tag = "audit", params(SuggestionQuery),
    responses((status = 200, body = SuggestionList),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody, description = "an agent's token")),
    security(("bearer" = [])))]
pub async fn suggestion_list(
    State(state): State<AppState>,
    _person: Person,
    Params(query): Params<SuggestionQuery>,
) -> Result<Json<SuggestionList>, ApiError> {
    let suggestions = current(&state, query.since_days).await?;
    Ok(Json(SuggestionList { suggestions }))
}

#[utoipa::path(post, path = "/v1/suggestions/apply", tag = "audit", request_body = SuggestionApply,
    responses((status = 200, body = SuggestionApplied, description = "written, audited and in force"),
        (status = 400, body = ErrorBody, description = "not a change"),
        (status = 403, body = ErrorBody, description = "an agent's token, or a person without platform_admin"),
        (status = 409, body = ErrorBody, description = "no longer suggested, already in the policy, or the policy file does not load")),
    security(("bearer" = [])))]
pub async fn suggestion_apply(
    State(state): State<AppState>,
    Person(who): Person,
    Body(request): Body<SuggestionApply>,
) -> Result<Json<SuggestionApplied>, ApiError> {
    if !who.roles.contains(&POLICY_ROLE) {
        return Err(ApiError::Forbidden(format!(
            "changing the policy takes the platform_admin role, which {} does not hold",
            who.name
        )));
    }
    let suggestion = current(&state, request.since_days)
        .await?
        .into_iter()
        .find(|s| s.change == request.change)
        .ok_or_else(|| {
            ApiError::Conflict(format!(
                "{} is not suggested (any more): refresh the suggestions",
                request.change.describe()
            ))
        })?;
    let shared = state.inner.clone();
    let now = shared.clock.now();
    let live = shared.policy.clone();
    let change = suggestion.change.clone();
    let policy = tokio::task::spawn_blocking(move || live.apply(&change, now))
        .await
        .map_err(|err| ApiError::PolicyFile(format!("the policy write stopped: {err}")))?
        .map_err(|err| match err {
            ApplyError::AlreadyThere(_) | ApplyError::Invalid { .. } => {
                ApiError::Conflict(err.to_string())
            }
            ApplyError::Io { .. } => ApiError::PolicyFile(err.to_string()),
        })?;
    let version = policy.version().to_owned();
    tracing::info!(by = %who.name, change = %suggestion.change.describe(), %version, "suggestion applied");
    let role = who.roles.contains(&POLICY_ROLE).then_some(POLICY_ROLE);
    let audit = crate::suggestions::applied_audit(&suggestion, &who.name, role, &version, now);
    let event = Event::PolicyChanged {
        version: version.clone(),
        by: Some(who.name.clone()),
    };
    shared
        .store
        .policy_changed(Some(&audit), &event, now)
        .await?;
    Ok(Json(SuggestionApplied {
        policy_version: version,
        path: shared.policy.path().display().to_string(),
        applied: suggestion.change.describe(),
    }))
}

#[utoipa::path(get, path = "/v1/policy", tag = "service",
    responses((status = 200, body = PolicyStatus), (status = 403, body = ErrorBody, description = "an agent's token")),
    security(("bearer" = [])))]
pub async fn policy_status(State(state): State<AppState>, _person: Person) -> Json<PolicyStatus> {
    Json(state.inner.policy.status())
}
