use assent_core::workflow::{MemberFacts, PromptFacts, Verdict};
use assent_core::{
    ActionKind, ApprovalEvidence, ApprovalStatus, ApprovalType, FallbackOnTimeout, RequestedBy,
    RiskDecision, RiskLevel, Role, ScopeKind,
};
use assent_core::{ApprovalGrant, AuditDecision};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::grant::Grant;
use crate::identity::ApprovalVote;

/// What the model reviewer did with a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalReview {
    pub model: String,
    /// `approve` or `ask_person` (the reviewer never denies); absent when it gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The risk the reviewer saw; absent when it gave no verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskLevel>,
    /// Its rationale; or why the call failed; or why it may not decide this prompt.
    pub rationale: String,
    pub state: ReviewState,
    /// The reviewer's last 3 calls or more all failed (until one succeeds): desks say
    /// "reviewer unavailable: asking you".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reviewer_unavailable: bool,
}

/// Where the reviewer stands on a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    /// The reviewer is being asked, and may approve it alone: desks hold its notification.
    Reviewing,
    /// The reviewer approved it alone (eligible, `mode = "decide"`).
    Approved,
    /// Its opinion is shown; the person decides.
    Advised,
    /// The call failed (timeout, error, no valid verdict); the person decides.
    Failed,
    /// The policy keeps this prompt with a person; `rationale` says why.
    NotEligible,
}

/// One prompt: a batch of equivalent requests a person decides at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Approval {
    pub approval_id: String,
    pub run_id: String,
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    pub requested_by: RequestedBy,
    pub action_kind: ActionKind,
    /// What kind of decision this is; always `evidence.type`.
    #[serde(default)]
    #[schema(required)]
    pub approval_type: ApprovalType,
    /// One of the nine approval states; `requested` is pending.
    pub status: ApprovalStatus,
    /// How it settled, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// The policy's decision (`ask` or `escalate`), its risk, reasons, rule, role, profile and
    /// offered scopes: flattened, each a field of the prompt.
    #[serde(flatten)]
    pub facts: RiskDecision,
    pub recommendation: Recommendation,
    pub evidence: ApprovalEvidence,
    pub batch_key: String,
    /// How many requests wait on this prompt.
    pub count: u32,
    pub members: Vec<ApprovalMember>,
    /// The agent's stated reason for the first request.
    pub reason: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub fallback_on_timeout: FallbackOnTimeout,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
    /// The role the deciding person acted in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_role: Option<Role>,
    /// The identity (agent, or person) whose requests wait on this prompt; it can never
    /// decide it.
    #[serde(default)]
    #[schema(required)]
    pub requester: String,
    /// How many distinct people must approve (the policy's `[approvals] required`).
    #[serde(default = "one")]
    #[schema(required)]
    pub required_approvals: u32,
    /// Who approved so far, while more are needed (and, once settled, everyone who did).
    #[serde(default)]
    #[schema(required)]
    pub approvals: Vec<ApprovalVote>,
    /// The approvals a person may take in one click (`{label, scope, expires_in_seconds}`),
    /// bounded by the policy's lifetimes: notification buttons and the window render these.
    #[serde(default)]
    #[schema(required)]
    pub quick_decisions: Vec<assent_core::QuickDecision>,
    /// Agents whose gates are waiting on this approval right now (they run it once approved);
    /// filled in by `GET /v1/approvals…`, 0 in events.
    #[serde(default)]
    #[schema(required)]
    pub agents_waiting: u32,
    /// When the last agent waiting on this prompt stopped (its gate gave up or ended), once
    /// nobody waited again for a moment; `None` while one waits or none ever did (on this
    /// replica). Approving still covers the agent's retry. Filled in like `agents_waiting`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_stopped_waiting_at: Option<DateTime<Utc>>,
    /// The riskiest prompt a person may approve in one act (the policy's `[desk] quick_up_to`,
    /// medium unless set): a riskier one gets no approve button in a notification and a
    /// confirmation step in the window. Filled in from the policy in force by
    /// `GET /v1/approvals…` and on `/v1/events`.
    #[serde(default = "medium")]
    #[schema(required)]
    pub quick_up_to: RiskLevel,
    /// The model reviewer's part in this prompt (`[reviewer]` in the policy), when one is
    /// configured: its opinion, its approval, its failure, or why it may not decide. Filled in
    /// by `GET /v1/approvals…` and on `/v1/events`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ApprovalReview>,
    /// Where a passkey confirms this prompt, when the policy's `[approvals] step_up` holds it
    /// (its risk is at or above the line, and it is pending): the web desk's page for it. A
    /// token, a session or the desktop's credential alone cannot approve it, so a desk offers
    /// no approve button and sends the person there. Filled in like `quick_up_to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_up_url: Option<String>,
    /// Who the prompt asked, and when it escalated (see the policy's `[routing]`); absent on
    /// prompts opened before the service recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<AskedSteps>,
    /// What the prompt asks, in words, made once for every desk ([`crate::words`]): the
    /// headline a notification asks, a typed packet's lines, a diff's flags. Filled in like
    /// `quick_up_to`.
    #[serde(default)]
    #[schema(required)]
    pub words: PromptWords,
}

