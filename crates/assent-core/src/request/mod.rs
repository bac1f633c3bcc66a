//! What an agent asks for: the seed's `ActionRequest` (the wire shape of `POST /v1/actions`).

pub mod canon;

use serde::{Deserialize, Serialize};

use crate::types::{ActionKind, RepoTrust, RequestedBy, RiskLevel, RunMode};

/// One request of an agent to act.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    pub run_id: String,
    pub task_id: String,
    pub requested_by: RequestedBy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    pub action: Action,
    #[serde(default)]
    pub context: ActionContext,
    #[serde(default)]
    pub reason: String,
}

/// The action itself, as the agent wrote it. Canonicalisation happens in [`crate::request::canon`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub kind: ActionKind,
    /// A shell command line (`kind = shell`), parsed by a real shell parser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// An already split command (`kind = shell`), used when `command` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Working directory; relative paths are resolved against it.
    pub cwd: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Network targets (URLs or hosts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential_scope: Option<String>,
    /// The agent's tool name when it is not a shell command (e.g. `mcp__github__create_pr`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// Where the action happens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionContext {
    /// The repository: an absolute path of its root (the gate sends this) or a name.
    /// When absolute, "inside the repo" means under this path; otherwise under `cwd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_trust: Option<RepoTrust>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// The SHA-256 (hex) of `diff` when the caller sends one, else of the edit's content:
    /// a grant covers this exact change only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_fingerprint: Option<String>,
    /// For a publishing request (`gh pr create`, `git push`): the commits HEAD descends from,
    /// newest first (at most [`MAX_HEAD_ANCESTORS`]). A diff approval asked at one of them
    /// is still current for the PR — the agent committed the reviewed change since.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub head_ancestors: Vec<String>,
    /// For a `git push`: the commits it would push, as the gate read them from the
    /// repository (the packet lists them; at most [`MAX_PUSHED_COMMITS`] are shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushed: Option<PushedCommits>,
    /// The change as a unified diff (`--- a/path` / `+++ b/path` hunks), computed by the gate
    /// from the tool input against the file on disk, at most [`MAX_DIFF_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// What the gate could not put in `diff` and why ("binary file: logo.png", "the file
    /// vanished before the hook read it", "diff cut at 256 KiB"), shown as evidence notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diff_notes: Vec<String>,
    /// What the agent reports of its own verification ("cargo test: 212 passed"), if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_risk: Option<RiskLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_mode: Option<RunMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// What a file edit writes, when the caller sends it (the Claude Code gate does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<EditText>,
    /// An exception to ask for (`assent request --exception RULE`): a security reviewer may
    /// let this action past the rule in this repository, for up to the policy's
    /// `max_exception_lifetime` (see [`crate::exception`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<crate::exception::ExceptionAsk>,
    /// The task the person gave the agent: their own last turns in the session, oldest first
    /// (at most [`MAX_TASK_TURNS`], each at most [`MAX_TASK_TURN_CHARS`] characters), as the
    /// gate read them from the agent's transcript (Claude Code's). Kept only when the policy's
    /// `[reviewer]` has `share_task = true`, and read only by the model reviewer, masked;
    /// otherwise the service drops them on arrival.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_turns: Vec<String>,
}

/// The most task turns a request may carry.
pub const MAX_TASK_TURNS: usize = 3;

/// The longest task turn a request may carry (characters); gates cut longer ones.
pub const MAX_TASK_TURN_CHARS: usize = 2000;

/// Longest unified diff a request may carry (bytes); gates cut longer ones and say so.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;

/// The most `head_ancestors` a request may carry.
pub const MAX_HEAD_ANCESTORS: usize = 200;

/// The most commits of a push a packet lists (the count says how many there are in all).
pub const MAX_PUSHED_COMMITS: usize = 20;

/// What a `git push` sends, read from the repository by the gate before it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushedCommits {
    /// The branch the push lands on, as the gate worked it out (`main`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// What the commits are counted against: the remote's copy of the branch
    /// (`origin/main`), or every branch the remote has when the branch is new there.
    pub against: String,
    /// How many commits the remote does not have yet.
    pub count: u32,
    /// The newest of them, newest first.
    #[serde(default)]
    pub commits: Vec<PushedCommit>,
    /// `git diff --shortstat` of what they change ("3 files changed, 40 insertions(+)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffstat: Option<String>,
    /// Commits the remote branch has that the pushed one does not: a force push drops them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwritten: Option<u32>,
}

/// One commit of a push.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushedCommit {
    /// Its id, abbreviated (12 hex digits).
    pub sha: String,
    /// The first line of its message.
    pub subject: String,
}

/// Longest `old` or `new` text of an [`EditText`] (bytes); the gate cuts longer ones.
pub const MAX_EDIT_BYTES: usize = 64 * 1024;

/// The text of a file edit as the agent's tool gave it (Claude Code's Edit, MultiEdit and
/// Write), so the policy can tell what the edit does, e.g. that it removes a secret-scanning
/// hook. `context.diff_fingerprint` still binds grants to the exact content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EditText {
    /// The text the edit replaces (every `old_string`, one after another); `None` when it
    /// writes the whole file, whose old content the request does not carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// The text it writes: every `new_string`, or the whole new content.
    #[serde(default)]
    pub new: String,
    /// The tool's text was longer than [`MAX_EDIT_BYTES`] and was cut there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}
