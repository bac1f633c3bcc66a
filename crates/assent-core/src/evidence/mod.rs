//! The evidence packet a person decides from (the seed's `ApprovalEvidence`): what every
//! approval shows (summary, where, the command, paths, network, findings), plus the packet of
//! its approval type, tagged by `type` (`tool`, `diff`, `pr`…), the same names end to end.

pub(crate) mod build;
pub(crate) mod mask;
pub(crate) mod parts;
pub(crate) mod run;

use serde::{Deserialize, Serialize};

use crate::types::ApprovalType;

pub use crate::evidence::run::{FleetPacket, PreRunPacket};

/// What the person sees: enough to decide, never a raw secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(try_from = "wire::EvidenceWire")]
pub struct ApprovalEvidence {
    /// One line: what and where, e.g. "Run cargo-test in shop".
    pub summary: String,
    /// The argv of the riskiest part of the command (the first when none reaches beyond the
    /// machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The argv of every part of the command line, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<Vec<String>>,
    /// Each step of a line of more than one (a `sh -c` script's too), as the shell reads it,
    /// the riskiest first: what a person reads before the whole line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<CommandStep>,
    /// The command line as it will run: as the agent wrote it, else its argv quoted as the
    /// shell reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    pub cwd: String,
    #[serde(default)]
    #[schema(required)]
    pub paths: Vec<String>,
    #[serde(default)]
    #[schema(required)]
    pub network: Vec<String>,
    /// Paths that lead somewhere else than written, as `link → real path`
    /// (`src/key → /home/u/.ssh/id_rsa`; `→ (unknown)` when it could not be resolved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symlinks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    /// What may change if approved, e.g. "target/** only".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_summary: Option<String>,
    #[serde(default)]
    #[schema(required)]
    pub policy_findings: Vec<String>,
    /// What the agent reported of its own verification (tests run, passed…), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_risk: Option<String>,
    /// Arguments carrying NUL, control, bidi or zero-width characters.
    #[serde(default)]
    #[schema(required)]
    pub suspicious_text: bool,
    /// The packet of this approval's type; its `type` is the approval type.
    #[serde(flatten)]
    pub detail: EvidenceDetail,
}

impl ApprovalEvidence {
    /// The approval type this evidence is for.
    pub fn approval_type(&self) -> ApprovalType {
        self.detail.approval_type()
    }
}

/// One step of a command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CommandStep {
    /// The step as the shell reads it (`rm -rf ../../.config`; words quoted where needed).
    pub line: String,
    /// What it changes beyond what it reads, when known (`deletes ../../.config and
    /// everything under it`, `sends a POST to hooks.example.com/x with the content of
    /// Cargo.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
}

/// The part of the evidence particular to an approval type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EvidenceDetail {
    /// A tool call: the common fields say it all.
    #[default]
    Tool,
    /// A code change to review: the seed's diff packet.
    Diff(DiffPacket),
    /// Publishing a change: the PR packet.
    Pr(PrPacket),
    /// Use of a credential capability: what it is for, never the secret.
    Credential(CredentialPacket),
    /// A run before it acts: the seed's pre-run packet.
    PreRun(PreRunPacket),
    /// A fleet campaign's definition or one of its stages.
    Fleet(FleetPacket),
    /// Going past a policy finding for longer or wider than a grant may.
    Exception(crate::exception::ExceptionPacket),
}

impl EvidenceDetail {
    pub fn approval_type(&self) -> ApprovalType {
        match self {
            EvidenceDetail::Tool => ApprovalType::Tool,
            EvidenceDetail::Diff(_) => ApprovalType::Diff,
            EvidenceDetail::Pr(_) => ApprovalType::Pr,
            EvidenceDetail::Credential(_) => ApprovalType::Credential,
            EvidenceDetail::PreRun(_) => ApprovalType::PreRun,
            EvidenceDetail::Fleet(_) => ApprovalType::Fleet,
            EvidenceDetail::Exception(_) => ApprovalType::Exception,
        }
    }
}

