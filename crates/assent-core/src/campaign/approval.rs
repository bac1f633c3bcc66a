//! The `fleet` approvals of a campaign: its definition, then each stage's batch. Each is
//! carried by a request of its own (never a real tool) so the service's one workflow opens,
//! decides and audits it like any prompt.

use crate::evidence::{ApprovalEvidence, EvidenceDetail, FleetPacket};
use crate::request::{Action, ActionContext, ActionRequest};
use crate::types::{ActionKind, RequestedBy, RunMode};

use super::state::Campaign;

/// The tool name of a campaign's approval requests.
pub const CAMPAIGN_TOOL: &str = "assent.campaign";

/// What opens a `fleet` approval: the request and the evidence shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetAsk {
    pub request: ActionRequest,
    pub evidence: ApprovalEvidence,
}

/// The approval of a campaign's definition.
pub fn definition_approval(campaign: &Campaign) -> FleetAsk {
    let d = &campaign.definition;
    let targets = d
        .target_repos
        .iter()
        .filter(|repo| !d.excluded_repos.contains(repo))
        .count();
    let summary = format!(
        "Fleet campaign {}: {targets} repositories, stop after {} failures",
        campaign.campaign_id, d.failure_threshold
    );
    ask(campaign, None, Vec::new(), summary)
}

/// The approval of stage `number` with `batch`.
pub fn stage_approval(campaign: &Campaign, number: u32, batch: Vec<String>) -> FleetAsk {
    let (passed, failed) = campaign.tally();
    let summary = format!(
        "Fleet campaign {} stage {number}: {} repositories ({passed} passed, {failed} failed so far)",
        campaign.campaign_id,
        batch.len()
    );
    ask(campaign, Some(number), batch, summary)
}

fn ask(campaign: &Campaign, stage: Option<u32>, batch: Vec<String>, summary: String) -> FleetAsk {
    let d = &campaign.definition;
    let (passed, failed) = campaign.tally();
    // The repositories it will change: an excluded one is listed under excluded only.
    let targets: Vec<String> = d
        .target_repos
        .iter()
        .filter(|repo| !d.excluded_repos.contains(repo))
        .cloned()
        .collect();
    let packet = FleetPacket {
        campaign: campaign.campaign_id.clone(),
        stage,
        target_repos: targets,
        batch,
        selection_criteria: d.selection_criteria.clone(),
        excluded_repos: d.excluded_repos.clone(),
        prompt_contract: d.prompt_contract.clone(),
        risk: d.risk,
        verifier_profile: d.verifier_profile.clone(),
        stop_policy: format!(
            "stop after {} failed repositories; a person resumes",
            d.failure_threshold
        ),
        failure_threshold: d.failure_threshold,
        sample_diff: d.sample_diff.clone(),
        expected_pr_body: d.expected_pr_body.clone(),
        cost_estimate: d.cost_estimate.clone(),
        owner_notification: d.owner_notification.clone(),
        passed,
        failed,
    };
    // Each stage is a run of its own, so a stage's prompt never joins another's.
    let run_id = match stage {
        None => format!("campaign:{}", campaign.campaign_id),
        Some(n) => format!("campaign:{}:stage:{n}", campaign.campaign_id),
    };
    let request = ActionRequest {
        run_id: run_id.clone(),
        task_id: run_id,
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Other,
            command: None,
            argv: None,
            cwd: "/".to_owned(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: None,
            tool: Some(CAMPAIGN_TOOL.to_owned()),
        },
        context: ActionContext {
            task_risk: Some(d.risk),
            run_mode: Some(RunMode::Fleet),
            ..ActionContext::default()
        },
        reason: summary.clone(),
    };
    // Masked like every evidence: the author's text may carry a token.
    let evidence = crate::evidence::mask::masked(ApprovalEvidence {
        summary,
        cwd: "/".to_owned(),
        // The repositories it will change, as the title counts them (an excluded one is not).
        policy_findings: vec![format!(
            "a fleet change of {} repositories needs staged approval",
            d.target_repos
                .iter()
                .filter(|repo| !d.excluded_repos.contains(repo))
                .count()
        )],
        detail: EvidenceDetail::Fleet(packet),
        ..ApprovalEvidence::default()
    });
    FleetAsk { request, evidence }
}

/// The audit record of something a person (or the threshold) did to a campaign: a report,
/// a stop, a resume. Its run is `campaign:<id>`, its subject the campaign and repository, its
/// requester the identity that proposed the campaign (whose approval it names).
pub fn campaign_audit(
    event_id: String,
    campaign: &Campaign,
    decision: crate::approval::audit::AuditDecision,
    by: (&str, Option<crate::types::Role>),
    (repo, reason): (Option<&str>, &str),
    now: chrono::DateTime<chrono::Utc>,
) -> crate::approval::audit::ApprovalAuditEvent {
    let run_id = format!("campaign:{}", campaign.campaign_id);
    crate::approval::audit::ApprovalAuditEvent {
        review: None,
        event_id,
        timestamp: now,
        approval_id: Some(campaign.approval_id.clone()),
        action_id: None,
        run_id: run_id.clone(),
        task_id: run_id,
        action_kind: ActionKind::Other,
        action_hash: String::new(),
        requested_scope: serde_json::json!("campaign"),
        decision,
        approver: Some(by.0.to_owned()),
        approver_role: by.1,
        requester: (!campaign.created_by.is_empty()).then(|| campaign.created_by.clone()),
        reason: reason.to_owned(),
        policy_version: String::new(),
        evidence_artifact_id: campaign.approval_id.clone(),
        grant_id: None,
        repo: repo.map(str::to_owned),
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(match repo {
            Some(repo) => format!("campaign {} · {repo}", campaign.campaign_id),
            None => format!("campaign {}", campaign.campaign_id),
        }),
    }
}
