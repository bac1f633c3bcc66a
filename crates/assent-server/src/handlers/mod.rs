//! The HTTP surface: one thin handler per route, and the router that maps each route to its
//! handler.

pub mod actions;
pub mod approvals;
pub mod campaigns;
pub mod credentials;
pub mod decide;
pub mod denials;
pub mod desk;
pub mod events;
pub mod grants;
pub mod me;
pub mod observe;
pub mod openapi;
pub mod push;
pub mod runs;
pub mod suggestions;
pub mod webhooks;

use axum::routing::{delete, get, post};
use axum::Router;

use crate::error::ApiError;
use crate::guard::refuse_hostile;
use crate::state::AppState;

/// Every route, with the Host/Origin/query guard in front and JSON errors for 404 and 405.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(observe::healthz))
        .route("/v1/openapi.json", get(openapi::openapi_json))
        .route("/v1/me", get(me::me))
        .route("/v1/people", get(me::people_list))
        .route("/v1/agents", get(me::agent_list))
        .route("/v1/actions", post(actions::submit_action))
        .route("/v1/actions/executed", post(actions::action_executed))
        .route("/v1/actions/screen", post(actions::screen_action))
        .route(
            "/v1/credentials/release",
            post(credentials::credential_release),
        )
        .route("/v1/approvals", get(approvals::approval_list))
        .route("/v1/approvals/{id}", get(approvals::approval_get))
        .route("/v1/approvals/{id}/decision", post(decide::approval_decide))
        .route("/v1/approvals/{id}/step-up", post(decide::approval_step_up))
        .route("/v1/approvals/{id}/forget", post(denials::denial_forget))
        .route("/v1/runs/{id}/denials", get(denials::denial_list))
        .route("/v1/grants", get(grants::grant_list))
        .route("/v1/grants/{id}/revoke", post(grants::grant_revoke))
        .route("/v1/runs", get(runs::run_list))
        .route("/v1/runs/{id}", get(runs::run_get))
        .route("/v1/runs/{id}/end", post(grants::run_end))
        .route("/v1/runs/{id}/resume", post(runs::run_resume))
        .route("/v1/runs/{id}/start", post(campaigns::run_start))
        .route(
            "/v1/campaigns",
            get(campaigns::campaign_list).post(campaigns::campaign_create),
        )
        .route("/v1/campaigns/{id}", get(campaigns::campaign_get))
        .route("/v1/campaigns/{id}/stages", post(campaigns::campaign_stage))
        .route(
            "/v1/campaigns/{id}/outcomes",
            post(campaigns::campaign_report),
        )
        .route(
            "/v1/campaigns/{id}/resume",
            post(campaigns::campaign_resume),
        )
        .route("/v1/events", get(events::event_stream))
        .route("/v1/audit", get(observe::audit_list))
        .route("/v1/audit/verify", get(observe::audit_verify))
        .route("/v1/audit/key", get(observe::audit_key))
        .route("/v1/suggestions", get(suggestions::suggestion_list))
        .route("/v1/suggestions/apply", post(suggestions::suggestion_apply))
        .route("/v1/policy", get(suggestions::policy_status))
        .route("/v1/metrics", get(observe::metrics_json))
        .route("/v1/invites", post(desk::invite_create))
        .route("/v1/passkeys", get(desk::passkey_list))
        .route("/v1/passkeys/{id}", delete(desk::passkey_remove))
        .route("/v1/passkeys/register/start", post(desk::register_start))
        .route("/v1/passkeys/register/finish", post(desk::register_finish))
        .route("/v1/push/key", get(push::push_key))
        .route(
            "/v1/push/subscriptions",
            get(push::push_list)
                .post(push::push_subscribe)
                .delete(push::push_unsubscribe),
        )
        .route(
            "/v1/webhooks",
            get(webhooks::webhook_list).post(webhooks::webhook_create),
        )
        .route("/v1/webhooks/{id}", delete(webhooks::webhook_remove))
        .route(
            "/v1/webhooks/{id}/deliveries",
            get(webhooks::webhook_deliveries),
        )
        .route("/v1/session/start", post(desk::session_start))
        .route("/v1/session/finish", post(desk::session_finish))
        .route("/v1/session/end", post(desk::session_end))
        .route("/desk", get(crate::web::assets::desk_root))
        .route("/desk/", get(crate::web::assets::desk_index))
        .route("/desk/{*path}", get(crate::web::assets::desk_file))
        .route("/metrics", get(observe::metrics_prometheus))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            refuse_hostile,
        ))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such route".to_owned())
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}
