//! Pre-run approval (the seed's section 10): whether a run must be approved before it acts,
//! the packet a person decides from, and the request that carries it. Also `[fleet]`, the
//! approvals a fleet campaign needs. Both are policy sections (`[pre_run]`, `[fleet]`).

use serde::{Deserialize, Serialize};

use crate::evidence::{ApprovalEvidence, EvidenceDetail, PreRunPacket};
use crate::request::{Action, ActionContext, ActionRequest};
use crate::types::{ActionKind, RequestedBy, RiskLevel, Role, RunMode};

/// The tool name of a run's start request (never a real tool).
pub const RUN_START_TOOL: &str = "assent.run_start";
/// The reason every action of a run waiting for its pre-run approval is blocked with.
pub const AWAITING: &str = "run awaiting pre-run approval";

/// `[pre_run]` of the policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PreRunPolicy {
    /// A run whose task risk is at least this asks first (default `high`).
    pub from_risk: RiskLevel,
    /// Globs on the task (case-insensitive): a matching task always asks first
    /// (`"*deploy*"`, `"*auth*"`).
    pub require_for_tasks: Vec<String>,
    /// Repositories (globs on their names) the policy does not trust: a run touching one asks.
    pub untrusted_repos: Vec<String>,
    /// Who approves a run's start (default `platform_admin`).
    pub required_role: Role,
}

impl Default for PreRunPolicy {
    fn default() -> Self {
        PreRunPolicy {
            from_risk: RiskLevel::High,
            require_for_tasks: Vec::new(),
            untrusted_repos: Vec::new(),
            required_role: Role::PlatformAdmin,
        }
    }
}

impl PreRunPolicy {
    /// Whether it is the default (then it is left out of the policy's TOML and version).
    pub fn is_default(&self) -> bool {
        *self == PreRunPolicy::default()
    }

    /// The section, with its globs checked; the message names the bad one.
    pub fn checked(self) -> Result<PreRunPolicy, String> {
        crate::policy::glob::glob_set(&self.require_for_tasks, false)
            .and_then(|_| crate::policy::glob::glob_set(&self.untrusted_repos, false))
            .map_err(|(_, message)| format!("pre_run: {message}"))?;
        Ok(self)
    }
}

/// `[fleet]` of the policy: who approves a fleet campaign's definition and stages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FleetPolicy {
    /// Distinct people needed (default 2).
    pub required_approvals: u32,
    /// The role they hold (default `platform_admin`).
    pub required_role: Role,
}

impl Default for FleetPolicy {
    fn default() -> Self {
        FleetPolicy {
            required_approvals: 2,
            required_role: Role::PlatformAdmin,
        }
    }
}

impl FleetPolicy {
    pub fn is_default(&self) -> bool {
        *self == FleetPolicy::default()
    }

    pub fn checked(self) -> Result<FleetPolicy, String> {
        if !(1..=10).contains(&self.required_approvals) {
            return Err(format!(
                "fleet.required_approvals must be 1..=10, got {}",
                self.required_approvals
            ));
        }
        Ok(self)
    }
}

/// What an agent says about a run before it starts (`assent run start`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPlan {
    pub run_id: String,
    pub task: String,
    pub risk: RiskLevel,
    pub repos: Vec<String>,
    pub expected_actions: Vec<String>,
    pub credentials: Vec<String>,
    pub remote_mutation: Option<String>,
    /// The fleet campaign the run belongs to (its mode is then `fleet`).
    pub campaign: Option<String>,
}

/// Why the policy asks before `plan` starts; empty when it does not.
pub fn triggers(policy: &PreRunPolicy, plan: &RunPlan) -> Vec<String> {
    let mut why = Vec::new();
    if plan.risk >= policy.from_risk {
        why.push(format!("task risk is {}", risk_name(plan.risk)));
    }
    if let Some(campaign) = &plan.campaign {
        why.push(format!("run mode is fleet (campaign {campaign})"));
    }
    if let Ok(untrusted) = crate::policy::glob::glob_set(&policy.untrusted_repos, false) {
        for repo in plan.repos.iter().filter(|r| untrusted.is_match(r.as_str())) {
            why.push(format!("repository {repo} is untrusted"));
        }
    }
    let task = plan.task.to_lowercase();
    for pattern in &policy.require_for_tasks {
        let lower = [pattern.to_lowercase()];
        if crate::policy::glob::glob_set(&lower, false).is_ok_and(|set| set.is_match(task.as_str()))
        {
            why.push(format!("the policy asks before tasks like {pattern:?}"));
        }
    }
    why
}

