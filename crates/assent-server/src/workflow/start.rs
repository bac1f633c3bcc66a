//! A run's start (`POST /v1/runs/{id}/start`, `assent run start`): the policy's `[pre_run]`
//! says whether a person approves it first; until then the run is held
//! (`awaiting_approval`, every action blocked with "run awaiting pre-run approval"). A run
//! of a fleet campaign starts only in a repository of an approved stage.

use assent_core::pre_run::{self, RunPlan, AWAITING};
use assent_core::{EvidenceDetail, RiskLevel};
use assent_protocol::{
    Approval, Event, Resolution, RunStartResponse, RunStartStatus, RunState, RunStatus,
    SubmitStatus,
};
use chrono::{DateTime, Utc};

pub use super::asked::{prompt_submission, record_prompt, Asked, StartError, StartGround};
use crate::store::rows::HoldRow;
use crate::store::{Store, StoreError, Tx};

/// Starts `plan`'s run: started, a pre-run approval opened (or joined), or blocked.
pub async fn start(
    store: &dyn Store,
    plan: &RunPlan,
    repo: Option<&str>,
    ground: StartGround<'_>,
) -> Result<RunStartResponse, StartError> {
    let mut tx = store.begin().await?;
    let run_id = plan.run_id.as_str();
    let current = tx.run_holds(&[run_id]).await?.remove(run_id);
    if let Some(held) = current
        .as_ref()
        .filter(|r| r.status != RunStatus::AwaitingApproval)
    {
        return Err(StoreError::Conflict(format!(
            "run {run_id} is {} and cannot be started",
            if held.status == RunStatus::Paused {
                "paused"
            } else {
                "cancelled"
            }
        ))
        .into());
    }
    let answer = match &plan.campaign {
        Some(campaign) => {
            let repo = repo.ok_or_else(|| {
                StartError::BadRequest("a campaign run names its --repo".to_owned())
            })?;
            start_in_campaign(tx.as_mut(), run_id, campaign, repo, ground.now).await?
        }
        None => {
            let triggers = pre_run::triggers(&ground.policy.pre_run, plan);
            match (triggers.is_empty(), current) {
                (true, Some(held)) => still_held(&held),
                (true, None) => answer(
                    run_id,
                    RunStartStatus::Started,
                    None,
                    vec!["no pre-run approval needed".to_owned()],
                ),
                (false, _) => ask_first(tx.as_mut(), plan, triggers, ground).await?,
            }
        }
    };
    tx.commit().await?;
    Ok(answer)
}

/// A run still held from an earlier start: a lower-risk restart does not free it.
fn still_held(held: &RunState) -> RunStartResponse {
    let reason = held.reason.clone().unwrap_or_else(|| AWAITING.to_owned());
    let status = if reason == AWAITING {
        RunStartStatus::Pending
    } else {
        RunStartStatus::Blocked
    };
    answer(&held.run_id, status, held.approval_id.clone(), vec![reason])
}

fn answer(
    run_id: &str,
    status: RunStartStatus,
    approval_id: Option<String>,
    reasons: Vec<String>,
) -> RunStartResponse {
    RunStartResponse {
        run_id: run_id.to_owned(),
        status,
        approval_id,
        reasons,
    }
}

/// A campaign run: started in a repository of an approved stage, else held with why not.
async fn start_in_campaign(
    tx: &mut dyn Tx,
    run_id: &str,
    campaign_id: &str,
    repo: &str,
    now: DateTime<Utc>,
) -> Result<RunStartResponse, StartError> {
    let campaign = tx
        .campaign(campaign_id)
        .await?
        .ok_or_else(|| StartError::NotFound(format!("no campaign {campaign_id}")))?;
    let (status, reason) = match campaign.run_allowed(repo) {
        Ok(stage) => (
            RunStatus::Running,
            format!("{repo} is in approved stage {stage} of campaign {campaign_id}"),
        ),
        Err(refusal) => (RunStatus::AwaitingApproval, refusal.to_string()),
    };
    tx.hold_run(HoldRow {
        run_id,
        status,
        reason: &reason,
        approval_id: &campaign.approval_id,
        now,
        campaign: Some(campaign_id),
    })
    .await?;
    let started = if status == RunStatus::Running {
        RunStartStatus::Started
    } else {
        RunStartStatus::Blocked
    };
    Ok(answer(run_id, started, None, vec![reason]))
}

