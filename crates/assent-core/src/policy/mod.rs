//! The policy: compiled-in defaults extended by a user's TOML file.
//!
//! Lists in the user file (trusted repos, sensitive paths, block patterns, the network
//! allowlist, CI/security/dependency paths) extend the defaults; a profile with a default's
//! name replaces it, others are added, `disabled_profiles` removes some; scalars and
//! lifetimes override. `policy_version` is a hash of the effective policy.

pub(crate) mod defaults;
pub mod edit;
pub(crate) mod error;
pub mod file;
pub(crate) mod glob;
pub(crate) mod profile;
pub mod routing;
pub(crate) mod security_tooling;
pub mod suggest;

use chrono::Duration;
use globset::GlobSet;
use serde::{Deserialize, Serialize};

pub use crate::policy::error::PolicyError;
use crate::types::{FallbackOnTimeout, ScopeKind};

/// The effective policy. Build it with [`Policy::default`] or [`Policy::from_toml`].
#[derive(Debug, Clone, Serialize)]
pub struct Policy {
    /// Unanswered approvals time out after this many seconds.
    pub approval_timeout_seconds: i64,
    /// What an unanswered approval becomes.
    pub fallback_on_timeout: FallbackOnTimeout,
    /// `curl … | sh` and friends: block, or escalate to a platform admin.
    pub pipe_to_shell: PipeToShell,
    /// Repositories (globs on the repo path or name) whose verifier profiles run without asking.
    pub trusted_repos: Vec<String>,
    /// Secret files (globs; `~/` is any user's home: this one's, `/home/*/`, `/root/`,
    /// `/Users/*/`): never read, written or sent.
    pub sensitive_paths: Vec<String>,
    /// Exceptions to `sensitive_paths` (`.env.example`, public keys).
    pub not_sensitive: Vec<String>,
    /// CI configuration, relative to the repository root: ask a repo maintainer.
    pub ci_paths: Vec<String>,
    /// Security configuration: ask a security reviewer.
    pub security_paths: Vec<String>,
    /// Manifests, lockfiles and build configuration: ask.
    pub dependency_paths: Vec<String>,
    /// Extra commands to block: globs on a command's words joined by spaces.
    pub block_patterns: Vec<String>,
    /// Hosts (`*.example.com` allowed) reachable without asking.
    pub network_allowlist: Vec<String>,
    /// The longest lifetime of a grant, per scope, in seconds.
    pub max_grant_lifetime: Lifetimes,
    /// Command profiles: named classes of equivalent verifier commands.
    pub profiles: Vec<CommandProfile>,
    /// `[approvals]`: how many distinct people must approve.
    pub approvals: Approvals,
    /// How long a person's denial is remembered: an equivalent request of the same run is
    /// answered denied at once with their reason instead of asking again.
    pub deny_memory: DenyMemory,
    /// `[diff]`: when an edit is a diff approval (paths to review, width thresholds, test and
    /// lock files).
    #[serde(default)]
    pub diff: DiffPolicy,
    /// `[capabilities."name"]`: credential capabilities a person may approve (never the
    /// secret itself); see [`crate::capability`].
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub capabilities: std::collections::BTreeMap<String, crate::capability::Capability>,
    /// `[pre_run]` and `[fleet]`: which runs ask before they start, who approves campaigns.
    #[serde(
        default,
        skip_serializing_if = "crate::pre_run::PreRunPolicy::is_default"
    )]
    pub pre_run: crate::pre_run::PreRunPolicy,
    #[serde(
        default,
        skip_serializing_if = "crate::pre_run::FleetPolicy::is_default"
    )]
    pub fleet: crate::pre_run::FleetPolicy,
    /// The longest an exception lasts, in seconds (30 days unless the policy says otherwise).
    pub max_exception_lifetime: i64,
    /// `[exceptions]`: which rules an exception may go past (see [`crate::exception`]).
    pub exceptions: crate::exception::ExceptionPolicy,
    /// `[desk]`: how the desk asks a person (see [`DeskPolicy`]).
    #[serde(default, skip_serializing_if = "DeskPolicy::is_default")]
    pub desk: DeskPolicy,
    /// `[routing]`: who a prompt asks first and when it asks everyone (see [`routing`]).
    #[serde(default, skip_serializing_if = "routing::Routing::is_default")]
    pub routing: routing::Routing,
    /// `[reviewer]`: a model that reviews asks (off when absent; see [`crate::reviewer`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<crate::reviewer::ReviewerConfig>,
    #[serde(skip)]
    pub(crate) compiled: Compiled,
    #[serde(skip)]
    pub(crate) version: String,
}

