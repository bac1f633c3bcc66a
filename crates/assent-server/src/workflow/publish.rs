//! Publishing waits for the run's diff reviews (drill 2): a PR request is gated when it is
//! submitted (`pr_gate.rs`), and approving it checks again, here, in the transaction that
//! settles it.

use super::decide_error::DecideError;
use super::pr_gate::{base_of, gate_of};
use super::settle;
use crate::store::{ApprovalRecord, Settled, Settlement, Store};

/// Settles an approval of the PR `record` in one transaction with the check that its run's
/// diff reviews are still current; a 409 with the reason when one went stale meanwhile.
pub async fn settle_checked(
    store: &dyn Store,
    record: &ApprovalRecord,
    settlement: &Settlement,
) -> Result<Settled, DecideError> {
    let mut tx = store.begin().await?;
    let base = base_of(&record.first_request);
    let gate = gate_of(tx.as_mut(), &record.approval.run_id, base).await?;
    if let Some(reason) = gate.blocked {
        return Err(DecideError::Conflict(reason));
    }
    let settled = settle::settle_in(tx.as_mut(), settlement, &[]).await?;
    tx.commit().await?;
    Ok(settled)
}
