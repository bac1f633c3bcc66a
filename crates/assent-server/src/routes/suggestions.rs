//! `GET /v1/suggestions?since_days=`: policy changes proposed from what people decided (the
//! same proposals as `assent policy suggest`), each with its evidence.

use assent_core::suggest::Suggestion;
use assent_protocol::ErrorBody;
use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::Params;
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SuggestionQuery {
    /// How many days back to look (1–366, default 7).
    pub since_days: Option<i64>,
}

/// `GET /v1/suggestions`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SuggestionList {
    /// `{change: {change: "trust_repo", repo} | {change: "block_command", pattern}, evidence,
    /// decisions}`, most decisions first.
    #[schema(value_type = Vec<Object>)]
    pub suggestions: Vec<Suggestion>,
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
    let days = query.since_days.unwrap_or(7);
    if !(1..=366).contains(&days) {
        return Err(ApiError::BadRequest(
            "since_days must be between 1 and 366".to_owned(),
        ));
    }
    let shared = &state.inner;
    let since = shared.clock.now() - chrono::Duration::days(days);
    let suggestions =
        crate::suggestions::suggestions_since(shared.store.as_ref(), &shared.policy, since).await?;
    Ok(Json(SuggestionList { suggestions }))
}
