//! Assent's approval domain. Pure: no I/O, no clock of its own (`now` is always passed in).
//!
//! One entry point, [`evaluate`], turns an [`ActionRequest`] into an [`Evaluation`]: the
//! canonical action, its hash, the risk input, the decision with its reasons, and the batch
//! key. [`ApprovalGrant::covers`] says whether a grant lets an action run;
//! [`ApprovalStatus::apply`] moves an approval through its checked states.

pub mod audit;
pub mod canon;
pub mod decision;
pub mod evaluate;
pub mod evidence;
pub mod grant;
pub mod matching;
pub mod policy;
pub mod request;
pub mod status;
pub mod types;

pub use audit::{ApprovalAuditEvent, AuditDecision};
pub use canon::{action_hash, canonicalize, CanonError, CanonicalAction};
pub use decision::{ActionRiskInput, RequiredApproval, RiskDecision};
pub use evaluate::{evaluate, Environment, EvaluateError, Evaluation};
pub use evidence::ApprovalEvidence;
pub use grant::{ApprovalGrant, ApprovalScope, GrantConstraints, GrantStatus, NotCovered};
pub use policy::{Policy, PolicyError};
pub use request::{Action, ActionContext, ActionRequest};
pub use status::{ApprovalEvent, ApprovalStatus, TransitionError};
pub use types::*;
