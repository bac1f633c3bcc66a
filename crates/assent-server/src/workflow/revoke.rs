//! A person revokes a grant: it stops covering at once, audited and announced.

use assent_core::AuditDecision;
use assent_protocol::{Event, Grant};
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::{Revocation, Store, StoreError};

/// Revokes a grant; `None` when there is no such grant, `Conflict` when already revoked.
pub async fn revoke(
    store: &dyn Store,
    grant_id: &str,
    revoke: Revocation<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Grant>, StoreError> {
    let mut tx = store.begin().await?;
    if tx.grant(grant_id, now).await?.is_none() {
        return Ok(None);
    }
    if !tx
        .revoke_grant(grant_id, revoke.by.name, revoke.reason, now)
        .await?
    {
        return Err(StoreError::Conflict(
            "the grant is already revoked".to_owned(),
        ));
    }
    let Some(grant) = tx.grant(grant_id, now).await? else {
        return Ok(None);
    };
    let audit = assent_core::workflow::grant_audit(
        new_id(),
        grant.facts(),
        AuditDecision::Revoked,
        (revoke.by.name, revoke.by.role),
        revoke.reason,
        now,
    );
    tx.insert_audits(&[audit]).await?;
    let revoked = Event::GrantRevoked {
        grant: grant.clone(),
    };
    tx.insert_event(now, &revoked).await?;
    tx.commit().await?;
    Ok(Some(grant))
}
