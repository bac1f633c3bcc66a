//! A gate that waited on a prompt approved "once" runs it: that is the grant's one use.
//!
//! The replica that settles spends the use at once when a gate waits on it (it counts its own
//! long-polls). A gate waiting on another replica (a team's service) is answered there, so that
//! replica spends the use when it answers: guarded, so the use goes once whoever spends first.

use assent_core::ApprovalStatus;
use assent_protocol::Approval;
use chrono::{DateTime, Utc};

use crate::store::{Store, StoreError};

/// Spends the one use of `approval`'s "once" grant for the gate it answers; true when this call
/// spent it (false: not a "once" approval, or the use was already spent).
pub async fn spend_once(
    store: &dyn Store,
    approval: &Approval,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let Some(grant_id) = approval.grant_id.as_deref() else {
        return Ok(false);
    };
    if approval.status != ApprovalStatus::ApprovedOnce {
        return Ok(false);
    }
    let mut tx = store.begin().await?;
    let spent = tx.use_grant(grant_id, now).await?;
    tx.commit().await?;
    Ok(spent)
}
