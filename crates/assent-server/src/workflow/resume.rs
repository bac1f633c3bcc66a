//! An approver lets a run that an unanswered prompt paused ask again.

use assent_core::campaign::CampaignStatus;
use assent_protocol::{ApprovalMember, Event, RunState};
use chrono::{DateTime, Utc};

use crate::records::new_id;
use crate::store::{Actor, Store, StoreError, Tx};

/// A run of a stopped campaign goes on only with its campaign: `Conflict` saying so.
async fn refuse_in_stopped_campaign(tx: &mut dyn Tx, run_id: &str) -> Result<(), StoreError> {
    let Some(held) = tx.run_holds(&[run_id]).await?.remove(run_id) else {
        return Ok(());
    };
    let Some(id) = held.campaign.as_deref() else {
        return Ok(());
    };
    match tx.campaign(id).await? {
        Some(campaign) if campaign.status == CampaignStatus::Stopped => {
            Err(StoreError::Conflict(format!(
                "run {run_id} belongs to campaign {id}, which is stopped: resume the campaign first (the window's Campaigns tab, `assent campaign resume {id}`, or POST /v1/campaigns/{id}/resume)"
            )))
        }
        _ => Ok(()),
    }
}

/// Resumes a paused run, audited (naming the prompt that paused it) and announced;
/// `Conflict` when it is not paused.
pub async fn resume(
    store: &dyn Store,
    run_id: &str,
    by: Actor<'_>,
    now: DateTime<Utc>,
) -> Result<RunState, StoreError> {
    let mut tx = store.begin().await?;
    refuse_in_stopped_campaign(tx.as_mut(), run_id).await?;
    let resumed = tx.resume_run(run_id, now).await?;
    let pausing = match &resumed.approval_id {
        Some(id) => tx.approval(id).await?,
        None => None,
    };
    let reason = resumed.reason.clone().unwrap_or_default();
    // The prompt whose unanswered timeout paused the run: its first member is what the
    // record names.
    let pausing = pausing.as_ref().map(|record| {
        let approval = &record.approval;
        (
            approval.prompt_facts(&record.policy_version),
            approval.members.first().map(ApprovalMember::facts),
        )
    });
    let audit = assent_core::workflow::resume_audit(
        new_id(),
        run_id,
        pausing,
        (by.name, by.role),
        &reason,
        now,
    );
    tx.insert_audits(&[audit]).await?;
    let event = Event::RunResumed {
        run: resumed.clone(),
    };
    tx.insert_event(now, &event).await?;
    tx.commit().await?;
    Ok(resumed)
}