/// `deny_memory`: `"run"` (the default: for the rest of the run), `"off"`, or a number of
/// seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DenyMemory {
    Named(DenyMemoryName),
    Seconds(i64),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DenyMemoryName {
    #[default]
    Run,
    Off,
}

impl Default for DenyMemory {
    fn default() -> Self {
        DenyMemory::Named(DenyMemoryName::Run)
    }
}

impl DenyMemory {
    /// Denials decided at or after this time are remembered (`None`: none are).
    pub fn remembered_since(
        self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<chrono::DateTime<chrono::Utc>> {
        match self {
            DenyMemory::Named(DenyMemoryName::Run) => {
                Some(chrono::DateTime::<chrono::Utc>::MIN_UTC)
            }
            DenyMemory::Named(DenyMemoryName::Off) => None,
            DenyMemory::Seconds(s) => Some(now - Duration::seconds(s)),
        }
    }
}

/// `[desk]` of the policy: where friction starts on the desk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeskPolicy {
    /// The riskiest prompt a person may approve in one act (a notification button, one key);
    /// riskier ones open in the window and need a confirmation naming what is granted.
    pub quick_up_to: crate::types::RiskLevel,
}

impl Default for DeskPolicy {
    fn default() -> Self {
        DeskPolicy {
            quick_up_to: crate::types::RiskLevel::Medium,
        }
    }
}

impl DeskPolicy {
    pub fn is_default(&self) -> bool {
        *self == DeskPolicy::default()
    }

    /// Whether a prompt of `risk` may be approved in one act.
    pub fn quick(&self, risk: crate::types::RiskLevel) -> bool {
        risk <= self.quick_up_to
    }
}

/// `[approvals]` of the policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approvals {
    /// Distinct people needed, keyed by a role (`platform_admin`) or a rule name; an approval
    /// needs the largest count that applies, 1 when none does.
    #[serde(default)]
    pub required: std::collections::BTreeMap<String, u32>,
    /// `step_up = "high"`: approving anything at or above this risk needs a passkey assertion
    /// made for that approval (off when absent). Denying never does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_up: Option<crate::types::RiskLevel>,
}

impl Approvals {
    /// Whether approving a prompt of `risk` needs a passkey made for it (`step_up`): the one
    /// rule the decision, the desks' buttons and the push's actions all follow.
    pub fn step_up_holds(&self, risk: crate::types::RiskLevel) -> bool {
        self.step_up.is_some_and(|level| risk >= level)
    }
}

/// `[diff]` of the policy: which edits need a diff review besides CI, security and dependency
/// files (see [`crate::evidence::DiffFlag`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffPolicy {
    /// More files than this in one change is a wide diff.
    pub max_files: u32,
    /// More changed lines (added + removed) than this in one change is a wide diff.
    pub max_lines: u32,
    /// Globs (relative to the repository root) whose every change is reviewed.
    pub review_paths: Vec<String>,
    /// Test files: deleting one, or taking tests or assertions out of one, is reviewed.
    pub test_paths: Vec<String>,
    /// Lock files (flagged `lockfile_changed`, apart from manifests).
    pub lock_paths: Vec<String>,
}

/// What the policy does with a download piped into a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PipeToShell {
    #[default]
    Block,
    Escalate,
}

/// A named class of equivalent commands with bounded effects (e.g. `maven-test`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandProfile {
    pub name: String,
    /// Program names as written (`cargo`, `./mvnw`).
    pub programs: Vec<String>,
    /// Subcommands (space-separated words) the first positional arguments must start with;
    /// empty means any arguments. With `goals`, every positional must be one of them
    /// (`""` allows none at all).
    #[serde(default)]
    pub subcommands: Vec<String>,
    #[serde(default)]
    pub goals: bool,
    #[serde(default = "none_text")]
    pub network: String,
    #[serde(default = "none_text")]
    pub mutation: String,
    #[serde(default = "none_text")]
    pub credentials: String,
    /// Reordering stand-alone flags (`--release --workspace`) is the same action.
    #[serde(default)]
    pub unordered_flags: bool,
    /// Auto even in repositories the policy does not trust (formatters).
    #[serde(default)]
    pub always_auto: bool,
}

