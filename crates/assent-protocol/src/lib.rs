//! Wire types of Assent's HTTP API (v1) and the one typed event enum of `/v1/events`.
//!
//! The service, the client, the gates and the desktop app all speak these types; domain
//! types from `assent-core` are reused where the wire shape is the domain shape.

mod approval;
mod audit;
mod audit_chain;
mod campaign;
mod credential;
mod desk;
mod error;
mod event;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod grant;
mod identity;
mod policy;
mod run;
mod submit;
mod webhook;
pub mod words;

pub use approval::{
    Approval, ApprovalList, ApprovalMember, ApprovalReview, AskedSteps, DecisionRequest,
    DecisionResponse, Recommendation, Resolution, ReviewState,
};
pub use assent_core::suggest::{PolicyChange, Suggestion};
pub use audit::{
    AuditList, BatchSizes, DecisionTimes, Health, Metrics, PromptStats, PromptsPerRun,
};
pub use audit_chain::{AuditKeyInfo, AuditVerification, Break, Report};
pub use campaign::{
    CampaignAnswer, CampaignCreate, CampaignList, OutcomeReport, RunStartRequest, RunStartResponse,
    RunStartStatus, StageProposal,
};
pub use credential::{CredentialRelease, CredentialReleaseRequest};
pub use desk::{
    CeremonyFinish, CeremonyStart, DecisionBody, Enrolled, Invite, InviteRequest, PasskeyInfo,
    PushKey, PushPayload, PushSubscriptionInfo, PushSubscriptionJson, PushSubscriptionKeys,
    PushUnsubscribe, RegisterStart, StepUpProof, SESSION_COOKIE,
};
pub use error::{ErrorBody, ErrorCode, ErrorDetail};
pub use event::{Event, EventEnvelope, Subject};
pub use grant::{Grant, GrantList, RevokeRequest, RunEndResponse};
pub use identity::{ApprovalVote, IdentityInfo, IdentityList, Me};
pub use policy::{PolicyStatus, SuggestionApplied, SuggestionApply, SuggestionList};
pub use run::{RunList, RunState, RunStatus};
pub use submit::{ExecutedRequest, ExecutedResponse, SubmitResponse, SubmitStatus};
pub use webhook::{
    DeliveryAttempt, DeliveryState, SettledData, WebhookCreate, WebhookCreated, WebhookDelivery,
    WebhookDeliveryList, WebhookInfo, WebhookList, WebhookPayload,
};

/// Header carrying the bearer token (`Authorization: Bearer <token>`).
pub const AUTHORIZATION: &str = "authorization";
/// Default address of the local service.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7391";
/// Default URL of the local service.
pub const DEFAULT_URL: &str = "http://127.0.0.1:7391";
/// File names of the tokens in the data dir.
pub const REQUESTER_TOKEN_FILE: &str = "requester.token";
pub const APPROVER_TOKEN_FILE: &str = "approver.token";
/// Env vars clients read.
pub const ENV_URL: &str = "ASSENT_URL";
pub const ENV_TOKEN: &str = "ASSENT_TOKEN";
