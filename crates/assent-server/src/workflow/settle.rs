//! Settling a prompt: a person's decision, a timeout, or the end of its run. Every member is
//! settled at once, audited one record each, and the grant an approval issued is created.

use assent_core::workflow::closed_by;
use assent_core::{ApprovalStatus, AuditDecision};
use assent_protocol::{Event, Resolution};
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::rows::SettleRow;
use crate::store::{Settled, Settlement, Store, StoreError, Tx};

/// Settles a pending approval in its own transaction; `Conflict` when it is no longer pending.
pub async fn settle(store: &dyn Store, settlement: &Settlement) -> Result<Settled, StoreError> {
    let mut tx = store.begin().await?;
    let settled = settle_in(tx.as_mut(), settlement, &[]).await?;
    tx.commit().await?;
    Ok(settled)
}

/// Settles a pending approval and all its members in the caller's transaction; `Conflict`
/// when it is no longer pending. `preceding`: audit records of the caller's that come before
/// the settlement's in the chain (the model reviewer's call), written with them.
pub async fn settle_in(
    tx: &mut dyn Tx,
    s: &Settlement,
    preceding: &[assent_core::ApprovalAuditEvent],
) -> Result<Settled, StoreError> {
    let grant_id = s.grant.as_ref().map(|g| g.grant.grant_id.clone());
    let settling = SettleRow {
        approval_id: &s.approval_id,
        status: s.status,
        resolution: s.resolution,
        decided_by: &s.decided_by,
        decided_role: s.decided_role,
        reason: s.reason.as_deref(),
        grant_id: grant_id.as_deref(),
        now: s.now,
    };
    let record = tx.settle_approval(settling, &s.votes).await?;
    if let Some(new) = &s.grant {
        tx.insert_grant(new).await?;
    }
    let decision = match s.resolution {
        Resolution::Approved => AuditDecision::Approved,
        Resolution::Denied => AuditDecision::Denied,
        Resolution::TimedOut | Resolution::Cancelled => AuditDecision::Expired,
    };
    let reason = s.reason.clone().unwrap_or_default();
    let granted = s.grant.as_ref().map(|g| &g.grant);
    let audits: Vec<_> = preceding
        .iter()
        .cloned()
        .chain(record.approval.members.iter().map(|member| {
            assent_core::workflow::settlement_audit(
                new_id(),
                record.approval.prompt_facts(&record.policy_version),
                member.facts(),
                record.approval.verdict(decision, granted, &reason),
            )
        }))
        .collect();
    tx.insert_audits(&audits).await?;
    super::start::after_settled(tx, &record.approval, s.now).await?;
    let settled = Event::ApprovalSettled {
        approval: record.approval.clone(),
    };
    tx.insert_event(s.now, &settled).await?;
    let grant = match &grant_id {
        Some(id) => tx.grant(id, s.now).await?,
        None => None,
    };
    if let Some(grant) = &grant {
        let created = Event::GrantCreated {
            grant: grant.clone(),
        };
        tx.insert_event(s.now, &created).await?;
    }
    Ok(Settled {
        approval: record.approval,
        grant,
    })
}

/// A settlement nobody decided: the timeout (`TimedOut`) or the end of the run (`Cancelled`).
pub fn closing(
    approval_id: String,
    resolution: Resolution,
    reason: &str,
    now: DateTime<Utc>,
) -> Settlement {
    Settlement {
        approval_id,
        status: ApprovalStatus::Expired,
        resolution,
        decided_by: closed_by(resolution == Resolution::TimedOut).to_owned(),
        decided_role: None,
        votes: Vec::new(),
        reason: Some(reason.to_owned()),
        grant: None,
        now,
    }
}
