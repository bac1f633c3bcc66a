//! `POST|GET /v1/webhooks`, `DELETE /v1/webhooks/{id}`, `GET /v1/webhooks/{id}/deliveries`:
//! a platform admin's outbound webhooks. Agents never manage them (an agent hears about its
//! own requests through a webhook an admin limited to it, or `GET /v1/events`).

use assent_core::{AuditDecision, Identity, IdentityKind, Role};
use assent_protocol::{
    ErrorBody, WebhookCreate, WebhookCreated, WebhookDeliveryList, WebhookInfo, WebhookList,
};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::{Body, Params};
use crate::state::AppState;
use crate::store::WebhookRow;
use crate::webhooks::destination::{check_url, UrlError};
use crate::webhooks::payload::{is_agent_event, EVENT_TYPES};

/// The most webhooks one service keeps.
pub const MAX_WEBHOOKS: usize = 100;
/// The longest agent name accepted (names are checked against the agents anyway).
const MAX_NAME: usize = 128;

impl From<UrlError> for ApiError {
    fn from(err: UrlError) -> Self {
        ApiError::BadRequest(err.to_string())
    }
}

/// The caller, when they hold `platform_admin`.
fn admin(who: Identity) -> Result<Identity, ApiError> {
    if who.roles.contains(&Role::PlatformAdmin) {
        Ok(who)
    } else {
        Err(ApiError::Forbidden(format!(
            "managing webhooks takes the platform_admin role, which {} does not hold",
            who.name
        )))
    }
}

fn info(row: WebhookRow) -> WebhookInfo {
    WebhookInfo {
        id: row.id,
        url: row.url,
        events: row.events,
        agent: row.agent,
        allow_private: row.allow_private,
        created_by: row.created_by,
        created_at: row.created_at,
    }
}

/// The event types asked for, checked: known, not repeated, about an agent when the webhook
/// is one agent's; none named: `approval.settled`.
fn event_types(asked: Vec<String>, agent: Option<&str>) -> Result<Vec<String>, ApiError> {
    if asked.is_empty() {
        return Ok(vec!["approval.settled".to_owned()]);
    }
    if asked.len() > EVENT_TYPES.len() {
        return Err(ApiError::BadRequest(format!(
            "events names {} types; there are {} (each once)",
            asked.len(),
            EVENT_TYPES.len()
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for name in &asked {
        if !EVENT_TYPES.contains(&name.as_str()) {
            let shown: String = name.chars().take(64).collect();
            return Err(ApiError::BadRequest(format!(
                "unknown event type {shown:?}: one of {}",
                EVENT_TYPES.join(", ")
            )));
        }
        if !seen.insert(name.as_str()) {
            return Err(ApiError::BadRequest(format!(
                "event type {name} is named twice"
            )));
        }
        if agent.is_some() && !is_agent_event(name) {
            return Err(ApiError::BadRequest(format!(
                "{name} is not about an agent's own requests: a webhook limited to an agent \
                 takes approval.*, grant.* and run.* events"
            )));
        }
    }
    Ok(asked)
}

#[utoipa::path(post, path = "/v1/webhooks", tag = "webhooks",
    request_body = WebhookCreate,
    responses((status = 200, body = WebhookCreated, description = "registered; the secret is shown this once"),
        (status = 400, body = ErrorBody, description = "a URL that is not https:// (or http:// to loopback), too long, or naming a private, link-local or metadata address without allow_private; an unknown or repeated event type; unknown fields"),
        (status = 403, body = ErrorBody, description = "an agent, or a person without platform_admin"),
        (status = 404, body = ErrorBody, description = "no agent by that name"),
        (status = 409, body = ErrorBody, description = "a webhook to that URL for the same agent exists, or the most webhooks are registered")),
    security(("bearer" = []), ("session" = [])))]
pub async fn webhook_create(
    State(state): State<AppState>,
    Person(who): Person,
    Body(request): Body<WebhookCreate>,
) -> Result<Json<WebhookCreated>, ApiError> {
    let who = admin(who)?;
    let shared = &state.inner;
    let url = check_url(&request.url, request.allow_private)?;
    if let Some(agent) = request.agent.as_deref() {
        if agent.is_empty() || agent.len() > MAX_NAME {
            return Err(ApiError::BadRequest(format!(
                "agent must be an agent's name (1 to {MAX_NAME} characters)"
            )));
        }
        match shared.store.identity(agent).await? {
            Some(identity) if identity.kind == IdentityKind::Agent => {}
            _ => {
                let shown: String = agent.chars().take(64).collect();
                return Err(ApiError::NotFound(format!(
                    "there is no agent named {shown:?} (see `assent agents list`)"
                )));
            }
        }
    }
    let events = event_types(request.events, request.agent.as_deref())?;
    let held = shared.store.webhooks().await?;
    if held.len() >= MAX_WEBHOOKS {
        return Err(ApiError::Conflict(format!(
            "{MAX_WEBHOOKS} webhooks are registered already: remove one first"
        )));
    }
    if let Some(twin) = held
        .iter()
        .find(|w| w.url == url.as_str() && w.agent == request.agent)
    {
        return Err(ApiError::Conflict(format!(
            "webhook {} posts to that URL already{}: remove it first",
            twin.id,
            request
                .agent
                .as_deref()
                .map(|a| format!(" for agent {a}"))
                .unwrap_or_default()
        )));
    }
    let now = shared.clock.now();
    let row = WebhookRow {
        id: crate::webhooks::new_id(),
        url: url.as_str().to_owned(),
        events,
        agent: request.agent,
        allow_private: request.allow_private,
        secret: crate::webhooks::new_secret(),
        created_by: who.name.clone(),
        created_at: now,
    };
    let audit = crate::web::audit(
        AuditDecision::WebhookAdded,
        &who.name,
        Some(Role::PlatformAdmin),
        format!(
            "webhook {} to {} for {}{}{}",
            row.id,
            row.url,
            row.events.join(", "),
            row.agent
                .as_deref()
                .map(|a| format!(", agent {a}'s events only"))
                .unwrap_or_default(),
            if row.allow_private {
                ", private addresses allowed"
            } else {
                ""
            }
        ),
        "",
        now,
    );
    shared.store.webhook_add(&row, &audit).await?;
    Ok(Json(WebhookCreated {
        id: row.id,
        secret: row.secret,
    }))
}

#[utoipa::path(get, path = "/v1/webhooks", tag = "webhooks",
    responses((status = 200, body = WebhookList, description = "every webhook (never a secret)"),
        (status = 403, body = ErrorBody, description = "an agent, or a person without platform_admin")),
    security(("bearer" = []), ("session" = [])))]
