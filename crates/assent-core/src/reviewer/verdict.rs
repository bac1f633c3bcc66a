//! The reviewer's answer: strict JSON, or a failure the person hears about.

use serde::{Deserialize, Serialize};

use crate::types::RiskLevel;

/// The longest rationale kept (longer is a malformed verdict, not a truncated one).
const MAX_RATIONALE: usize = 2000;

/// What the reviewer says, exactly as it must answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    pub outcome: Outcome,
    pub risk: RiskLevel,
    pub user_authorized: UserAuthorized,
    pub rationale: String,
}

/// The reviewer approves, or leaves the prompt to the person; it never denies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Approve,
    AskPerson,
}

/// Whether the person's task plainly asked for this action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserAuthorized {
    Yes,
    Unclear,
    No,
}

impl UserAuthorized {
    pub fn as_str(self) -> &'static str {
        match self {
            UserAuthorized::Yes => "yes",
            UserAuthorized::Unclear => "unclear",
            UserAuthorized::No => "no",
        }
    }
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Approve => "approve",
            Outcome::AskPerson => "ask_person",
        }
    }
}

/// Why no usable verdict came back: the person decides, and reads this.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewFailure {
    #[error("the reviewer timed out after {0}")]
    Timeout(String),
    #[error("the reviewer could not be reached: {0}")]
    Unreachable(String),
    #[error("the reviewer answered HTTP {0}")]
    Http(u16),
    #[error("the reviewer refused to review: {0}")]
    Refused(String),
    #[error("the reviewer's answer was not a verdict: {0}")]
    Malformed(String),
}

/// The verdict in `text`: one JSON object and nothing else (whitespace aside), every field
/// present with a known value, no other field.
pub fn parse(text: &str) -> Result<Verdict, ReviewFailure> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') && trimmed.ends_with('}')) {
        return Err(ReviewFailure::Malformed(
            "expected one JSON object and no other text".to_owned(),
        ));
    }
    let verdict: Verdict = serde_json::from_str(trimmed)
        .map_err(|e| ReviewFailure::Malformed(crate::text::clip(&e.to_string(), 200)))?;
    let rationale = verdict.rationale.trim();
    if rationale.is_empty() || verdict.rationale.chars().count() > MAX_RATIONALE {
        return Err(ReviewFailure::Malformed(format!(
            "the rationale must be 1 to {MAX_RATIONALE} characters"
        )));
    }
    Ok(verdict)
}

/// What the verdict means for a prompt the policy found eligible, when the reviewer may
/// approve up to `up_to`: approve only when it says so, rates the risk within `up_to`, and
/// does not say the person's task forbids it.
pub fn approves(verdict: &Verdict, up_to: RiskLevel) -> bool {
    verdict.outcome == Outcome::Approve
        && verdict.risk <= up_to.min(RiskLevel::Medium)
        && verdict.user_authorized != UserAuthorized::No
}

/// Why a verdict that says `approve` does not approve, in words for the person: it rates the
/// risk above `up_to`, or says the person's task does not ask for the action. `None` when it
/// approves, or does not say `approve`.
pub fn not_applied(verdict: &Verdict, up_to: RiskLevel) -> Option<String> {
    if verdict.outcome != Outcome::Approve || approves(verdict, up_to) {
        return None;
    }
    let up_to = up_to.min(RiskLevel::Medium);
    if verdict.risk > up_to {
        return Some(format!(
            "the reviewer rated the risk {}, above the {} it may approve alone",
            verdict.risk.as_str(),
            up_to.as_str()
        ));
    }
    Some("the reviewer says the person's task does not ask for this".to_owned())
}
