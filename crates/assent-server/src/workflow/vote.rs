//! One person's approval of a prompt that needs more people than have approved so far.

use assent_core::Vote;
use assent_protocol::{Approval, Event};
use chrono::{DateTime, Utc};

use crate::store::{Store, StoreError};

/// Records `vote` on a still pending prompt and announces `approval.updated`; `Conflict` when
/// it is no longer pending.
pub async fn vote(
    store: &dyn Store,
    approval_id: &str,
    vote: &Vote,
    now: DateTime<Utc>,
) -> Result<Approval, StoreError> {
    let mut tx = store.begin().await?;
    tx.touch_pending(approval_id, now).await?;
    tx.insert_vote(approval_id, vote).await?;
    let approval = tx
        .approval(approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {approval_id} vanished")))?
        .approval;
    let updated = Event::ApprovalUpdated {
        approval: approval.clone(),
    };
    tx.insert_event(now, &updated).await?;
    tx.commit().await?;
    Ok(approval)
}
