//! Web Push routes: the service's VAPID key, and a person's browser subscriptions. A person
//! subscribes for themself only — with the desk's session (the browser's own subscription)
//! or their token (a script registering a relay); agents never.

use assent_protocol::{
    ErrorBody, PushKey, PushSubscriptionInfo, PushSubscriptionJson, PushUnsubscribe,
};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;

use crate::error::ApiError;
use crate::guard::Person;
use crate::json::{Body, Params};
use crate::push::subscription::{Subscription, SubscriptionError};
use crate::state::AppState;
use crate::store::PushSubscriptionRow;

/// The most browsers one person may subscribe (a re-subscribed browser replaces its row; a
/// gone one is dropped at its next push).
pub const MAX_PER_PERSON: usize = 20;

impl From<SubscriptionError> for ApiError {
    fn from(err: SubscriptionError) -> Self {
        ApiError::BadRequest(err.to_string())
    }
}

#[utoipa::path(get, path = "/v1/push/key", tag = "desk",
    responses((status = 200, body = PushKey, description = "the VAPID public key, base64url of the uncompressed P-256 point (applicationServerKey)"),
        (status = 503, body = ErrorBody, description = "push is not set up in this process")))]
pub async fn push_key(State(state): State<AppState>) -> Result<Json<PushKey>, ApiError> {
    let sender = state.inner.push.as_ref().ok_or(ApiError::Unavailable)?;
    Ok(Json(PushKey {
        key: sender.key.public_b64(),
    }))
}

#[utoipa::path(get, path = "/v1/push/subscriptions", tag = "desk",
    responses((status = 200, body = [PushSubscriptionInfo], description = "the caller's subscriptions")),
    security(("session" = []), ("bearer" = [])))]
pub async fn push_list(
    State(state): State<AppState>,
    Person(who): Person,
) -> Result<Json<Vec<PushSubscriptionInfo>>, ApiError> {
    let rows = state.inner.store.push_subscriptions(&who.name).await?;
    Ok(Json(
        rows.into_iter()
            .map(|row| PushSubscriptionInfo {
                endpoint: row.endpoint,
            })
            .collect(),
    ))
}

#[utoipa::path(post, path = "/v1/push/subscriptions", tag = "desk",
    request_body = PushSubscriptionJson,
    responses((status = 204, description = "subscribed: prompts this person may decide are pushed to it"),
        (status = 400, body = ErrorBody, description = "an endpoint that is not https:// (or http:// on loopback), keys of the wrong kind or length, unknown fields"),
        (status = 403, body = ErrorBody, description = "an agent"),
        (status = 409, body = ErrorBody, description = "the person has the most subscriptions allowed already")),
    security(("session" = []), ("bearer" = [])))]
pub async fn push_subscribe(
    State(state): State<AppState>,
    Person(who): Person,
    Body(json): Body<PushSubscriptionJson>,
) -> Result<StatusCode, ApiError> {
    let parsed = Subscription::parse(&json)?;
    let store = state.inner.store.as_ref();
    let held = store.push_subscriptions(&who.name).await?;
    let renewing = held.iter().any(|row| row.endpoint == parsed.endpoint);
    if !renewing && held.len() >= MAX_PER_PERSON {
        return Err(ApiError::Conflict(format!(
            "{} holds {MAX_PER_PERSON} push subscriptions already: remove one first",
            who.name
        )));
    }
    let row = PushSubscriptionRow {
        endpoint: parsed.endpoint,
        person: who.name,
        p256dh: URL_SAFE_NO_PAD.encode(&parsed.p256dh),
        auth: URL_SAFE_NO_PAD.encode(&parsed.auth),
        expires_at_ms: parsed.expires_at_ms,
    };
    store.push_subscribe(&row, state.inner.clock.now()).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /v1/push/subscriptions?endpoint=…`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointQuery {
    endpoint: Option<String>,
}

#[utoipa::path(delete, path = "/v1/push/subscriptions", tag = "desk",
    params(("endpoint" = Option<String>, Query, description = "the endpoint to remove (or a JSON body {\"endpoint\"})")),
    request_body(content = Option<PushUnsubscribe>),
    responses((status = 204, description = "removed"),
        (status = 400, body = ErrorBody, description = "no endpoint named"),
        (status = 404, body = ErrorBody, description = "the caller holds no subscription there")),
    security(("session" = []), ("bearer" = [])))]
pub async fn push_unsubscribe(
    State(state): State<AppState>,
    Person(who): Person,
    Params(query): Params<EndpointQuery>,
    body: Result<Body<PushUnsubscribe>, ApiError>,
) -> Result<StatusCode, ApiError> {
    let endpoint = match (query.endpoint, body) {
        (Some(endpoint), _) => endpoint,
        (None, Ok(Body(body))) => body.endpoint,
        (None, Err(ApiError::UnsupportedMediaType)) => {
            return Err(ApiError::BadRequest(
                "name the endpoint: ?endpoint=… or a JSON body {\"endpoint\": …}".to_owned(),
            ))
        }
        (None, Err(err)) => return Err(err),
    };
    if state
        .inner
        .store
        .push_unsubscribe(&who.name, &endpoint)
        .await?
    {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(
            "you hold no push subscription at that endpoint".to_owned(),
        ))
    }
}
