//! An approved capability request gets its secret, once: the service (never the agent)
//! reads the capability's source and hands the value to the execution the grant covers.
//! Audited and announced without the value.

use assent_core::{
    ActionKind, ApprovalAuditEvent, AuditDecision, EvidenceDetail, GrantStatus, Policy,
};
use assent_protocol::{CredentialRelease, Event, SubmitStatus};
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::rows::{ExecutedBy, ExecutedRow};
use crate::store::{Store, StoreError, Tx};

/// Who asks for which execution, under which policy.
#[derive(Debug, Clone, Copy)]
pub struct ReleaseAsk<'a> {
    pub requester: &'a str,
    pub run_id: &'a str,
    pub idempotency_key: &'a str,
    pub policy: &'a Policy,
    /// The service user's home, for `file:~/…` sources.
    pub home: &'a str,
    pub now: DateTime<Utc>,
}

/// Why the secret is not released.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseRefused {
    #[error("no capability request was submitted under this key in this run")]
    NotFound,
    /// The request is not (or no longer) covered: 409 with the reason.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Releases the secret for the execution `ask` names; see the module.
pub async fn release(
    store: &dyn Store,
    ask: ReleaseAsk<'_>,
) -> Result<CredentialRelease, ReleaseRefused> {
    let refused = |why: String| Err(ReleaseRefused::Refused(why));
    let mut tx = store.begin().await?;
    let row = tx
        .executed_candidate(
            ask.requester,
            ask.run_id,
            ExecutedBy::Key(ask.idempotency_key),
        )
        .await?
        .ok_or(ReleaseRefused::NotFound)?;
    if row.action_kind != ActionKind::Credential {
        return refused("this request is not a capability request".to_owned());
    }
    let grant_id = covering_grant(tx.as_mut(), &row).await?;
    let Some(grant) = tx.grant(&grant_id, ask.now).await? else {
        return refused("the grant that allowed this request no longer exists".to_owned());
    };
    match grant.grant.status(ask.now) {
        GrantStatus::Revoked => return refused(format!("grant {grant_id} was revoked: ask again")),
        GrantStatus::Expired => {
            return refused(format!(
                "grant {grant_id} expired at {}: ask again",
                grant.grant.expires_at
            ))
        }
        GrantStatus::Invalidated => {
            return refused(format!("grant {grant_id} no longer counts: ask again"))
        }
        GrantStatus::Active | GrantStatus::Exhausted => {}
    }
    let Some(prompt) = tx.approval(&grant.grant.approval_id).await? else {
        return refused("the approval behind the grant is gone".to_owned());
    };
    let EvidenceDetail::Credential(packet) = &prompt.approval.evidence.detail else {
        return refused("the grant is not for a credential capability".to_owned());
    };
    let name = packet.capability.clone();
    let Some(capability) = ask.policy.capability(&name) else {
        return refused(format!(
            "the policy no longer declares the capability {name}"
        ));
    };
    let value = crate::secret_source::resolve(&capability.source, ask.home).map_err(|why| {
        ReleaseRefused::Refused(format!("the secret of {name} cannot be read: {why}"))
    })?;
    if !tx.claim_execution(&row.action_id, ask.now).await? {
        return refused(
            "this execution already received the secret: each exec asks for it once".to_owned(),
        );
    }
    let audit = released_audit(&row, &ask, &grant_id, &name, &capability.inject_as);
    let audit = ApprovalAuditEvent {
        granted_scope: Some(grant.grant.scope_kind),
        grant_expires_at: Some(grant.grant.expires_at),
        approval_id: Some(grant.grant.approval_id.clone()),
        evidence_artifact_id: grant.grant.approval_id.clone(),
        ..audit
    };
    tx.insert_audits(&[audit]).await?;
    let event = Event::CredentialReleased {
        run_id: ask.run_id.to_owned(),
        action_id: row.action_id.clone(),
        grant_id: grant_id.clone(),
        capability: name.clone(),
    };
    tx.insert_event(ask.now, &event).await?;
    tx.commit().await?;
    Ok(CredentialRelease {
        action_id: row.action_id,
        grant_id,
        capability: name,
        inject_as: capability.inject_as.clone(),
        value,
        expires_at: grant.grant.expires_at,
    })
}

/// The grant that let this request run: the one it used, or the one its approval issued.
async fn covering_grant(tx: &mut dyn Tx, row: &ExecutedRow) -> Result<String, ReleaseRefused> {
    if row.status == SubmitStatus::Allowed {
        if let Some(grant_id) = &row.grant_id {
            return Ok(grant_id.clone());
        }
    }
    let not_yet = || ReleaseRefused::Refused("this request is not approved".to_owned());
    let approval_id = row.approval_id.as_deref().ok_or_else(not_yet)?;
    let record = tx.approval(approval_id).await?.ok_or_else(not_yet)?;
    if !record.approval.status.is_approved() {
        return Err(not_yet());
    }
    record.approval.grant_id.ok_or_else(not_yet)
}

fn released_audit(
    row: &ExecutedRow,
    ask: &ReleaseAsk<'_>,
    grant_id: &str,
    capability: &str,
    inject_as: &str,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        event_id: new_id(),
        timestamp: ask.now,
        approval_id: None,
        action_id: Some(row.action_id.clone()),
        run_id: ask.run_id.to_owned(),
        task_id: row.task_id.clone(),
        action_kind: row.action_kind,
        action_hash: row.action_hash.clone(),
        requested_scope: serde_json::json!({ "capability": capability }),
        decision: AuditDecision::CredentialReleased,
        approver: None,
        approver_role: None,
        requester: Some(ask.requester.to_owned()),
        reason: format!(
            "the secret of {capability} went to this execution only, as ${inject_as} (its value \
             is never recorded)"
        ),
        policy_version: row.policy_version.clone(),
        evidence_artifact_id: row.action_id.clone(),
        grant_id: Some(grant_id.to_owned()),
        repo: None,
        granted_scope: None,
        grant_expires_at: None,
        subject: row.command_line.clone(),
    }
}
