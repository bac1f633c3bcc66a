//! A request that is a live grant's action moved (its base commit or diff changed, see
//! `ApprovalGrant::moved_by`) invalidates that grant in the submission's transaction: the grant
//! never covers again, the change is audited and announced, and the request is asked as usual.

use assent_core::{ApprovalGrant, AuditDecision};
use assent_protocol::Event;

use crate::records::new_id;
use crate::store::{Actor, StoreError, Submission, Tx};

/// Invalidates every grant among `candidates` that `s` is the moved action of; how many. A
/// grant another request or replica invalidated (or revoked) first is skipped: its guard
/// makes each invalidation happen once.
pub async fn invalidate_moved(
    tx: &mut dyn Tx,
    s: &Submission,
    candidates: &[ApprovalGrant],
) -> Result<u32, StoreError> {
    let mut invalidated = 0_u32;
    for candidate in candidates {
        let Some(moved) = candidate.moved_by(&s.request, &s.eval, &s.requester, s.now) else {
            continue;
        };
        let reason = moved.reason();
        let id = &candidate.grant_id;
        if !tx.invalidate_grant(id, &reason, s.now).await? {
            continue;
        }
        let Some(grant) = tx.grant(id, s.now).await? else {
            continue;
        };
        // Like an expiry, it names the person who granted it: whose decision stopped counting.
        let by = Actor {
            name: &grant.grant.created_by,
            role: grant.created_by_role,
        };
        let mut audit = assent_core::workflow::grant_audit(
            new_id(),
            grant.facts(),
            AuditDecision::Invalidated,
            (by.name, by.role),
            &reason,
            s.now,
        );
        audit.action_id = Some(s.action_id.clone());
        tx.insert_audits(&[audit]).await?;
        let event = Event::GrantInvalidated {
            grant,
            action_id: s.action_id.clone(),
        };
        tx.insert_event(s.now, &event).await?;
        invalidated = invalidated.saturating_add(1);
    }
    Ok(invalidated)
}
