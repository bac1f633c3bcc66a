//! Policy suggestions from the approvals people settled: one computation for
//! `GET /v1/suggestions` and `assent policy suggest`.

use assent_core::suggest::{suggest, SettledPrompt, Suggestion};
use assent_core::Policy;
use assent_protocol::{Approval, Resolution};
use chrono::{DateTime, Utc};

use crate::store::{Store, StoreError};

/// What `policy` would gain from the approvals settled since `since` (skipping what it already
/// trusts or blocks), most decisions first.
pub async fn suggestions_since(
    store: &dyn Store,
    policy: &Policy,
    since: DateTime<Utc>,
) -> Result<Vec<Suggestion>, StoreError> {
    let prompts: Vec<SettledPrompt> = store
        .approvals(false)
        .await?
        .iter()
        .filter(|a| a.decided_at.is_some_and(|at| at >= since))
        .map(settled)
        .collect();
    Ok(suggest(
        &prompts,
        &policy.trusted_repos,
        &policy.block_patterns,
    ))
}

fn settled(a: &Approval) -> SettledPrompt {
    SettledPrompt {
        rule: a.rule.clone(),
        profile: a.profile.clone(),
        repo: a.repo.clone(),
        command: a.evidence.command_line.clone(),
        approved: a.resolution == Some(Resolution::Approved),
        denied: a.resolution == Some(Resolution::Denied),
        risk: a.risk,
    }
}
