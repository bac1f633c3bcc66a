//! Fleet campaigns over the store: create (its definition's `fleet` approval), propose a
//! stage (the next batch's approval), report outcomes (the threshold stops it), resume. The
//! rules are core's (`assent_core::campaign`); each operation is one transaction.

use assent_core::campaign::{
    campaign_audit, definition_approval, parse_campaign, stage_approval, Campaign, CampaignRefusal,
    FleetAsk, OutcomeResult,
};
use assent_core::{ApprovalEvidence, AuditDecision, FleetPacket};
use assent_protocol::{Approval, CampaignAnswer, Event, Resolution, RunState, RunStatus};
use chrono::{DateTime, Utc};

use super::asked::{prompt_submission, record_prompt, Asked, StartError, StartGround};
use crate::records::new_id;
use crate::store::rows::HoldRow;
use crate::store::{Actor, Store, StoreError, Tx};

impl From<CampaignRefusal> for StartError {
    fn from(refusal: CampaignRefusal) -> Self {
        match refusal {
            CampaignRefusal::Conflict(message) => StoreError::Conflict(message).into(),
            CampaignRefusal::BadRequest(message) => StartError::BadRequest(message),
        }
    }
}

/// Checks the campaign file `text` and opens its definition's approval; nothing is created
/// when the file has an error (it names the line and the field).
pub async fn create(
    store: &dyn Store,
    text: &str,
    ground: StartGround<'_>,
) -> Result<CampaignAnswer, StartError> {
    let definition = parse_campaign(text)
        .map_err(|err| StartError::BadRequest(format!("campaign file: {err}")))?;
    let mut tx = store.begin().await?;
    if tx.campaign(&definition.name).await?.is_some() {
        return Err(
            StoreError::Conflict(format!("a campaign named {} exists", definition.name)).into(),
        );
    }
    let mut campaign = Campaign::propose(definition, String::new(), ground.requester, ground.now);
    let approval_id = open(
        tx.as_mut(),
        definition_approval(&campaign),
        &campaign,
        ground,
    )
    .await?;
    campaign.approval_id = approval_id.clone();
    tx.insert_campaign(&campaign).await?;
    announce(tx.as_mut(), &campaign, false, ground.now).await?;
    tx.commit().await?;
    Ok(CampaignAnswer {
        campaign,
        approval_id: Some(approval_id),
    })
}

/// Proposes the next `next` repositories as a stage, with its approval.
pub async fn stage(
    store: &dyn Store,
    campaign_id: &str,
    next: u32,
    ground: StartGround<'_>,
) -> Result<CampaignAnswer, StartError> {
    let mut tx = store.begin().await?;
    let mut campaign = load(tx.as_mut(), campaign_id).await?;
    let batch = campaign.next_batch(next)?;
    let number = u32::try_from(campaign.stages.len())
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    let ask = stage_approval(&campaign, number, batch.clone());
    let approval_id = open(tx.as_mut(), ask, &campaign, ground).await?;
    campaign.add_stage(batch, approval_id.clone(), ground.now);
    tx.update_campaign(&campaign).await?;
    announce(tx.as_mut(), &campaign, false, ground.now).await?;
    tx.commit().await?;
    Ok(CampaignAnswer {
        campaign,
        approval_id: Some(approval_id),
    })
}

/// Records a repository's outcome; reaching the failure threshold stops the campaign
/// (audited, announced as `campaign.stopped`).
pub async fn report(
    store: &dyn Store,
    campaign_id: &str,
    (repo, result): (&str, OutcomeResult),
    by: Actor<'_>,
    now: DateTime<Utc>,
) -> Result<CampaignAnswer, StartError> {
    let mut tx = store.begin().await?;
    let mut campaign = load(tx.as_mut(), campaign_id).await?;
    let reported = campaign.report(repo, result, by.name, now)?;
    tx.update_campaign(&campaign).await?;
    let what = match result {
        OutcomeResult::Passed => format!("{repo} passed"),
        OutcomeResult::Failed => format!("{repo} failed"),
    };
    let mut audits = vec![campaign_audit(
        new_id(),
        &campaign,
        AuditDecision::Reported,
        (by.name, by.role),
        (Some(repo), &what),
        now,
    )];
    if reported.stopped {
        let mut why = campaign.stop_reason.clone().unwrap_or_default();
        let paused = pause_runs(tx.as_mut(), &campaign, &why, now).await?;
        if !paused.is_empty() {
            why = format!("{why}; paused its runs {}", paused.join(", "));
        }
        audits.push(campaign_audit(
            new_id(),
            &campaign,
            AuditDecision::Stopped,
            ("threshold", None),
            (Some(repo), &why),
            now,
        ));
    }
    tx.insert_audits(&audits).await?;
    announce(tx.as_mut(), &campaign, reported.stopped, now).await?;
    tx.commit().await?;
    Ok(CampaignAnswer {
        campaign,
        approval_id: None,
    })
}

/// A person lets a stopped campaign go on.
pub async fn resume(
    store: &dyn Store,
    campaign_id: &str,
    by: Actor<'_>,
    now: DateTime<Utc>,
) -> Result<CampaignAnswer, StartError> {
    let mut tx = store.begin().await?;
    let mut campaign = load(tx.as_mut(), campaign_id).await?;
    let why = campaign.stop_reason.clone().unwrap_or_default();
    campaign.resume(now)?;
    tx.update_campaign(&campaign).await?;
    let released = release_runs(tx.as_mut(), &campaign, by.name, now).await?;
    let mut reason = format!("resumed after: {why}");
    if !released.is_empty() {
        reason = format!("{reason}; its runs {} go on", released.join(", "));
    }
    let audit = campaign_audit(
        new_id(),
        &campaign,
        AuditDecision::Resumed,
        (by.name, by.role),
        (None, &reason),
        now,
    );
    tx.insert_audits(&[audit]).await?;
    announce(tx.as_mut(), &campaign, false, now).await?;
    tx.commit().await?;
    Ok(CampaignAnswer {
        campaign,
        approval_id: None,
    })
}