pub async fn webhook_list(
    State(state): State<AppState>,
    Person(who): Person,
) -> Result<Json<WebhookList>, ApiError> {
    admin(who)?;
    let rows = state.inner.store.webhooks().await?;
    Ok(Json(WebhookList {
        webhooks: rows.into_iter().map(info).collect(),
    }))
}

#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "webhooks",
    params(("id" = String, Path, description = "webhook id")),
    responses((status = 204, description = "removed, with its pending deliveries"),
        (status = 403, body = ErrorBody, description = "an agent, or a person without platform_admin"),
        (status = 404, body = ErrorBody, description = "no such webhook")),
    security(("bearer" = []), ("session" = [])))]
pub async fn webhook_remove(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let who = admin(who)?;
    let shared = &state.inner;
    let audit = crate::web::audit(
        AuditDecision::WebhookRemoved,
        &who.name,
        Some(Role::PlatformAdmin),
        format!("webhook {id}"),
        "",
        shared.clock.now(),
    );
    if shared.store.webhook_remove(&id, &audit).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound("no webhook with that id".to_owned()))
    }
}

/// `GET /v1/webhooks/{id}/deliveries?limit=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DeliveryQuery {
    /// The newest this many deliveries (1–500, 50 unless given).
    pub limit: Option<i64>,
}

#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "webhooks",
    params(("id" = String, Path, description = "webhook id"), DeliveryQuery),
    responses((status = 200, body = WebhookDeliveryList, description = "the newest deliveries first, each with every attempt (status, latency)"),
        (status = 400, body = ErrorBody, description = "a limit out of range"),
        (status = 403, body = ErrorBody, description = "an agent, or a person without platform_admin"),
        (status = 404, body = ErrorBody, description = "no such webhook")),
    security(("bearer" = []), ("session" = [])))]
pub async fn webhook_deliveries(
    State(state): State<AppState>,
    Person(who): Person,
    Path(id): Path<String>,
    Params(query): Params<DeliveryQuery>,
) -> Result<Json<WebhookDeliveryList>, ApiError> {
    admin(who)?;
    let limit = query.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::BadRequest("limit must be 1 to 500".to_owned()));
    }
    let store = &state.inner.store;
    if !store.webhooks().await?.iter().any(|w| w.id == id) {
        return Err(ApiError::NotFound("no webhook with that id".to_owned()));
    }
    let deliveries = store.webhook_deliveries(&id, limit).await?;
    Ok(Json(WebhookDeliveryList { deliveries }))
}
