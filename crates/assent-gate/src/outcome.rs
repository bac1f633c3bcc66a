//! Submit one action and wait (bounded) for what the agent may do. Shared by every gate and
//! by `assent request` / `assent exec`; each answers the outcome in its agent's own format.

use std::time::{Duration, Instant};

use assent_client::{blocking, ClientError};
use assent_core::{ActionRequest, FallbackOnTimeout};
use assent_protocol::{Approval, ErrorCode, Resolution, SubmitResponse, SubmitStatus};
use serde::Serialize;

/// How the service, the person or the deadline answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Auto, a covering grant, or a person approved.
    Allowed {
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        grant_id: Option<String>,
    },
    /// A person denied it (or the approval expired, or its run ended).
    Denied { reason: String },
    /// The policy forbids it.
    Blocked { reason: String },
    /// Nobody decided before the gate's deadline.
    TimedOut { reason: String },
    /// The service could not be asked or answered nonsense.
    Unavailable { reason: String },
    /// The service is up but refused the token (not one it knows, or revoked).
    Refused { reason: String },
}

impl Outcome {
    pub fn reason(&self) -> &str {
        match self {
            Outcome::Allowed { reason, .. }
            | Outcome::Denied { reason }
            | Outcome::Blocked { reason }
            | Outcome::TimedOut { reason }
            | Outcome::Unavailable { reason }
            | Outcome::Refused { reason } => reason,
        }
    }
}

/// The full record of one decision (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit: Option<SubmitResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
}

/// The two deadlines of one decision.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// For the submit call alone (a healthy service answers in milliseconds).
    pub submit: Duration,
    /// A hook's whole budget, from the start, submit included ([`Deadlines::hook`]); or, for
    /// the CLI's `--wait`, the wait for a person alone, from the submit's answer
    /// ([`Deadlines::person`]).
    pub total: Duration,
    /// Whether `total` starts at the submit's answer.
    pub after_submit: bool,
}

impl Deadlines {
    /// A hook's: everything within `total` (the agent's hook timeout is behind it).
    pub fn hook(submit: Duration, total: Duration) -> Deadlines {
        Deadlines {
            submit,
            total,
            after_submit: false,
        }
    }

    /// The CLI's: `--submit-timeout` for the submit, then `--wait` for a person, so `--wait
    /// 0` still gets the policy's answer to an auto or blocked action.
    pub fn person(submit: Duration, wait: Duration) -> Deadlines {
        Deadlines {
            submit,
            total: wait,
            after_submit: true,
        }
    }
}

/// Submits `request` and, when a person must decide, waits until `deadlines.total`.
pub fn decide(client: &blocking::Client, request: &ActionRequest, deadlines: Deadlines) -> Decided {
    let started = Instant::now();
    let (submit_deadline, submit_limit) = if deadlines.after_submit {
        (started + deadlines.submit, deadlines.submit)
    } else {
        (
            (started + deadlines.submit).min(started + deadlines.total),
            deadlines.submit.min(deadlines.total),
        )
    };
    let submitted = match client.submit(request, submit_deadline) {
        Ok(s) => s,
        Err(err) => return unreached(&err, submit_limit),
    };
    let total = if deadlines.after_submit {
        Instant::now() + deadlines.total
    } else {
        started + deadlines.total
    };
    let Some(outcome) = answered(&submitted) else {
        return wait_for_person(client, submitted, total, deadlines.total);
    };
    Decided {
        outcome,
        submit: Some(submitted),
        approval: None,
    }
}

/// What the submit answer alone says: `None` when it is pending (a person must decide).
pub fn answered(submitted: &SubmitResponse) -> Option<Outcome> {
    Some(match submitted.status {
        SubmitStatus::Allowed => Outcome::Allowed {
            reason: allowed_reason(submitted),
            grant_id: submitted.grant_id.clone(),
        },
        SubmitStatus::Blocked => Outcome::Blocked {
            reason: blocked_reason(submitted),
        },
        SubmitStatus::Pending | SubmitStatus::WouldAsk => return None,
        SubmitStatus::Denied => Outcome::Denied {
            reason: remembered_reason(submitted),
        },
    })
}

pub fn wait_for_person(
    client: &blocking::Client,
    submitted: SubmitResponse,
    total: Instant,
    wait: Duration,
) -> Decided {
    let Some(id) = submitted.approval_id.clone() else {
        let outcome = Outcome::Unavailable {
            reason: "the service answered pending without an approval id".into(),
        };
        return Decided {
            outcome,
            submit: Some(submitted),
            approval: None,
        };
    };
    match client.wait_settled(&id, total) {
        Ok(approval) => Decided {
            outcome: settled(&approval),
            submit: Some(submitted),
            approval: Some(approval),
        },
        Err(ClientError::Timeout) => {
            let outcome = Outcome::TimedOut {
                reason: format!(
                    "Assent: nobody decided approval {id} within {}s, so this is not allowed \
                     yet. This is not a denial: the approval is still open in Assent, and once \
                     a person approves it, retrying the same action is covered",
                    secs(wait)
                ),
            };
            Decided {
                outcome,
                submit: Some(submitted),
                approval: None,
            }
        }
        Err(err) => Decided {
            outcome: unreached(&err, wait).outcome,
            submit: Some(submitted),
            approval: None,
        },
    }
}

