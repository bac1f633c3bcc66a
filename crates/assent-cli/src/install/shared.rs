//! What both agents' installs share: which settings file (user or project), the flags, the
//! error of changing one, and a write that a reader never sees half of. It imports neither
//! install.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::binary::BinaryError;
use super::codex_toml;
use crate::gate::outcome::parse_seconds;
use crate::gate::OnUnavailable;

/// Seconds the hook timeout exceeds the gate's wait, so the gate always answers first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 10;
/// Suffix of the backup written next to the settings file.
pub const BACKUP_SUFFIX: &str = "assent-backup";

#[derive(Debug, Clone, Args)]
#[group(multiple = false)]
pub struct Target {
    /// The user's settings (default): ~/.claude/settings.json, $CODEX_HOME/config.toml,
    /// ~/.gemini/settings.json, ~/.config/opencode/plugin, ~/.cursor/hooks.json,
    /// ~/.copilot/hooks.
    #[arg(long)]
    pub user: bool,
    /// This project's settings: ./.claude/settings.json, ./.codex/config.toml,
    /// ./.gemini/settings.json, ./.opencode/plugin, ./.cursor/hooks.json, ./.github/hooks.
    #[arg(long)]
    pub project: bool,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub target: Target,
    /// The gate's longest wait for a person, in seconds; the hook timeout is 10 s more.
    #[arg(long, default_value = "290", value_parser = parse_seconds)]
    pub wait: Duration,
    /// What the gate answers when no decision can be had.
    #[arg(long, value_enum, default_value_t)]
    pub on_unavailable: OnUnavailable,
    /// The `assent` binary the hooks run (absolute path; `…/assent-gate` runs the fast gate);
    /// default: the `assent` on PATH, else this binary unless it is a build output under a
    /// cargo target dir — or the `assent-gate` installed beside it.
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    /// Also turn on the agent's own sandbox (claude-code, codex) with Assent's data, config
    /// and state dirs, the policy file and the secret stores unreadable and unwritable by the
    /// agent's commands, and the hook settings unwritable. Other agents: `assent sandbox`.
    #[arg(long)]
    pub sandbox: bool,
    /// With --sandbox: also deny this file or directory (repeatable): a service's --data-dir,
    /// --policy or --audit-key outside the default places.
    #[arg(long, value_name = "PATH", requires = "sandbox")]
    pub hide: Vec<PathBuf>,
}

/// Why the settings could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("no home directory to find the agent's settings")]
    NoHome,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a JSON object: leaving it untouched")]
    NotJson { path: PathBuf },
    #[error("{path} is not valid TOML, leaving it untouched: {reason}")]
    NotToml { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Shape {
        path: PathBuf,
        source: codex_toml::ShapeError,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Binary(#[from] BinaryError),
    #[error(
        "--sandbox is for claude-code and codex, whose own sandboxes Assent configures; run \
         {agent} under `assent sandbox -- {agent} …` instead"
    )]
    NoAgentSandbox { agent: &'static str },
    #[error(
        "{path} sets sandbox_mode, which makes Codex ignore permission profiles (and so the \
         places --sandbox denies): remove sandbox_mode, or run codex under `assent sandbox`"
    )]
    LegacySandboxMode { path: PathBuf },
}

/// Writes `text` through a temporary file beside `path`, so a reader never sees half of it.
pub(super) fn write_text(path: &Path, text: &str) -> Result<(), InstallError> {
    let wrap = |source| InstallError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(wrap)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".assent-tmp");
    std::fs::write(&tmp, text).map_err(wrap)?;
    std::fs::rename(&tmp, path).map_err(wrap)
}
