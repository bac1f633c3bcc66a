//! An approver lets a run that an unanswered prompt paused ask again.

use assent_protocol::{Event, RunState};
use chrono::{DateTime, Utc};

use crate::records::resume_audit;
use crate::store::{Actor, Store, StoreError};

/// Resumes a paused run, audited (naming the prompt that paused it) and announced;
/// `Conflict` when it is not paused.
pub async fn resume(
    store: &dyn Store,
    run_id: &str,
    by: Actor<'_>,
    now: DateTime<Utc>,
) -> Result<RunState, StoreError> {
    let mut tx = store.begin().await?;
    let resumed = tx.resume_run(run_id, now).await?;
    let pausing = match &resumed.approval_id {
        Some(id) => tx.approval(id).await?,
        None => None,
    };
    let reason = resumed.reason.clone().unwrap_or_default();
    let audit = resume_audit(run_id, pausing.as_ref(), by, &reason, now);
    tx.insert_audits(&[audit]).await?;
    let event = Event::RunResumed {
        run: resumed.clone(),
    };
    tx.insert_event(now, &event).await?;
    tx.commit().await?;
    Ok(resumed)
}