fn none_text() -> String {
    "none".to_owned()
}

/// Longest grant lifetimes in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lifetimes {
    pub once: i64,
    pub run: i64,
    pub command_profile: i64,
    pub path_pattern: i64,
    pub task_type: i64,
    pub repo: i64,
    pub org: i64,
}

impl Default for Lifetimes {
    fn default() -> Self {
        const HOUR: i64 = 3600;
        Lifetimes {
            once: HOUR,
            run: 8 * HOUR,
            command_profile: 8 * HOUR,
            path_pattern: 8 * HOUR,
            task_type: 7 * 24 * HOUR,
            repo: 7 * 24 * HOUR,
            org: 7 * 24 * HOUR,
        }
    }
}

/// The glob sets the policy matches with.
#[derive(Debug, Clone, Default)]
pub(crate) struct Compiled {
    pub sensitive: GlobSet,
    pub not_sensitive: GlobSet,
    pub ci: GlobSet,
    pub security: GlobSet,
    pub dependency: GlobSet,
    pub trusted: GlobSet,
    pub block: GlobSet,
    /// [`crate::policy::security_tooling::TOOLING`]'s globs, in its order.
    pub tooling: GlobSet,
    /// `[diff]`'s review, test and lock file globs.
    pub review: GlobSet,
    pub tests: GlobSet,
    pub locks: GlobSet,
}

impl PartialEq for Policy {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

impl Eq for Policy {}

impl Policy {
    /// Hash of the effective policy; grants made under another version never cover.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// How many distinct people must approve a prompt needing `role` (if any) opened by
    /// `rule`: the largest count the policy's `[approvals] required` gives either, at least 1.
    pub fn approvals_required(&self, role: Option<crate::types::Role>, rule: &str) -> u32 {
        let required = &self.approvals.required;
        let by_role = role.and_then(|r| required.get(crate::approval::authority::role_name(r)));
        let by_rule = required.get(rule);
        by_role
            .into_iter()
            .chain(by_rule)
            .copied()
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// The security tooling `rel` (relative to a repository root) configures.
    pub(crate) fn tooling(&self, rel: &str) -> Option<crate::policy::security_tooling::Tooling> {
        let first = *self.compiled.tooling.matches(rel).first()?;
        crate::policy::security_tooling::TOOLING
            .get(first)
            .map(|(_, tool)| *tool)
    }

    /// The longest lifetime a grant of `scope` may have.
    pub fn max_lifetime(&self, scope: ScopeKind) -> Duration {
        let l = &self.max_grant_lifetime;
        Duration::seconds(match scope {
            ScopeKind::Once => l.once,
            ScopeKind::Run => l.run,
            ScopeKind::CommandProfile => l.command_profile,
            ScopeKind::PathPattern => l.path_pattern,
            ScopeKind::TaskType => l.task_type,
            ScopeKind::Repo => l.repo,
            ScopeKind::Org => l.org,
            ScopeKind::Exception => self.max_exception_lifetime,
        })
    }

    /// How long an unanswered approval waits.
    pub fn approval_timeout(&self) -> Duration {
        Duration::seconds(self.approval_timeout_seconds)
    }

    /// What an unanswered approval becomes.
    pub fn fallback_on_timeout(&self) -> FallbackOnTimeout {
        self.fallback_on_timeout
    }

    /// The profile called `name`.
    pub fn profile(&self, name: &str) -> Option<&CommandProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The capability called `name`.
    pub fn capability(&self, name: &str) -> Option<&crate::capability::Capability> {
        self.capabilities.get(name)
    }

    /// The names of every declared capability, sorted.
    pub fn capability_names(&self) -> Vec<&str> {
        self.capabilities.keys().map(String::as_str).collect()
    }
}
