//! Grants past their time are announced (`grant.expired`, audited) once: by the expiry sweep
//! and when a run ends.

use assent_core::AuditDecision;
use assent_protocol::Event;
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::{Actor, StoreError, Tx};

/// Announces (`grant.expired`, audited) every grant past its time, once; how many.
pub async fn announce_expired(
    tx: &mut dyn Tx,
    now: DateTime<Utc>,
    reason: &str,
) -> Result<u32, StoreError> {
    let mut announced = 0_u32;
    for grant in tx.unannounced_expired_grants(now).await? {
        if !tx.mark_grant_announced(&grant.grant.grant_id).await? {
            continue;
        }
        // An expiry names the person who granted it: whose decision ran out.
        let by = Actor {
            name: &grant.grant.created_by,
            role: grant.created_by_role,
        };
        let audit = assent_core::workflow::grant_audit(
            new_id(),
            grant.facts(),
            AuditDecision::Expired,
            (by.name, by.role),
            reason,
            now,
        );
        tx.insert_audits(&[audit]).await?;
        tx.insert_event(now, &Event::GrantExpired { grant }).await?;
        announced = announced.saturating_add(1);
    }
    Ok(announced)
}
