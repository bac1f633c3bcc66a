//! A PR request waits for its run's diff reviews: blocked at once while a CI, security or
//! dependency diff approval of its run is missing or stale, else asked with them listed. The
//! rule is core's (`assent_core::workflow::pr_gate`); this reads the rows. Settling the PR's
//! approval checks again (`publish.rs`).

use assent_core::workflow::{pr_gate, DiffReviewed, PrBase, PrGate};
use assent_core::{ActionRequest, Decision, EvidenceDetail, RiskLevel};
use assent_protocol::Approval;

use crate::records::Recording;
use crate::store::{StoreError, Tx};

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

/// Where the PR `request` stands: its HEAD and the commits HEAD descends from.
pub(super) fn base_of(request: &ActionRequest) -> PrBase<'_> {
    PrBase {
        sha: request.context.base_sha.as_deref(),
        ancestors: &request.context.head_ancestors,
    }
}

pub(super) async fn gate_of(
    tx: &mut dyn Tx,
    run_id: &str,
    base: PrBase<'_>,
) -> Result<PrGate, StoreError> {
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
