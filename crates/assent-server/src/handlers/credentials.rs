//! `POST /v1/credentials/release`: the secret of an approved capability, for one execution.

use assent_protocol::{CredentialRelease, CredentialReleaseRequest, ErrorBody};
use axum::extract::State;
use axum::Json;

use crate::error::ApiError;
use crate::guard::Caller;
use crate::json::Body;
use crate::state::AppState;
use crate::workflow::{ReleaseAsk, ReleaseRefused};

#[utoipa::path(post, path = "/v1/credentials/release", tag = "actions",
    request_body = CredentialReleaseRequest,
    responses(
        (status = 200, body = CredentialRelease, description = "the secret for this one execution; released once, audited as credential_released without the value"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the caller submitted no request under this key in this run"),
        (status = 409, body = ErrorBody, description = "not approved, revoked, expired, already released, or the source cannot be read"),
    ),
    security(("bearer" = [])))]
pub async fn credential_release(
    State(state): State<AppState>,
    Caller(who): Caller,
    Body(ask): Body<CredentialReleaseRequest>,
) -> Result<Json<CredentialRelease>, ApiError> {
    let shared = &state.inner;
    let policy = shared.policy.current();
    let released = shared
        .workflow
        .release_credential(ReleaseAsk {
            requester: &who.name,
            run_id: &ask.run_id,
            idempotency_key: &ask.idempotency_key,
            policy: &policy,
            home: &shared.env.home,
            now: shared.clock.now(),
        })
        .await
        .map_err(|err| match err {
            ReleaseRefused::NotFound => ApiError::NotFound(err.to_string()),
            ReleaseRefused::Refused(why) => ApiError::Conflict(why),
            ReleaseRefused::Store(store) => store.into(),
        })?;
    Ok(Json(released))
}
