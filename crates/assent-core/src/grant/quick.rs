//! The quick decisions a person may take on an approval — the notification's buttons and the
//! window's expiry choices — derived from the offered scopes and bounded by the policy's
//! lifetimes, so no click can ask for more than the policy allows.

use serde::{Deserialize, Serialize};

use crate::policy::Policy;
use crate::text::span;
use crate::types::ScopeKind;

/// The longest a quick once/profile/path grant lasts unless the policy caps it lower.
const QUICK_SECONDS: i64 = 3600;

/// One button: approve with this scope for this long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct QuickDecision {
    pub label: String,
    pub scope: ScopeKind,
    pub expires_in_seconds: i64,
}

/// The quick approvals for an approval offering `offered`, most used first: "for this run"
/// (as long as the policy lets a run grant last), then "once", then the rest.
pub fn quick_decisions(
    policy: &Policy,
    offered: &[ScopeKind],
    profile: Option<&str>,
) -> Vec<QuickDecision> {
    let mut order: Vec<ScopeKind> = offered.to_vec();
    order.sort_by_key(|scope| match scope {
        ScopeKind::Run => 0,
        ScopeKind::Once => 1,
        _ => 2,
    });
    order
        .into_iter()
        .map(|scope| {
            let max = policy.max_lifetime(scope).num_seconds();
            let (label, seconds) = match (scope, profile) {
                (ScopeKind::Run, Some(profile)) => (format!("Allow {profile} for run"), max),
                (ScopeKind::Run, None) => ("Allow for run".to_owned(), max),
                (ScopeKind::Once, _) => ("Allow once".to_owned(), max.min(QUICK_SECONDS)),
                (ScopeKind::CommandProfile, Some(profile)) => {
                    let s = max.min(QUICK_SECONDS);
                    (format!("Allow {profile} for {}", span(s)), s)
                }
                (ScopeKind::PathPattern, _) => {
                    let s = max.min(QUICK_SECONDS);
                    (format!("Allow these paths for {}", span(s)), s)
                }
                // The whole exception asked for (the caller bounds it by the request).
                (ScopeKind::Exception, _) => ("Allow the exception".to_owned(), max),
                (other, _) => {
                    let s = max.min(QUICK_SECONDS);
                    (format!("Allow ({}) for {}", scope_label(other), span(s)), s)
                }
            };
            QuickDecision {
                label,
                scope,
                expires_in_seconds: seconds.max(1),
            }
        })
        .collect()
}

fn scope_label(scope: ScopeKind) -> &'static str {
    match scope {
        ScopeKind::Once => "once",
        ScopeKind::CommandProfile => "command profile",
        ScopeKind::PathPattern => "path pattern",
        ScopeKind::Run => "run",
        ScopeKind::TaskType => "task type",
        ScopeKind::Repo => "repository",
        ScopeKind::Org => "everywhere",
        ScopeKind::Exception => "exception",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_decisions_stay_within_the_policy() {
        let capped = Policy::from_toml("[max_grant_lifetime]\nrun = 14400").unwrap_or_default();
        let quick = quick_decisions(
            &capped,
            &[ScopeKind::Once, ScopeKind::Run],
            Some("maven-test"),
        );
        assert_eq!(
            quick
                .first()
                .map(|q| (q.label.as_str(), q.expires_in_seconds)),
            Some(("Allow maven-test for run", 14_400)),
            "the run button asks for what the policy allows (4 h here), never a fixed 8 h"
        );
        assert_eq!(
            quick.get(1).map(|q| (q.scope, q.expires_in_seconds)),
            Some((ScopeKind::Once, 3600)),
            "once lasts an hour at most"
        );
        let tight = Policy::from_toml("[max_grant_lifetime]\nonce = 60").unwrap_or_default();
        let quick = quick_decisions(&tight, &[ScopeKind::Once], None);
        assert_eq!(
            quick.first().map(|q| q.expires_in_seconds),
            Some(60),
            "a policy cap below an hour bounds the once button"
        );
        let short =
            Policy::from_toml("[max_grant_lifetime]\ncommand_profile = 1800").unwrap_or_default();
        let quick = quick_decisions(&short, &[ScopeKind::CommandProfile], Some("npm-test"));
        assert_eq!(
            quick.first().map(|q| q.label.as_str()),
            Some("Allow npm-test for 30 min"),
            "the label says the lifetime the click asks for"
        );
        assert!(
            quick_decisions(&tight, &[], None).is_empty(),
            "nothing offered, nothing to click"
        );
    }

    #[test]
    fn the_desk_section_moves_where_one_act_is_enough() {
        use crate::types::RiskLevel;
        let default = Policy::default();
        assert!(
            default.desk.quick(RiskLevel::Medium) && !default.desk.quick(RiskLevel::High),
            "by default low and medium prompts are approved in one act, high ones are not"
        );
        let low = Policy::from_toml("[desk]\nquick_up_to = \"low\"\n").expect("a valid [desk]");
        assert!(
            low.desk.quick(RiskLevel::Low) && !low.desk.quick(RiskLevel::Medium),
            "quick_up_to = low keeps one act for low risk only"
        );
        assert_ne!(
            low.version(),
            default.version(),
            "moving the line is a different policy"
        );
        assert_eq!(
            Policy::from_toml("[desk]\nquick_up_to = \"medium\"\n")
                .expect("the default written out")
                .version(),
            default.version(),
            "writing the default changes nothing"
        );
        for bad in [
            "[desk]\nquick_up_to = \"extreme\"\n",
            "[desk]\nquick = \"low\"\n",
        ] {
            assert!(
                Policy::from_toml(bad).is_err(),
                "an unknown level or key is an error, not a silent default: {bad}"
            );
        }
    }
}
