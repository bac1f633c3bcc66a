//! The model reviewer (seed section 19): a second reviewer that is not the actor. It sees the
//! masked evidence and the policy's conclusion, answers strict JSON, and may approve alone only
//! what [`eligibility`] allows; the deterministic policy always wins, and it never denies.

pub mod config;
pub mod eligibility;
pub mod request;
pub mod task;
pub mod verdict;

pub use config::{ReviewerApi, ReviewerConfig, ReviewerMode};
pub use eligibility::{eligibility, NotEligible};
pub use request::{RecentAction, ReviewRequest, PROMPT_VERSION};
pub use verdict::{Outcome, ReviewFailure, UserAuthorized, Verdict};