/// The seed's diff packet: what changed, the risk flags, the diff itself (masked, capped).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DiffPacket {
    /// Every file the change touches, repo-relative.
    pub files: Vec<DiffFile>,
    /// Why this change needs a review.
    pub flags: Vec<DiffFlag>,
    pub lines_added: u32,
    pub lines_removed: u32,
    /// The unified diff, secrets masked, cut at the service's cap (`diff_truncated`).
    pub diff: String,
    #[serde(default)]
    #[schema(required)]
    pub diff_truncated: bool,
    /// The commit the change is based on (the repo's HEAD when the agent asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// The SHA-256 of the diff: a grant covers this exact change only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_fingerprint: Option<String>,
    /// What could not be shown and why (a binary file, a file that vanished, a diff cut short).
    #[serde(default)]
    #[schema(required)]
    pub notes: Vec<String>,
}

/// One changed file of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DiffFile {
    pub path: String,
    pub change: FileChange,
    pub added: u32,
    pub removed: u32,
    /// A binary file: counted, never shown.
    #[serde(default)]
    #[schema(required)]
    pub binary: bool,
}

/// How a file changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    Added,
    Modified,
    Deleted,
}

/// Why a diff needs a review (the seed's diff risk flags).
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
pub enum DiffFlag {
    /// A CI workflow or pipeline file (`.github/workflows/**`, `.gitlab-ci.yml`…).
    WorkflowChanged,
    /// A workflow now runs on `pull_request_target` or `workflow_run`: with the repository's
    /// secrets and a write token, for changes from anyone's fork.
    CiPrivilegedTrigger,
    /// A workflow checks out the pull request's head: code anyone can propose, run there.
    CiChecksOutPrHead,
    /// A workflow is given write permissions (`permissions: write-all`, `contents: write`).
    CiWritePermissions,
    /// A workflow sends a secret (`${{ secrets.X }}`) to a host.
    CiSecretSentOut,
    /// A security-relevant file (CODEOWNERS, secret scanning, auth code the policy names).
    SecurityChanged,
    /// A dependency manifest (`package.json`, `Cargo.toml`, `pom.xml`…).
    DependencyChanged,
    /// A lock file (`Cargo.lock`, `package-lock.json`…).
    LockfileChanged,
    /// A test file is deleted.
    TestsDeleted,
    /// Tests are removed, skipped or their assertions taken out.
    TestsWeakened,
    /// A public interface changes (exported signatures, where detectable).
    PublicApiChanged,
    /// More files or lines than the policy's thresholds.
    Wide,
    /// A path the policy lists for diff review.
    PolicyPath,
}

/// What a PR approval shows: where it goes and the state of the run's diff approvals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PrPacket {
    /// The remote it publishes to, when known (`origin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    /// The branch it publishes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// The run's diff approvals the PR depends on, each with its state.
    #[serde(default)]
    #[schema(required)]
    pub diff_approvals: Vec<DiffApprovalRef>,
    /// A `git push` (not a pull request): how it pushes and what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushPacket>,
}

/// What a `git push` sends: whether it forces, whether it lands on the default branch, and
/// the commits as the gate read them from the repository.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PushPacket {
    /// `--force`, `-f`, `+branch`, `--force-with-lease`, `--mirror`: the remote's history
    /// may be rewritten.
    #[serde(default)]
    #[schema(required)]
    pub force: bool,
    /// It lands on `main` or `master`.
    #[serde(default)]
    #[schema(required)]
    pub to_default_branch: bool,
    /// The commits it pushes, as the gate read them (`None`: not read, see `unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<crate::request::PushedCommits>,
    /// Why the commits are not known (no repository, no git, the remote branch unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

/// What a credential approval shows (the seed's section 12): the capability, for how long,
/// which hosts and methods, why and for which run — never the secret or where it is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CredentialPacket {
    /// The capability's name, e.g. `registry.maven.readonly`.
    pub capability: String,
    /// The longest a grant of it lasts (seconds).
    pub ttl_seconds: i64,
    /// The network hosts it is for.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// The HTTP methods it is for (`GET`, `HEAD`).
    #[serde(default)]
    pub methods: Vec<String>,
    /// The variable the child process gets it as.
    pub inject_as: String,
    /// Why the agent asks.
    #[serde(default)]
    pub reason: String,
    pub run_id: String,
    /// What the agent sees: never the raw value; the child's output is masked for it.
    pub agent_visibility: String,
}

