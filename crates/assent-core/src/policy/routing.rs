//! `[routing]` of the policy: who a prompt asks first, and when it asks everyone.
//!
//! A prompt first asks the people who may decide it and are present (a desk connected, or a
//! web desk session used recently); when none is, everyone who may. With `escalate_after`
//! set, a prompt still open that long after it opened asks everyone holding the role it
//! needs. Without it (the default) a prompt is not routed: it asks everyone who may decide
//! it at once, as before.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// The longest `escalate_after` (a prompt never waits longer than a week anyway).
pub const MAX_ESCALATE_AFTER_SECONDS: i64 = 7 * 24 * 3600;

/// `[routing]` of the policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    /// `escalate_after = "5m"`: a prompt still open this long after it opened asks everyone
    /// holding its role (off when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_after: Option<Span>,
}

impl Routing {
    pub fn is_default(&self) -> bool {
        *self == Routing::default()
    }

    /// How long an open prompt waits before it asks everyone; `None`: it never escalates.
    pub fn escalate_after(&self) -> Option<chrono::Duration> {
        self.escalate_after
            .map(|span| chrono::Duration::seconds(span.0))
    }

    /// Checks the section against the prompt's own timeout: escalating at or after the time
    /// a prompt times out would ask nobody.
    pub(crate) fn checked(self, approval_timeout_seconds: i64) -> Result<Routing, String> {
        if let Some(span) = self.escalate_after {
            if span.0 >= approval_timeout_seconds {
                return Err(format!(
                    "routing.escalate_after ({}) must be shorter than approval_timeout_seconds \
                     ({approval_timeout_seconds}): the prompt would time out before anyone \
                     else is asked",
                    span.written()
                ));
            }
        }
        Ok(self)
    }
}

/// A span of time written `90s`, `5m`, `1h` or `1d`; seconds inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Span(pub i64);

impl Span {
    /// The span as a person writes it: the largest unit that divides it.
    pub fn written(self) -> String {
        let s = self.0;
        match s {
            _ if s % 86_400 == 0 => format!("{}d", s / 86_400),
            _ if s % 3600 == 0 => format!("{}h", s / 3600),
            _ if s % 60 == 0 => format!("{}m", s / 60),
            _ => format!("{s}s"),
        }
    }
}

impl TryFrom<String> for Span {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        let bad = || {
            format!(
                "routing.escalate_after {text:?} must be a number with s, m, h or d (\"5m\", \"1h\")"
            )
        };
        // Digits only: unlike a capability's ttl, no sign ("+5m") is taken here.
        let digits = text.get(..text.len().saturating_sub(1)).unwrap_or_default();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let seconds = crate::text::span_seconds(&text).ok_or_else(bad)?;
        if !(1..=MAX_ESCALATE_AFTER_SECONDS).contains(&seconds) {
            return Err(format!("routing.escalate_after {text:?} must be 1s to 7d"));
        }
        Ok(Span(seconds))
    }
}

impl From<Span> for String {
    fn from(span: Span) -> String {
        span.written()
    }
}

/// Why the first step asked whom it asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AskedBasis {
    /// The people who may decide it and were present.
    Present,
    /// Nobody who may decide it was present, so everyone who may was asked.
    NobodyPresent,
    /// The policy does not route prompts (no `escalate_after`): everyone who may was asked.
    Everyone,
}

/// Who the first step of a prompt asks: of `deciders` (everyone who may decide it, sorted),
/// those `present`, or all of them when none is — or all of them when the prompt is not
/// `routed`.
pub fn first_step(
    deciders: &[String],
    present: &BTreeSet<String>,
    routed: bool,
) -> (Vec<String>, AskedBasis) {
    if !routed {
        return (deciders.to_vec(), AskedBasis::Everyone);
    }
    let here: Vec<String> = deciders
        .iter()
        .filter(|name| present.contains(*name))
        .cloned()
        .collect();
    if here.is_empty() {
        (deciders.to_vec(), AskedBasis::NobodyPresent)
    } else {
        (here, AskedBasis::Present)
    }
}

/// Who escalation newly asks: everyone who may decide it (`deciders`) not asked before.
pub fn newly_asked(deciders: &[String], asked_before: &[String]) -> Vec<String> {
    deciders
        .iter()
        .filter(|name| !asked_before.contains(name))
        .cloned()
        .collect()
}

/// Who may decide a prompt needing `role`, as the audit and the desk say it.
pub fn holders(role: Option<crate::types::Role>) -> String {
    match role {
        Some(role) => format!(
            "everyone holding {}",
            crate::approval::authority::role_name(role)
        ),
        None => "everyone who may decide it".to_owned(),
    }
}

/// The audit's reason for a routed prompt's first step.
pub fn first_step_reason(people: &[String], basis: AskedBasis) -> String {
    let names = listed(people);
    match basis {
        AskedBasis::Present => format!("asked the people present who may decide it: {names}"),
        AskedBasis::NobodyPresent => {
            format!("nobody who may decide it was present: asked everyone who may ({names})")
        }
        AskedBasis::Everyone => format!("asked everyone who may decide it: {names}"),
    }
}

/// The audit's reason for an escalation after `after`.
pub fn escalation_reason(
    after: Span,
    role: Option<crate::types::Role>,
    newly: &[String],
) -> String {
    format!(
        "still open after {}: escalated to {}; newly asked: {}",
        after.written(),
        holders(role),
        listed(newly)
    )
}

fn listed(people: &[String]) -> String {
    if people.is_empty() {
        "nobody".to_owned()
    } else {
        people.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_first_step_asks_who_is_present_else_everyone() {
        let deciders = names(&["alice", "bob"]);
        let present: BTreeSet<String> = names(&["alice", "carol"]).into_iter().collect();
        assert_eq!(
            first_step(&deciders, &present, true),
            (names(&["alice"]), AskedBasis::Present),
            "alice may decide and is present; carol is present but may not decide"
        );
        assert_eq!(
            first_step(&deciders, &BTreeSet::new(), true),
            (deciders.clone(), AskedBasis::NobodyPresent),
            "with nobody present a prompt still asks someone: everyone who may"
        );
        assert_eq!(
            first_step(&deciders, &present, false),
            (deciders.clone(), AskedBasis::Everyone),
            "an unrouted prompt asks everyone at once, present or not"
        );
        assert_eq!(
            newly_asked(&deciders, &names(&["alice"])),
            names(&["bob"]),
            "escalation adds only the people not asked yet"
        );
    }

    #[test]
    fn spans_read_as_written_and_write_back() {
        for (text, seconds, back) in [
            ("90s", 90, "90s"),
            ("5m", 300, "5m"),
            ("300s", 300, "5m"),
            ("2h", 7200, "2h"),
            ("1d", 86_400, "1d"),
        ] {
            let span = Span::try_from(text.to_owned());
            assert_eq!(span, Ok(Span(seconds)), "{text} is {seconds} seconds");
            assert_eq!(
                Span(seconds).written(),
                back,
                "a span is shown in its largest whole unit"
            );
        }
    }
}
