//! Small closed vocabularies of the approval domain. Every one serialises as snake_case
//! (or the seed's spelling where the seed fixes it) and is exhaustive: no free-form strings.

use serde::{Deserialize, Serialize};

/// The policy's verdict for one action.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Clearly safe: allowed at once, audited.
    Auto,
    /// A person decides.
    Ask,
    /// A person holding `required_role` decides.
    Escalate,
    /// Never allowed and never offered for approval.
    Block,
}

impl Decision {
    /// How strict the decision is; the riskiest part of a compound command decides.
    pub fn severity(self) -> u8 {
        match self {
            Decision::Auto => 0,
            Decision::Ask => 1,
            Decision::Escalate => 2,
            Decision::Block => 3,
        }
    }

    /// Whether a person is asked (ask or escalate).
    pub fn needs_person(self) -> bool {
        matches!(self, Decision::Ask | Decision::Escalate)
    }
}

/// Risk level shown to the person and used for notification urgency.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

impl RiskLevel {
    /// The wire name (`low` … `critical`).
    pub fn as_str(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
            RiskLevel::Critical => "critical",
        }
    }
}

/// What kind of thing the agent wants to do.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Shell,
    FileRead,
    FileWrite,
    FileDelete,
    Network,
    Credential,
    Pr,
    /// A tool of an MCP server (`mcp__server__tool`).
    Mcp,
    /// Anything else an agent may name; always asked.
    Other,
}

/// Who submitted the request (the seed's `requestedBy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RequestedBy {
    Agent,
    ToolRuntime,
    Verifier,
    PrOrchestrator,
}

/// How far the policy trusts the repository the action runs in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RepoTrust {
    Trusted,
    #[default]
    Unknown,
    Untrusted,
}

/// The mode the agent's run is in (the seed's `runMode`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    Analysis,
    #[default]
    Draft,
    AutonomousPr,
    Fleet,
}

/// Approver roles; an escalation names the one it needs.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    TaskAuthor,
    RepoMaintainer,
    SecurityReviewer,
    PlatformAdmin,
}

/// What an approval grants (the seed's `scopeKind`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    /// Exactly this action (bound to its hash).
    Once,
    /// Every action of the same command profile, within the grant's constraints.
    CommandProfile,
    /// Paths matching a glob on canonical paths.
    PathPattern,
    /// Equivalent actions (same batch key) for the rest of this run.
    Run,
    TaskType,
    Repo,
    Org,
    /// An exception: past a policy finding, for one repository, up to the policy's
    /// `max_exception_lifetime` (a security reviewer approves it).
    Exception,
}

/// What happens to an approval nobody answered (the seed's `fallbackOnTimeout`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FallbackOnTimeout {
    #[default]
    Deny,
    Pause,
    CancelRun,
}

/// What kind of decision an approval asks for (the seed's section 9). Every approval has one;
/// it is its evidence's `type`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalType {
    /// One tool call: a command, a file read or write, a fetch, an MCP call.
    #[default]
    Tool,
    /// A code change that needs review before it counts (CI, security, dependency files, wide
    /// or test-deleting edits).
    Diff,
    /// Publishing: a pull request or a push of a branch to a remote.
    Pr,
    /// Use of a credential capability (never the secret itself).
    Credential,
    /// A run that must be approved before it starts acting.
    PreRun,
    /// Going past a policy finding further than a normal grant may.
    Exception,
    /// A fleet campaign or one of its stages.
    Fleet,
}

impl ApprovalType {
    /// The wire name (`tool`, `pre_run`…).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalType::Tool => "tool",
            ApprovalType::Diff => "diff",
            ApprovalType::Pr => "pr",
            ApprovalType::Credential => "credential",
            ApprovalType::PreRun => "pre_run",
            ApprovalType::Exception => "exception",
            ApprovalType::Fleet => "fleet",
        }
    }
}

/// The seed's path risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathRisk {
    Safe,
    Generated,
    Ci,
    Security,
    Sensitive,
}

/// The seed's command risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandRisk {
    Readonly,
    Build,
    Mutation,
    Destructive,
}

/// The seed's network risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkRisk {
    None,
    Allowlisted,
    Arbitrary,
}

/// The seed's credential risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialRisk {
    None,
    Readonly,
    Write,
    Cloud,
}

/// The seed's diff risk.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum DiffRisk {
    #[default]
    Small,
    Medium,
    Large,
    Wide,
}