/// The outcome of a settled approval.
pub fn settled(approval: &Approval) -> Outcome {
    if approval.status.is_approved() {
        let by = approval.decided_by.as_deref().unwrap_or("a person");
        return Outcome::Allowed {
            reason: format!(
                "Assent: approved by {by} (approval {})",
                approval.approval_id
            ),
            grant_id: approval.grant_id.clone(),
        };
    }
    let because = approval
        .decision_reason
        .as_deref()
        .filter(|r| !r.trim().is_empty());
    let reason = match (approval.resolution, because) {
        (Some(Resolution::Denied), Some(why)) => {
            format!(
                "Assent: denied by {}: {why}",
                approval.decided_by.as_deref().unwrap_or("a person")
            )
        }
        (Some(Resolution::Denied), None) => {
            "Assent: denied by a person (no reason given)".to_owned()
        }
        (Some(Resolution::TimedOut), _) => timed_out(approval),
        (Some(Resolution::Cancelled), Some(why)) => {
            format!("Assent: the run ended before anyone decided ({why}); denied")
        }
        (Some(Resolution::Cancelled), None) => {
            "Assent: the run ended before anyone decided; denied".to_owned()
        }
        (_, Some(why)) => format!("Assent: not approved ({:?}): {why}", approval.status),
        (_, None) => format!("Assent: not approved ({:?})", approval.status),
    };
    Outcome::Denied { reason }
}

/// Why an approval nobody answered is not an allow: its `fallback_on_timeout`, by name.
fn timed_out(approval: &Approval) -> String {
    let (id, run) = (&approval.approval_id, &approval.run_id);
    let fallback = match approval.fallback_on_timeout {
        FallbackOnTimeout::Deny => "denied (fallback_on_timeout = deny)".to_owned(),
        FallbackOnTimeout::Pause => format!(
            "run {run} is paused until a person resumes it; its requests are blocked until \
             then (fallback_on_timeout = pause)"
        ),
        FallbackOnTimeout::CancelRun => {
            format!("run {run} is cancelled (fallback_on_timeout = cancel_run)")
        }
    };
    format!("Assent: nobody answered approval {id} in time; {fallback}")
}

/// The outcome when the service could not give an answer.
pub fn unreached(err: &ClientError, limit: Duration) -> Decided {
    let outcome = match err {
        ClientError::Timeout => Outcome::Unavailable {
            reason: format!(
                "Assent: the service did not answer within {}s; not allowed",
                secs(limit)
            ),
        },
        ClientError::Api {
            code: ErrorCode::Unauthorized,
            message,
            ..
        } => Outcome::Refused {
            reason: format!(
                "Assent: the service refused the token ({message}): give a requester token it \
                 knows (`assent agents add NAME`); not allowed"
            ),
        },
        ClientError::Api {
            code: ErrorCode::Unavailable,
            message,
            ..
        } => Outcome::Unavailable {
            reason: format!("Assent: {message}; not allowed"),
        },
        other => Outcome::Unavailable {
            reason: format!("Assent: cannot get a decision ({other}); not allowed"),
        },
    };
    Decided {
        outcome,
        submit: None,
        approval: None,
    }
}

fn allowed_reason(s: &SubmitResponse) -> String {
    match &s.grant_id {
        Some(grant) => format!("Assent: covered by grant {grant}"),
        None if s.facts.reasons.is_empty() => format!("Assent: auto ({})", s.facts.rule),
        None => format!("Assent: auto: {}", s.facts.reasons.join("; ")),
    }
}

/// A person denied an equivalent action earlier in the run: their reason, not asked again.
fn remembered_reason(s: &SubmitResponse) -> String {
    let why = if s.facts.reasons.is_empty() {
        "a person denied this earlier in the run".to_owned()
    } else {
        s.facts.reasons.join("; ")
    };
    format!("Assent: denied, not asked again: {why}")
}

fn blocked_reason(s: &SubmitResponse) -> String {
    if s.facts.reasons.is_empty() {
        format!("Assent: blocked by policy rule {}", s.facts.rule)
    } else {
        format!("Assent: blocked by policy: {}", s.facts.reasons.join("; "))
    }
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// Parses a number of seconds (fractions allowed) for clap.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !value.is_finite() || !(0.0..=86_400.0).contains(&value) {
        return Err(format!("{text} must be between 0 and 86400 seconds"));
    }
    Ok(Duration::from_secs_f64(value))
}