/// Opens (or joins) the run's pre-run approval and holds the run until it settles.
async fn ask_first(
    tx: &mut dyn Tx,
    plan: &RunPlan,
    triggers: Vec<String>,
    ground: StartGround<'_>,
) -> Result<RunStartResponse, StartError> {
    let role = ground.policy.pre_run.required_role;
    let evidence = pre_run::evidence(plan, triggers.clone(), role);
    let asked = Asked {
        request: pre_run::start_request(plan),
        evidence,
        risk: plan.risk.max(RiskLevel::Medium),
        role,
        required_approvals: ground.policy.approvals_required(Some(role), "pre_run"),
        rule: "pre_run",
        reasons: triggers.clone(),
    };
    let s = prompt_submission(asked, ground)?;
    let recorded = record_prompt(tx, &s).await?;
    let run_id = plan.run_id.as_str();
    let approval_id = recorded.approval_id.clone();
    let id = approval_id.clone().unwrap_or_default();
    let (hold_as, status, reasons) = match recorded.status {
        SubmitStatus::Pending => (
            RunStatus::AwaitingApproval,
            RunStartStatus::Pending,
            triggers,
        ),
        SubmitStatus::Allowed => (
            RunStatus::Running,
            RunStartStatus::Started,
            vec!["the run's pre-run approval was given".to_owned()],
        ),
        SubmitStatus::Denied | SubmitStatus::Blocked => (
            RunStatus::Cancelled,
            RunStartStatus::Blocked,
            recorded.facts.reasons.clone(),
        ),
        SubmitStatus::WouldAsk => {
            return Err(StoreError::Corrupt(
                "a pre-run prompt was screened instead of recorded".to_owned(),
            )
            .into())
        }
    };
    let reason = match hold_as {
        RunStatus::AwaitingApproval => AWAITING.to_owned(),
        _ => reasons.join("; "),
    };
    hold(tx, run_id, hold_as, &reason, &id, ground.now).await?;
    Ok(answer(run_id, status, approval_id, reasons))
}

async fn hold(
    tx: &mut dyn Tx,
    run_id: &str,
    status: RunStatus,
    reason: &str,
    approval_id: &str,
    now: DateTime<Utc>,
) -> Result<RunState, StoreError> {
    tx.hold_run(HoldRow {
        run_id,
        status,
        reason,
        approval_id,
        now,
        campaign: None,
    })
    .await
}

/// After a pre-run approval settles: approved frees its run, anything else cancels it with
/// the reason. A run no longer waiting on this approval is left alone.
pub async fn pre_run_settled(
    tx: &mut dyn Tx,
    approval: &Approval,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let run_id = approval.run_id.as_str();
    let waiting = tx
        .run_holds(&[run_id])
        .await?
        .remove(run_id)
        .is_some_and(|r| {
            r.status == RunStatus::AwaitingApproval
                && r.approval_id.as_deref() == Some(approval.approval_id.as_str())
        });
    if !waiting {
        return Ok(());
    }
    let by = approval.decided_by.as_deref().unwrap_or("nobody");
    let why = approval
        .decision_reason
        .as_deref()
        .unwrap_or("no reason given");
    let (status, reason) = match approval.resolution {
        Some(Resolution::Approved) => (RunStatus::Running, format!("pre-run approved by {by}")),
        Some(Resolution::Denied) => (
            RunStatus::Cancelled,
            format!("pre-run approval denied by {by}: {why}"),
        ),
        _ => (
            RunStatus::Cancelled,
            format!("pre-run approval was not given: {why}"),
        ),
    };
    let run = hold(tx, run_id, status, &reason, &approval.approval_id, now).await?;
    if status == RunStatus::Running {
        tx.insert_event(now, &Event::RunResumed { run }).await?;
    }
    Ok(())
}

/// The hook `settle` calls for every settled approval: a pre-run frees or cancels its run, a
/// fleet approval moves its campaign.
pub async fn after_settled(
    tx: &mut dyn Tx,
    approval: &Approval,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    match &approval.evidence.detail {
        EvidenceDetail::PreRun(_) => pre_run_settled(tx, approval, now).await,
        EvidenceDetail::Fleet(packet) => {
            super::campaign::fleet_settled(tx, approval, packet, now).await
        }
        _ => Ok(()),
    }
}
