//! What a person is offered on a prompt, computed once per request: the quick decisions with
//! their lifetimes bounded as any grant of their scope is (the policy's bound, no longer than
//! the exception asked for nor than the capability's time to live). The service stores them
//! with the prompt; notification buttons and the window render them.

use chrono::Duration;

use crate::capability::eval::Named;
use crate::decision::RiskDecision;
use crate::grant::quick::{quick_decisions, QuickDecision};
use crate::policy::Policy;
use crate::request::ActionRequest;
use crate::types::ScopeKind;

/// The longest a grant of `scope` for `request` may last: the policy's bound for the scope,
/// shortened to the exception's asked lifetime and to the capability's time to live.
pub fn lifetime_bound(policy: &Policy, request: &ActionRequest, scope: ScopeKind) -> Duration {
    bounded(policy, request, policy.max_lifetime(scope))
}

fn bounded(policy: &Policy, request: &ActionRequest, max: Duration) -> Duration {
    let max = crate::exception::eval::bound_lifetime(request, max);
    crate::capability::eval::bound_lifetime(policy, request, max)
}

/// The quick decisions `decision` offers on `request` (asking for `capability`), each no
/// longer than a grant of its scope may last.
pub(crate) fn offer(
    policy: &Policy,
    request: &ActionRequest,
    capability: Named<'_>,
    decision: &RiskDecision,
) -> Vec<QuickDecision> {
    let mut quick = quick_decisions(
        policy,
        &decision.offered_scopes,
        decision.profile.as_deref(),
    );
    for one in &mut quick {
        let max = Duration::seconds(one.expires_in_seconds);
        let max = crate::exception::eval::bound_lifetime(request, max);
        one.expires_in_seconds = crate::capability::eval::bound_by(capability, max).num_seconds();
    }
    quick
}
