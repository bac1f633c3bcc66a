//! The approval workflow's rules, pure: which pending prompt a request joins, whether a held
//! run answers a submission, what a timeout does, which grant an approval issues, and what
//! every audit record says. No I/O and no clock: `now` and every new id are passed in, so the
//! server's one workflow layer sequences these over any store (SQLite, PostgreSQL).

pub mod hold;
pub mod issue;
pub mod join;
pub mod publish;
pub mod records;
pub mod timeout;

pub use hold::{held_decision, RunHold};
pub use issue::{approve_event, grant_summary, issue_grant, GrantChoice, GrantOrder, IssueError};
pub use join::{joinable, PendingPrompt};
pub use publish::{pr_gate, DiffReviewed, PrBase, PrGate};
pub use records::{
    executed_audit, grant_audit, grant_use_audit, remembered_denial, resume_audit,
    settlement_audit, submission_audit, Asked, Earlier, GrantFacts, MemberFacts, PromptFacts, Ran,
    Remembered, Verdict,
};
pub use timeout::{closed_by, on_timeout, HoldPlan, TimeoutPlan, NOBODY_ANSWERED};
