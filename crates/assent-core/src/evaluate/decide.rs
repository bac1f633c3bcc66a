//! From many verdicts to one decision: the riskiest part decides, every reason is kept.

use crate::classify::verdict::Verdict;
use crate::decision::RiskDecision;
use crate::types::{ActionKind, Decision, RiskLevel, ScopeKind};

/// The decision: the riskiest verdict's, with every reason.
pub(crate) fn decide(verdicts: &[Verdict], kind: ActionKind) -> RiskDecision {
    let fallback = Verdict::ask(
        "ask.unknown",
        RiskLevel::Medium,
        "the policy found nothing to judge",
    );
    let top = verdicts
        .iter()
        .fold(None::<&Verdict>, |best, v| match best {
            Some(b) if b.weight() >= v.weight() => Some(b),
            _ => Some(v),
        })
        .unwrap_or(&fallback);
    let decision = top.decision;
    let mut ranked: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| (decision == Decision::Auto) == (v.decision == Decision::Auto))
        .collect();
    ranked.sort_by_key(|v| std::cmp::Reverse(v.weight()));
    let mut reasons: Vec<String> = Vec::new();
    for v in ranked
        .iter()
        .map(|v| &v.reason)
        .chain(std::iter::once(&top.reason))
    {
        if !reasons.contains(v) {
            reasons.push(v.clone());
        }
    }
    let required_role = match decision {
        Decision::Escalate => top.role,
        Decision::Ask => ranked.iter().filter_map(|v| v.role).max(),
        Decision::Auto | Decision::Block => None,
    };
    let profile = shared_profile(verdicts);
    let offered_scopes = if decision.needs_person() {
        scopes(profile.is_some(), kind)
    } else {
        Vec::new()
    };
    RiskDecision {
        decision,
        risk: top.risk,
        reasons,
        rule: top.rule.clone(),
        required_role,
        profile,
        offered_scopes,
    }
}

/// The profile when every part is either that profile or a plain auto part.
fn shared_profile(verdicts: &[Verdict]) -> Option<String> {
    let mut profile: Option<&String> = None;
    for v in verdicts {
        match (&v.profile, profile) {
            (Some(p), None) => profile = Some(p),
            (Some(p), Some(q)) if p != q => return None,
            (None, _) if v.decision != Decision::Auto => return None,
            _ => {}
        }
    }
    profile.cloned()
}

fn scopes(profile: bool, kind: ActionKind) -> Vec<ScopeKind> {
    let mut out = vec![ScopeKind::Once];
    if profile {
        out.extend([ScopeKind::Run, ScopeKind::CommandProfile]);
    }
    if matches!(kind, ActionKind::FileWrite | ActionKind::FileDelete) {
        out.push(ScopeKind::PathPattern);
    }
    out
}
