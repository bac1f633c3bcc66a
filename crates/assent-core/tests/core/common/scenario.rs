//! Scenario tables: each row a named request with the decision, rule, role and profile the
//! policy must give, and why.

use assent_core::{ActionRequest, Decision, Policy, Role, ScopeKind};

use super::eval;
use Decision::{Auto, Block};

pub struct Row {
    pub name: &'static str,
    pub request: ActionRequest,
    pub decision: Decision,
    pub rule: &'static str,
    pub role: Option<Role>,
    pub profile: Option<&'static str>,
    pub why: &'static str,
}

pub fn row(
    name: &'static str,
    request: ActionRequest,
    decision: Decision,
    rule: &'static str,
    why: &'static str,
) -> Row {
    Row {
        name,
        request,
        decision,
        rule,
        role: None,
        profile: None,
        why,
    }
}

pub fn with_role(mut r: Row, role: Role) -> Row {
    r.role = Some(role);
    r
}

pub fn with_profile(mut r: Row, profile: &'static str) -> Row {
    r.profile = Some(profile);
    r
}

/// Every row's reasons, under the default policy, contain `needle`; `what` says why.
pub fn reasons_say(rows: &[Row], needle: &str, what: &str) {
    for r in rows {
        let e = eval(&Policy::default(), &r.request);
        assert!(
            e.decision
                .reasons
                .iter()
                .any(|reason| reason.contains(needle)),
            "[{}] {what}: {:?}",
            r.name,
            e.decision.reasons
        );
    }
}

pub fn check(rows: Vec<Row>, policy: &Policy) {
    for r in rows {
        let e = eval(policy, &r.request);
        let d = &e.decision;
        assert_eq!(
            d.decision, r.decision,
            "[{}] decision: {} (got rule {}, reasons {:?})",
            r.name, r.why, d.rule, d.reasons
        );
        assert_eq!(
            d.rule, r.rule,
            "[{}] rule: {} (reasons {:?})",
            r.name, r.why, d.reasons
        );
        assert_eq!(
            d.required_role, r.role,
            "[{}] required role: {}",
            r.name, r.why
        );
        assert_eq!(
            d.profile.as_deref(),
            r.profile,
            "[{}] profile: {}",
            r.name,
            r.why
        );
        assert!(
            !d.reasons.is_empty(),
            "[{}] every answer must explain itself",
            r.name
        );
        if matches!(d.decision, Auto | Block) {
            assert!(
                d.offered_scopes.is_empty(),
                "[{}] auto and block never offer a scope to approve",
                r.name
            );
        } else {
            assert!(
                d.offered_scopes.contains(&ScopeKind::Once),
                "[{}] ask always offers approve-once",
                r.name
            );
        }
    }
}