/// One of a run's diff approvals as a PR approval sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DiffApprovalRef {
    pub approval_id: String,
    pub summary: String,
    pub state: DiffApprovalState,
    /// Why it no longer counts, when stale ("base commit changed abc123 → def456").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Whether a diff approval still counts for a PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffApprovalState {
    /// Approved, same base commit and diff as now.
    Current,
    /// Approved, but the base commit or the diff changed since.
    Stale,
    /// Nobody decided yet.
    Pending,
    /// A person denied it, or it timed out.
    Denied,
}

mod wire {
    //! Reading evidence stored before approval types existed: no `type` means `tool`.

    use serde::Deserialize;

    use super::{ApprovalEvidence, EvidenceDetail};

    #[derive(Deserialize)]
    pub(super) struct EvidenceWire {
        summary: String,
        #[serde(default)]
        command: Option<Vec<String>>,
        #[serde(default)]
        command_line: Option<String>,
        cwd: String,
        #[serde(default)]
        commands: Vec<Vec<String>>,
        #[serde(default)]
        steps: Vec<super::CommandStep>,
        #[serde(default)]
        paths: Vec<String>,
        #[serde(default)]
        network: Vec<String>,
        #[serde(default)]
        symlinks: Vec<String>,
        #[serde(default)]
        credentials: Option<String>,
        #[serde(default)]
        mutation: Option<String>,
        #[serde(default)]
        diff_summary: Option<String>,
        #[serde(default)]
        policy_findings: Vec<String>,
        #[serde(default)]
        verification_status: Option<String>,
        #[serde(default)]
        secret_risk: Option<String>,
        #[serde(default)]
        suspicious_text: bool,
        #[serde(flatten)]
        rest: serde_json::Map<String, serde_json::Value>,
    }

    impl TryFrom<EvidenceWire> for ApprovalEvidence {
        type Error = serde_json::Error;

        fn try_from(w: EvidenceWire) -> Result<Self, Self::Error> {
            let mut rest = w.rest;
            rest.entry("type")
                .or_insert_with(|| serde_json::Value::String("tool".to_owned()));
            let detail: EvidenceDetail = serde_json::from_value(serde_json::Value::Object(rest))?;
            Ok(ApprovalEvidence {
                summary: w.summary,
                command: w.command,
                commands: w.commands,
                steps: w.steps,
                command_line: w.command_line,
                cwd: w.cwd,
                paths: w.paths,
                network: w.network,
                symlinks: w.symlinks,
                credentials: w.credentials,
                mutation: w.mutation,
                diff_summary: w.diff_summary,
                policy_findings: w.policy_findings,
                verification_status: w.verification_status,
                secret_risk: w.secret_risk,
                suspicious_text: w.suspicious_text,
                detail,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_tags_the_evidence_and_old_rows_read_as_tool() {
        let diff = ApprovalEvidence {
            summary: "Review diff · shop".to_owned(),
            cwd: "/r".to_owned(),
            detail: EvidenceDetail::Diff(DiffPacket {
                flags: vec![DiffFlag::WorkflowChanged],
                ..DiffPacket::default()
            }),
            ..ApprovalEvidence::default()
        };
        let json = serde_json::to_value(&diff).unwrap_or_default();
        assert_eq!(
            json["type"], "diff",
            "the packet's type is the evidence's `type`"
        );
        assert_eq!(
            json["flags"][0], "workflow_changed",
            "the packet's fields sit beside the common ones"
        );
        let back: Result<ApprovalEvidence, _> = serde_json::from_value(json);
        assert_eq!(back.ok(), Some(diff), "evidence reads back as written");

        let old = serde_json::json!({"summary": "Run x in y", "cwd": "/r", "paths": []});
        let read: Result<ApprovalEvidence, _> = serde_json::from_value(old);
        assert_eq!(
            read.map(|e| e.approval_type()).ok(),
            Some(ApprovalType::Tool),
            "evidence stored before approval types existed is a tool approval's"
        );
        let bad = serde_json::json!({"summary": "x", "cwd": "/", "type": "diff"});
        assert!(
            serde_json::from_value::<ApprovalEvidence>(bad).is_err(),
            "a diff packet without its fields is refused, not read as something else"
        );
    }
}
