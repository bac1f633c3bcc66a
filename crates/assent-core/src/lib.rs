//! Assent's approval domain. Pure: no I/O, no clock of its own (`now` is always passed in).
//!
//! One entry point, [`evaluate`], turns an [`ActionRequest`] into an [`Evaluation`]: the
//! canonical action, its hash, the risk input, the decision with its reasons, and the batch
//! key. [`ApprovalGrant::covers`] says whether a grant lets an action run;
//! [`ApprovalStatus::apply`] moves an approval through its checked states.

mod approval;
pub mod campaign;
pub mod capability;
mod classify;
pub mod decision;
pub mod diff;
pub mod evaluate;
pub mod evaluation;
pub mod evidence;
pub mod exception;
pub mod grant;
pub mod hook;
pub mod mask;
mod own;
pub mod paths;
pub mod policy;
pub mod pre_run;
pub mod request;
mod review;
pub mod reviewer;
pub mod shell;
pub mod text;
pub mod types;
pub mod workflow;

// The modules' paths from before the folders, kept for the other crates.
pub use approval::{audit, authority, status};
pub use diff::{edit as diff_edit, patch as diff_patch};
pub use grant::{index as grant_index, invalidation, matching, quick, scope};
pub use hook::codex as hook_codex;
pub use mask::stream as secret_stream;
pub use own::places as own_places;
pub use paths::links;
pub use policy::{edit as policy_edit, file as policy_file, suggest};
pub use request::canon;
pub use shell::wrappers;

pub use audit::{ApprovalAuditEvent, AuditDecision, AuditReview};
pub use authority::{
    check_name, may_decide, role_name, tally, Decidable, Identity, IdentityKind, NameError,
    Refusal, Tally, Vote, ALL_ROLES,
};
pub use canon::{action_hash, canonical_json, canonicalize, CanonError, CanonicalAction};
pub use capability::eval::bound_lifetime as capability_lifetime;
pub use capability::{Capability, SecretSource, Ttl, UnknownCapability};
pub use decision::{ActionRiskInput, RequiredApproval, RiskDecision};
pub use evaluate::offer::lifetime_bound;
pub use evaluate::{evaluate, Environment, EvaluateError, Evaluation};
pub use evidence::build::{quoted as quoted_argv, shown_line};
pub use evidence::{
    ApprovalEvidence, CommandStep, CredentialPacket, DiffApprovalRef, DiffApprovalState, DiffFile,
    DiffFlag, DiffPacket, EvidenceDetail, FileChange, FleetPacket, PrPacket, PreRunPacket,
    PushPacket,
};
pub use exception::eval::{bound_lifetime as exception_lifetime, ExceptionError};
pub use exception::{ExceptionAsk, ExceptionPacket};
pub use grant::{
    ApprovalGrant, ApprovalScope, ApprovedAs, GrantConstraints, GrantStatus, NotCovered,
};
pub use grant_index::GrantIndex;
pub use hook::copilot::action_from_copilot_hook;
pub use hook::cursor::action_from_cursor_hook;
pub use hook::gemini::action_from_gemini_hook;
pub use hook::opencode::action_from_opencode_hook;
pub use hook::{action_from_claude_hook, is_claude_hook, HookDefaults, HookError};
pub use hook_codex::action_from_codex_hook;
pub use invalidation::Moved;
pub use links::{PathResolver, RealPath, MAX_RESOLVED_PATHS};
pub use own_places::{OwnPlace, OwnPlaces};
pub use policy::{
    Approvals, CommandProfile, DenyMemory, DiffPolicy, Lifetimes, PipeToShell, Policy, PolicyError,
};
pub use quick::{quick_decisions, QuickDecision};
pub use request::{
    Action, ActionContext, ActionRequest, EditText, PushedCommit, PushedCommits, MAX_DIFF_BYTES,
    MAX_EDIT_BYTES, MAX_HEAD_ANCESTORS, MAX_PUSHED_COMMITS,
};
pub use review::pr::{publishes, push_target, PushTarget};
pub use review::{advice, Advice};
pub use scope::ScopeError;
pub use shell::word::{has_suspicious_chars, is_invisible, quiet_parser_panics};
pub use status::{ApprovalEvent, ApprovalStatus, TransitionError};
pub use types::*;
