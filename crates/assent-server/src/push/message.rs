//! What a push says about a prompt, and how urgently: the payload is the prompt's id, its
//! risk and the one-line summary the desk shows (masked at evaluation, like all evidence) —
//! never the command, a path's content or a secret. TTL is the prompt's remaining life (a
//! push that arrives after it expired helps nobody); the urgency follows the risk.

use assent_core::{Policy, RiskLevel};
use assent_protocol::{Approval, PushPayload};
use chrono::{DateTime, Utc};

/// The longest summary a push carries.
pub const MAX_SUMMARY: usize = 120;
/// Push services keep a message at most this long anyway (4 weeks).
const MAX_TTL: i64 = 28 * 24 * 3600;

/// The message about `approval` for a notification.
pub fn payload(approval: &Approval, policy: &Policy) -> PushPayload {
    let quick = policy.desk.quick_up_to.min(RiskLevel::Medium);
    let stepped = policy.approvals.step_up_holds(approval.facts.risk);
    let once = approval
        .facts
        .offered_scopes
        .contains(&assent_core::ScopeKind::Once);
    PushPayload {
        approval_id: approval.approval_id.clone(),
        risk: approval.facts.risk,
        summary: one_line(&approval.evidence.summary, MAX_SUMMARY),
        open_only: approval.facts.risk > quick || stepped || !once,
    }
}

/// RFC 8030's `Urgency` for a prompt of `risk`.
pub fn urgency(risk: RiskLevel) -> &'static str {
    match risk {
        RiskLevel::Low => "low",
        RiskLevel::Medium => "normal",
        RiskLevel::High | RiskLevel::Critical => "high",
    }
}

/// RFC 8030's `TTL`: the seconds until the prompt expires.
pub fn ttl(expires_at: DateTime<Utc>, now: DateTime<Utc>) -> i64 {
    (expires_at - now).num_seconds().clamp(0, MAX_TTL)
}

/// `text` on one line, control characters dropped, at most `max` characters (with "…").
pub fn one_line(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.chars().count() <= max {
        return clean;
    }
    let mut cut: String = clean.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(
            one_line("Run  cargo\ntest\u{7} in shop", 40),
            "Run cargo test in shop"
        );
        let long = one_line(&"x".repeat(500), MAX_SUMMARY);
        assert_eq!(
            long.chars().count(),
            MAX_SUMMARY,
            "cut to fit a notification"
        );
        assert!(long.ends_with('…'), "and says it was cut");
    }

    #[test]
    fn urgency_follows_risk_and_ttl_the_prompt_life() {
        assert_eq!(urgency(RiskLevel::Critical), "high");
        assert_eq!(urgency(RiskLevel::Low), "low");
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default();
        assert_eq!(ttl(now + chrono::Duration::seconds(90), now), 90);
        assert_eq!(
            ttl(now - chrono::Duration::seconds(5), now),
            0,
            "expired: no life left"
        );
    }
}
