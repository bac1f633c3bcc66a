//! Assent's approval domain. Pure: no I/O, no clock of its own (`now` is always passed in).
//!
//! One entry point, [`evaluate`], turns an [`ActionRequest`] into an [`Evaluation`]: the
//! canonical action, its hash, the risk input, the decision with its reasons, and the batch
//! key. [`ApprovalGrant::covers`] says whether a grant lets an action run;
//! [`ApprovalStatus::apply`] moves an approval through its checked states.

pub mod audit;
pub mod authority;
pub mod campaign;
pub mod canon;
pub mod capability;
mod capability_eval;
mod classify;
mod classify_cloud;
mod classify_cmd;
mod classify_credentials;
mod classify_destroy;
mod classify_git;
mod classify_local_tools;
mod classify_packages;
mod classify_persist;
mod classify_readers;
mod classify_roads;
mod classify_self;
mod classify_tooling;
mod classify_tools;
mod commands;
mod decide;
pub mod decision;
pub mod diff;
pub mod diff_edit;
mod diff_parse;
pub mod diff_patch;
mod diff_review;
pub mod evaluate;
pub mod evidence;
mod evidence_build;
mod evidence_mask;
mod evidence_parts;
mod evidence_run;
pub mod exception;
mod exception_eval;
pub mod grant;
pub mod grant_index;
pub mod hook;
pub mod hook_codex;
pub mod invalidation;
pub mod links;
pub mod mask;
pub mod matching;
mod own_binary;
pub mod own_places;
mod own_routes;
pub mod paths;
pub mod policy;
mod policy_defaults;
pub mod policy_edit;
pub mod policy_file;
mod pr_review;
pub mod pre_run;
mod profile;
pub mod quick;
pub mod request;
mod review;
pub mod scope;
mod secret_reach;
pub mod secret_stream;
pub mod shell;
mod shell_guard;
mod shell_plain;
mod shell_word;
pub mod status;
pub mod suggest;
mod text;
mod tooling;
pub mod types;
mod verdict;
pub mod workflow;
pub mod wrappers;

pub use audit::{ApprovalAuditEvent, AuditDecision};
pub use authority::{
    check_name, may_decide, role_name, tally, Decidable, Identity, IdentityKind, NameError,
    Refusal, Tally, Vote, ALL_ROLES,
};
pub use canon::{action_hash, canonical_json, canonicalize, CanonError, CanonicalAction};
pub use capability::{Capability, SecretSource, Ttl, UnknownCapability};
pub use capability_eval::bound_lifetime as capability_lifetime;
pub use decision::{ActionRiskInput, RequiredApproval, RiskDecision};
pub use evaluate::{evaluate, Environment, EvaluateError, Evaluation};
pub use evidence::{
    ApprovalEvidence, CredentialPacket, DiffApprovalRef, DiffApprovalState, DiffFile, DiffFlag,
    DiffPacket, EvidenceDetail, FileChange, FleetPacket, PrPacket, PreRunPacket,
};
pub use exception::{ExceptionAsk, ExceptionPacket};
pub use exception_eval::{bound_lifetime as exception_lifetime, ExceptionError};
pub use grant::{ApprovalGrant, ApprovalScope, GrantConstraints, GrantStatus, NotCovered};
pub use grant_index::GrantIndex;
pub use hook::{action_from_claude_hook, is_claude_hook, HookDefaults, HookError};
pub use hook_codex::action_from_codex_hook;
pub use invalidation::Moved;
pub use links::{PathResolver, RealPath, MAX_RESOLVED_PATHS};
pub use own_places::{OwnPlace, OwnPlaces};
pub use policy::{
    Approvals, CommandProfile, DenyMemory, DiffPolicy, Lifetimes, PipeToShell, Policy, PolicyError,
};
pub use pr_review::publishes;
pub use quick::{quick_decisions, QuickDecision};
pub use request::{
    Action, ActionContext, ActionRequest, EditText, MAX_DIFF_BYTES, MAX_EDIT_BYTES,
    MAX_HEAD_ANCESTORS,
};
pub use scope::ScopeError;
pub use shell_word::{has_suspicious_chars, quiet_parser_panics};
pub use status::{ApprovalEvent, ApprovalStatus, TransitionError};
pub use types::*;