/// The request that carries a run's start to the workflow, and the evidence it shows.
pub fn start_request(plan: &RunPlan) -> ActionRequest {
    ActionRequest {
        run_id: plan.run_id.clone(),
        task_id: plan.run_id.clone(),
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
            tool: Some(RUN_START_TOOL.to_owned()),
        },
        context: ActionContext {
            task_risk: Some(plan.risk),
            run_mode: plan.campaign.as_ref().map(|_| RunMode::Fleet),
            repo: plan.repos.first().cloned(),
            ..ActionContext::default()
        },
        reason: plan.task.clone(),
    }
}

/// The evidence of a run's pre-run approval (secrets in the agent's text masked, as in every
/// evidence: [`crate::evidence::mask::masked`]).
pub fn evidence(plan: &RunPlan, triggers: Vec<String>, role: Role) -> ApprovalEvidence {
    let packet = PreRunPacket {
        task: plan.task.clone(),
        task_risk: plan.risk,
        repos: plan.repos.clone(),
        expected_actions: plan.expected_actions.clone(),
        expected_credentials: plan.credentials.clone(),
        remote_mutation: plan.remote_mutation.clone(),
        required_role: Some(role),
        triggers: triggers.clone(),
        campaign: plan.campaign.clone(),
    };
    crate::evidence::mask::masked(ApprovalEvidence {
        summary: summary(plan),
        cwd: "/".to_owned(),
        credentials: (!packet.expected_credentials.is_empty())
            .then(|| packet.expected_credentials.join(", ")),
        mutation: packet.remote_mutation.clone(),
        policy_findings: triggers,
        detail: EvidenceDetail::PreRun(packet),
        ..ApprovalEvidence::default()
    })
}

/// One line for a notification: "Start run r1: Upgrade Spring Boot (high, 12 repos)".
pub fn summary(plan: &RunPlan) -> String {
    let repos = match plan.repos.len() {
        0 => String::new(),
        1 => ", 1 repo".to_owned(),
        n => format!(", {n} repos"),
    };
    let task: String = crate::mask::mask_secrets(&plan.task)
        .chars()
        .filter(|c| !c.is_control())
        .take(80)
        .collect();
    format!(
        "Start run {}: {task} ({}{repos})",
        plan.run_id,
        risk_name(plan.risk)
    )
}

fn risk_name(risk: RiskLevel) -> &'static str {
    match risk {
        RiskLevel::Low => "low",
        RiskLevel::Medium => "medium",
        RiskLevel::High => "high",
        RiskLevel::Critical => "critical",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(risk: RiskLevel) -> RunPlan {
        RunPlan {
            run_id: "r1".to_owned(),
            task: "Upgrade Spring Boot".to_owned(),
            risk,
            repos: vec!["shop".to_owned(), "vendor-fork".to_owned()],
            expected_actions: Vec::new(),
            credentials: Vec::new(),
            remote_mutation: None,
            campaign: None,
        }
    }

    #[test]
    fn the_policy_names_why_a_run_must_wait() {
        let policy = PreRunPolicy::default();
        assert!(
            triggers(&policy, &plan(RiskLevel::Medium)).is_empty(),
            "a medium-risk task in known repos starts without asking"
        );
        assert_eq!(
            triggers(&policy, &plan(RiskLevel::High)),
            vec!["task risk is high".to_owned()],
            "a high-risk task asks first, saying so"
        );
        let listed = PreRunPolicy {
            require_for_tasks: vec!["*spring*".to_owned()],
            untrusted_repos: vec!["vendor-*".to_owned()],
            ..PreRunPolicy::default()
        };
        let why = triggers(&listed, &plan(RiskLevel::Low));
        assert_eq!(
            why,
            vec![
                "repository vendor-fork is untrusted".to_owned(),
                "the policy asks before tasks like \"*spring*\"".to_owned()
            ],
            "an untrusted repo and a listed task each ask, case-insensitively"
        );
        let mut fleet = plan(RiskLevel::Low);
        fleet.campaign = Some("java21".to_owned());
        assert_eq!(
            triggers(&policy, &fleet),
            vec!["run mode is fleet (campaign java21)".to_owned()],
            "a run of a fleet campaign asks first"
        );
    }

    #[test]
    fn the_evidence_reads_back_as_written() {
        let mut asked = plan(RiskLevel::High);
        asked.credentials = vec!["Git read access".to_owned()];
        let evidence = evidence(
            &asked,
            vec!["task risk is high".to_owned()],
            Role::PlatformAdmin,
        );
        let json = serde_json::to_value(&evidence).unwrap_or_default();
        let back: Result<crate::ApprovalEvidence, _> = serde_json::from_value(json);
        assert_eq!(
            back.ok(),
            Some(evidence),
            "a packet field must not collide with a common evidence field"
        );
    }

    #[test]
    fn the_summary_fits_one_line() {
        let mut long = plan(RiskLevel::Critical);
        long.task = format!("line one\nline two {}", "x".repeat(300));
        let line = summary(&long);
        assert!(
            !line.contains('\n') && line.chars().count() < 120,
            "a notification summary is one short line: {line}"
        );
    }
}
