//! `GET /v1/openapi.json`: the API document, generated from the handlers.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::campaigns::CampaignPaths;
use super::credentials;
use super::{
    actions, approvals, decide, denials, desk, events, grants, me, observe, push, runs,
    suggestions, webhooks,
};

#[derive(OpenApi)]
#[openapi(
    info(title = "Assent approval service", description = "Agents submit actions; people decide."),
    paths(
        me::me,
        me::people_list,
        me::agent_list,
        actions::submit_action,
        actions::screen_action,
        actions::action_executed,
        credentials::credential_release,
        approvals::approval_get,
        approvals::approval_list,
        decide::approval_decide,
        decide::approval_step_up,
        denials::denial_forget,
        denials::denial_list,
        grants::grant_list,
        grants::grant_revoke,
        grants::run_end,
        runs::run_list,
        runs::run_get,
        runs::run_resume,
        events::event_stream,
        observe::healthz,
        observe::audit_list,
        observe::audit_verify,
        observe::audit_key,
        suggestions::suggestion_list,
        suggestions::suggestion_apply,
        suggestions::policy_status,
        observe::metrics_json,
        observe::metrics_prometheus,
        openapi_json,
        desk::invite_create,
        desk::passkey_list,
        desk::passkey_remove,
        desk::register_start,
        desk::register_finish,
        desk::session_start,
        desk::session_finish,
        desk::session_end,
        push::push_key,
        push::push_list,
        push::push_subscribe,
        push::push_unsubscribe,
        webhooks::webhook_create,
        webhooks::webhook_list,
        webhooks::webhook_remove,
        webhooks::webhook_deliveries,
    ),
    components(schemas(
        assent_protocol::SubmitResponse, assent_protocol::SubmitStatus,
        assent_protocol::ExecutedRequest, assent_protocol::ExecutedResponse,
        assent_protocol::CredentialRelease, assent_protocol::CredentialReleaseRequest,
        assent_protocol::Approval, assent_protocol::ApprovalMember, assent_protocol::ApprovalList,
        assent_protocol::Recommendation, assent_protocol::Resolution, assent_protocol::AskedSteps,
        assent_protocol::words::PromptWords,
        assent_protocol::DecisionRequest, assent_protocol::DecisionResponse,
        assent_protocol::Grant, assent_protocol::GrantList, assent_protocol::RevokeRequest,
        assent_protocol::RunEndResponse, assent_protocol::RunState, assent_protocol::RunStatus,
        assent_protocol::RunList,
        assent_protocol::Event, assent_protocol::EventEnvelope,
        assent_protocol::AuditList, assent_protocol::Metrics, assent_protocol::Health,
        assent_protocol::ErrorBody, assent_protocol::ErrorDetail, assent_protocol::ErrorCode,
        assent_protocol::Me, assent_protocol::IdentityInfo, assent_protocol::IdentityList,
        assent_protocol::ApprovalVote,
        assent_protocol::SuggestionList, assent_protocol::SuggestionApply,
        assent_protocol::SuggestionApplied, assent_protocol::PolicyStatus,
        assent_protocol::InviteRequest, assent_protocol::Invite, assent_protocol::RegisterStart,
        assent_protocol::CeremonyStart, assent_protocol::CeremonyFinish,
        assent_protocol::PasskeyInfo, assent_protocol::Enrolled, assent_protocol::StepUpProof,
        assent_protocol::PushKey, assent_protocol::PushSubscriptionJson,
        assent_protocol::PushSubscriptionKeys, assent_protocol::PushUnsubscribe,
        assent_protocol::PushSubscriptionInfo, assent_protocol::PushPayload,
        assent_protocol::WebhookCreate, assent_protocol::WebhookCreated,
        assent_protocol::WebhookInfo, assent_protocol::WebhookList,
        assent_protocol::WebhookDelivery, assent_protocol::WebhookDeliveryList,
        assent_protocol::DeliveryAttempt, assent_protocol::DeliveryState,
        assent_protocol::WebhookPayload, assent_protocol::SettledData,
    )),
    modifiers(&BearerAuth, &CampaignPaths),
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(utoipa::openapi::security::ApiKey::Cookie(
                utoipa::openapi::security::ApiKeyValue::new(assent_protocol::SESSION_COOKIE),
            )),
        );
    }
}

#[utoipa::path(get, path = "/v1/openapi.json", tag = "service",
    responses((status = 200, content_type = "application/json", body = Object, description = "this document")))]
pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