/// A stopped campaign pauses its started runs: what the policy allows on its own (reads,
/// tests) goes on, everything else is blocked with the reason until a person resumes the
/// campaign. The ids of the runs paused.
async fn pause_runs(
    tx: &mut dyn Tx,
    campaign: &Campaign,
    why: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let id = campaign.campaign_id.as_str();
    let reason = format!("campaign {id} stopped: {why}; a person resumes the campaign to go on");
    let moved = (RunStatus::Running, RunStatus::Paused);
    move_runs(tx, campaign, moved, &reason, |_| true, now).await
}

/// The campaign's resume lets the runs its stop paused go on (a run paused by an unanswered
/// prompt of its own names that prompt, not the campaign, and stays paused); the ids released.
async fn release_runs(
    tx: &mut dyn Tx,
    campaign: &Campaign,
    by: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let reason = format!("campaign {} resumed by {by}", campaign.campaign_id);
    let paused_by_stop = |run: &RunState| run.approval_id.as_ref() == Some(&campaign.approval_id);
    let moved = (RunStatus::Paused, RunStatus::Running);
    move_runs(tx, campaign, moved, &reason, paused_by_stop, now).await
}

/// Moves the campaign's runs in `from` that `which` picks to `to`, with `reason`, each
/// announced (`run.paused` or `run.resumed`); the ids moved.
async fn move_runs(
    tx: &mut dyn Tx,
    campaign: &Campaign,
    (from, to): (RunStatus, RunStatus),
    reason: &str,
    which: impl Fn(&RunState) -> bool,
    now: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let id = campaign.campaign_id.as_str();
    let mut moved = Vec::new();
    for run in tx.campaign_runs(id, from).await? {
        if !which(&run) {
            continue;
        }
        let run = tx
            .hold_run(HoldRow {
                run_id: &run.run_id,
                status: to,
                reason,
                approval_id: &campaign.approval_id,
                now,
                campaign: Some(id),
            })
            .await?;
        moved.push(run.run_id.clone());
        let event = if to == RunStatus::Paused {
            Event::RunPaused { run }
        } else {
            Event::RunResumed { run }
        };
        tx.insert_event(now, &event).await?;
    }
    Ok(moved)
}

/// Every campaign (read in a transaction that is dropped: it writes nothing).
pub async fn list(store: &dyn Store) -> Result<Vec<Campaign>, StoreError> {
    let mut tx = store.begin().await?;
    tx.campaigns().await
}

/// One campaign.
pub async fn get(store: &dyn Store, campaign_id: &str) -> Result<Campaign, StartError> {
    let mut tx = store.begin().await?;
    load(tx.as_mut(), campaign_id).await
}

/// A fleet approval settled: the definition makes the campaign active (or denied), a stage
/// becomes approved (or its repositories return to the pool).
pub async fn fleet_settled(
    tx: &mut dyn Tx,
    approval: &Approval,
    packet: &FleetPacket,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(mut campaign) = tx.campaign(&packet.campaign).await? else {
        return Ok(());
    };
    let approved = approval.resolution == Some(Resolution::Approved);
    match packet.stage {
        None => {
            let reason = approval
                .decision_reason
                .as_deref()
                .unwrap_or("no reason given");
            campaign.definition_settled(approved, reason, now);
        }
        Some(number) => campaign.stage_settled(number, approved, now),
    }
    tx.update_campaign(&campaign).await?;
    announce(tx, &campaign, false, now).await
}

async fn load(tx: &mut dyn Tx, campaign_id: &str) -> Result<Campaign, StartError> {
    tx.campaign(campaign_id)
        .await?
        .ok_or_else(|| StartError::NotFound(format!("no campaign {campaign_id}")))
}

/// Opens a fleet approval (the policy's `[fleet]` role and number of people); its id.
async fn open(
    tx: &mut dyn Tx,
    ask: FleetAsk,
    campaign: &Campaign,
    ground: StartGround<'_>,
) -> Result<String, StartError> {
    let fleet = &ground.policy.fleet;
    let ApprovalEvidence {
        policy_findings, ..
    } = ask.evidence.clone();
    let asked = Asked {
        request: ask.request,
        evidence: ask.evidence,
        risk: campaign.definition.risk,
        role: fleet.required_role,
        required_approvals: fleet.required_approvals,
        rule: "fleet",
        reasons: policy_findings,
    };
    let s = prompt_submission(asked, ground)?;
    let answer = record_prompt(tx, &s).await?;
    answer.approval_id.ok_or_else(|| {
        StoreError::Conflict(format!(
            "the fleet approval was answered at once ({:?}): {}",
            answer.status,
            answer.facts.reasons.join("; ")
        ))
        .into()
    })
}

async fn announce(
    tx: &mut dyn Tx,
    campaign: &Campaign,
    stopped: bool,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let campaign = campaign.clone();
    let event = if stopped {
        Event::CampaignStopped { campaign }
    } else {
        Event::CampaignUpdated { campaign }
    };
    tx.insert_event(now, &event).await
}