/// What a prompt asks, in words (`Approval.words`), made once by the service for every desk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PromptWords {
    /// The action, as an order: "Install left-pad with npm", "Upload to s3://shop-prod-assets
    /// and delete every object there", "Force-push main (the default branch) to origin". The
    /// notification asks it; the window names a push with it.
    pub headline: String,
    /// A typed packet in short lines: the evidence's summary, then what changed ("files: …",
    /// "flags: …"), where a PR goes and how each of its diff approvals stands, an exception's
    /// command and reason. Empty for a tool prompt (its command says it), a capability, a run
    /// that asks before it starts and a fleet campaign.
    #[serde(default)]
    #[schema(required)]
    pub summary: Vec<String>,
    /// A diff's flags in words, in the packet's order ("CI workflow changed").
    #[serde(default)]
    #[schema(required)]
    pub flags: Vec<String>,
}

/// Who a prompt asked: its first step, and its escalation once it has escalated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AskedSteps {
    /// 1: the first people were asked; 2: it escalated to everyone holding its role.
    pub step: u8,
    /// Who the first step asked.
    pub people: Vec<String>,
    /// Why those: the people present, everyone because nobody was, or everyone because the
    /// policy does not route prompts.
    pub basis: assent_core::policy::routing::AskedBasis,
    /// When the first step asked.
    pub at: DateTime<Utc>,
    /// When it escalated (step 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalated_at: Option<DateTime<Utc>>,
    /// Who the escalation newly asked (everyone holding the role who was not asked first).
    #[serde(default)]
    #[schema(required)]
    pub escalated_to: Vec<String>,
}

impl AskedSteps {
    /// Everyone asked so far, first step and escalation.
    pub fn everyone_asked(&self) -> impl Iterator<Item = &String> {
        self.people.iter().chain(&self.escalated_to)
    }

    /// Whether `person` is asked at the step the prompt is at.
    pub fn asks(&self, person: &str) -> bool {
        self.everyone_asked().any(|name| name == person)
    }
}

impl Approval {
    /// Whether a person may approve this prompt in one act (see [`Approval::quick_up_to`]).
    pub fn one_act(&self) -> bool {
        self.facts.risk <= self.quick_up_to
    }

    /// The prompt as the core's audit records name it
    /// ([`assent_core::workflow::settlement_audit`] and the others), opened under
    /// `policy_version`.
    pub fn prompt_facts<'a>(&'a self, policy_version: &'a str) -> PromptFacts<'a> {
        PromptFacts {
            approval_id: &self.approval_id,
            requester: &self.requester,
            run_id: &self.run_id,
            action_kind: self.action_kind,
            offered_scopes: &self.facts.offered_scopes,
            repo: self.repo.as_deref(),
            evidence_summary: &self.evidence.summary,
            policy_version,
        }
    }

    /// How this settled prompt was decided, as its audit records say it: `decision`, with
    /// `reason`, issuing `granted` (if it did).
    pub fn verdict<'a>(
        &'a self,
        decision: AuditDecision,
        granted: Option<&'a ApprovalGrant>,
        reason: &'a str,
    ) -> Verdict<'a> {
        Verdict {
            decision,
            at: self.updated_at,
            approver: self.decided_by.as_deref(),
            approver_role: self.decided_role,
            reason,
            grant_id: self.grant_id.as_deref(),
            granted,
        }
    }
}

impl ApprovalMember {
    /// This member as the core's audit records name it.
    pub fn facts(&self) -> MemberFacts<'_> {
        MemberFacts {
            action_id: &self.action_id,
            task_id: &self.task_id,
            action_hash: &self.action_hash,
            command_line: self.command_line.as_deref(),
        }
    }
}

fn one() -> u32 {
    1
}

fn medium() -> RiskLevel {
    RiskLevel::Medium
}

/// One request waiting in a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalMember {
    pub action_id: String,
    pub action_hash: String,
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// How a settled approval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    Approved,
    Denied,
    /// Nobody answered before `expires_at`; `fallback_on_timeout` applied.
    TimedOut,
    /// Its run ended first.
    Cancelled,
}

/// What the policy recommends, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Recommendation {
    /// `approve` or `deny`.
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKind>,
    pub text: String,
}

/// `GET /v1/approvals`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalList {
    pub approvals: Vec<Approval>,
}

/// `POST /v1/approvals/{id}/decision`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "decision", rename_all = "snake_case", deny_unknown_fields)]
pub enum DecisionRequest {
    Approve {
        scope: ScopeKind,
        expires_in_seconds: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_uses: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// For `path_pattern`: the globs granted (default: the request's paths).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path_patterns: Option<Vec<String>>,
    },
    Deny {
        reason: String,
    },
}

/// The answer to a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DecisionResponse {
    pub approval: Approval,
    pub grant: Option<Grant>,
}
