//! Publishing waits for the run's diff reviews (drill 2): a PR request is blocked at once
//! while a CI, security or dependency diff approval of its run is missing or stale, else
//! asked with those approvals listed; approving it checks again in the transaction that
//! settles it. The rule is core's (`assent_core::workflow::pr_gate`); this reads the rows.

use assent_core::workflow::{pr_gate, DiffReviewed, PrBase, PrGate};
use assent_core::{ActionRequest, Decision, EvidenceDetail, RiskLevel};
use assent_protocol::Approval;

use super::decide_error::DecideError;
use super::settle;
use crate::records::Recording;
use crate::store::{ApprovalRecord, Settled, Settlement, Store, StoreError, Tx};

/// The rule that blocks a PR whose diff reviews are not current.
pub const RULE: &str = "block.pr_unreviewed";

/// Records the PR submission `r` as its run's diff approvals let it: blocked with the reason,
/// or asked with them listed in its packet.
pub async fn gated(tx: &mut dyn Tx, r: &mut Recording<'_>) -> Result<(), StoreError> {
    let request = &r.s.request;
    let gate = gate_of(tx, &request.run_id, base_of(request)).await?;
    let eval = r.eval.to_mut();
    if let EvidenceDetail::Pr(packet) = &mut eval.evidence.detail {
        packet.diff_approvals = gate.diff_approvals;
    }
    if let Some(reason) = gate.blocked {
        let d = &mut eval.decision;
        d.decision = Decision::Block;
        d.risk = d.risk.max(RiskLevel::High);
        d.rule = RULE.to_owned();
        d.reasons.insert(0, reason);
        d.required_role = None;
        d.offered_scopes.clear();
    }
    Ok(())
}

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
    let settled = settle::settle_in(tx.as_mut(), settlement).await?;
    tx.commit().await?;
    Ok(settled)
}

/// Where the PR `request` stands: its HEAD and the commits HEAD descends from.
fn base_of(request: &ActionRequest) -> PrBase<'_> {
    PrBase {
        sha: request.context.base_sha.as_deref(),
        ancestors: &request.context.head_ancestors,
    }
}

async fn gate_of(tx: &mut dyn Tx, run_id: &str, base: PrBase<'_>) -> Result<PrGate, StoreError> {
    let approvals = tx.run_diff_approvals(run_id).await?;
    let reviews: Vec<DiffReviewed<'_>> = approvals.iter().filter_map(reviewed).collect();
    Ok(pr_gate(&reviews, base))
}

fn reviewed(approval: &Approval) -> Option<DiffReviewed<'_>> {
    match &approval.evidence.detail {
        EvidenceDetail::Diff(packet) => Some(DiffReviewed {
            approval_id: &approval.approval_id,
            summary: &approval.evidence.summary,
            status: approval.status,
            packet,
            created_at: approval.created_at,
        }),
        _ => None,
    }
}
