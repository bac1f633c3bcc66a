//! What a sandboxed agent must not reach: Assent's own places (its data dir with the tokens,
//! the database and the audit key; its config and state dirs; the policy file) and the usual
//! secret stores are **hidden** — neither read nor written —, and the agents' hook settings are
//! **read-only** (the agent itself reads them to run its hooks: hiding them would turn the gate
//! off). One list for `assent sandbox` (bubblewrap) and for the agents' own sandboxes
//! (`assent install … --sandbox`). A pure function of what [`Machine`] says about this machine.

use std::path::{Path, PathBuf};

/// Secret stores under the home directory: credentials, keys, browser profiles (cookies,
/// saved logins), desktop keyrings and password stores. Reading any of them hands a credential
/// to the agent.
pub const SECRET_PLACES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".kube",
    ".docker",
    ".azure",
    ".config/gcloud",
    ".config/op",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".vault-token",
];

/// The agents' hook settings under an agent's configuration directory.
const CLAUDE_HOOK_FILES: &[&str] = &["settings.json", "settings.local.json"];
const CODEX_HOOK_FILES: &[&str] = &["config.toml", "hooks.json"];

/// What this machine says about where things are (read once from the environment, or made
/// by a test).
#[derive(Debug, Clone, Default)]
pub struct Machine {
    pub home: PathBuf,
    /// The working directory: its project's hook settings are guarded too.
    pub cwd: Option<PathBuf>,
    /// `$XDG_DATA_HOME`, `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME` when absolute.
    pub xdg_data: Option<PathBuf>,
    pub xdg_config: Option<PathBuf>,
    pub xdg_state: Option<PathBuf>,
    /// `$CODEX_HOME`, `$CLAUDE_CONFIG_DIR`, `$COPILOT_HOME`, `$GEMINI_CLI_HOME`.
    pub codex_home: Option<PathBuf>,
    pub claude_config_dir: Option<PathBuf>,
    pub copilot_home: Option<PathBuf>,
    pub gemini_cli_home: Option<PathBuf>,
    /// `$ASSENT_POLICY`: the desk's policy file, when set.
    pub policy: Option<PathBuf>,
    /// More of Assent's places to hide (`--hide`): a service's `--data-dir`, its `--policy`
    /// file, its `--audit-key`.
    pub extra: Vec<PathBuf>,
}

impl Machine {
    /// This machine, from the environment; `extra` as given.
    pub fn from_env(extra: Vec<PathBuf>) -> Option<Machine> {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .or_else(dirs::home_dir)?;
        let var = |name: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| !p.as_os_str().is_empty())
                .and_then(|p| std::path::absolute(p).ok())
        };
        let xdg = |name: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        Some(Machine {
            home,
            cwd: std::env::current_dir().ok(),
            xdg_data: xdg("XDG_DATA_HOME"),
            xdg_config: xdg("XDG_CONFIG_HOME"),
            xdg_state: xdg("XDG_STATE_HOME"),
            codex_home: var("CODEX_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            copilot_home: var("COPILOT_HOME"),
            gemini_cli_home: var("GEMINI_CLI_HOME"),
            policy: var("ASSENT_POLICY"),
            extra: extra
                .into_iter()
                .filter_map(|p| std::path::absolute(p).ok())
                .collect(),
        })
    }
}

/// The places, absolute, each once, in a stable order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// Neither read nor written: Assent's own places, then the secret stores.
    pub hidden: Vec<PathBuf>,
    /// Read, never written: the agents' hook settings.
    pub read_only: Vec<PathBuf>,
}

impl Places {
    /// Only the places `exists` says are there: for a sandbox that cannot name a missing path
    /// (Codex 0.169's fails to start on one: bwrap cannot make the mount point).
    pub fn existing(&self, exists: &dyn Fn(&Path) -> bool) -> Places {
        let keep = |list: &[PathBuf]| list.iter().filter(|p| exists(p)).cloned().collect();
        Places {
            hidden: keep(&self.hidden),
            read_only: keep(&self.read_only),
        }
    }
}

/// Assent's own data, config and state dirs as the service and the CLI use them: the XDG
/// ones when set, else the defaults under the home.
pub fn assent_dirs(m: &Machine) -> Vec<PathBuf> {
    [
        (&m.xdg_data, ".local/share"),
        (&m.xdg_config, ".config"),
        (&m.xdg_state, ".local/state"),
    ]
    .into_iter()
    .map(|(xdg, default)| {
        xdg.clone()
            .unwrap_or_else(|| m.home.join(default))
            .join("assent")
    })
    .collect()
}

/// Assent's data, config and state dirs (the XDG ones and the defaults under the home), the
/// desk's policy file and the extra places.
pub fn assent_places(m: &Machine) -> Vec<PathBuf> {
    let home = &m.home;
    let mut out = Vec::new();
    for (xdg, default) in [
        (&m.xdg_data, ".local/share"),
        (&m.xdg_config, ".config"),
        (&m.xdg_state, ".local/state"),
    ] {
        if let Some(base) = xdg {
            push(&mut out, base.join("assent"));
        }
        push(&mut out, home.join(default).join("assent"));
    }
    for path in m.policy.iter().chain(&m.extra) {
        push(&mut out, path.clone());
    }
    out
}

/// The secret stores under the home directory.
pub fn secret_places(m: &Machine) -> Vec<PathBuf> {
    SECRET_PLACES.iter().map(|p| m.home.join(p)).collect()
}

/// The agents' hook settings: the user's (and the configuration dirs the environment names),
/// the working directory's project's, and the system-wide ones.
pub fn hook_places(m: &Machine) -> Vec<PathBuf> {
    let home = &m.home;
    let mut out = Vec::new();
    let claude_dirs = [Some(home.join(".claude")), m.claude_config_dir.clone()];
    let codex_dirs = [Some(home.join(".codex")), m.codex_home.clone()];
    let mut projects = Vec::new();
    if let Some(cwd) = &m.cwd {
        projects.push(cwd.clone());
    }
    for dir in claude_dirs
        .iter()
        .flatten()
        .cloned()
        .chain(projects.iter().map(|p| p.join(".claude")))
        .chain(["/etc/claude-code".into()])
    {
        for file in CLAUDE_HOOK_FILES.iter().chain(&["managed-settings.json"]) {
            push(&mut out, dir.join(file));
        }
    }
    for dir in codex_dirs
        .iter()
        .flatten()
        .cloned()
        .chain(projects.iter().map(|p| p.join(".codex")))
        .chain(["/etc/codex".into()])
    {
        for file in CODEX_HOOK_FILES {
            push(&mut out, dir.join(file));
        }
    }
    let gemini_home = m.gemini_cli_home.clone().unwrap_or_else(|| home.clone());
    push(&mut out, gemini_home.join(".gemini/settings.json"));
    let copilot = m
        .copilot_home
        .clone()
        .unwrap_or_else(|| home.join(".copilot"));
    push(&mut out, copilot.join("hooks"));
    push(&mut out, copilot.join("settings.json"));
    push(&mut out, home.join(".cursor/hooks.json"));
    let config = m.xdg_config.clone().unwrap_or_else(|| home.join(".config"));
    for dir in ["opencode/plugin", "opencode/plugins"] {
        push(&mut out, config.join(dir));
    }
    for project in &projects {
        for rel in [
            ".gemini/settings.json",
            ".cursor/hooks.json",
            ".github/hooks",
            ".opencode/plugin",
            ".opencode/plugins",
        ] {
            push(&mut out, project.join(rel));
        }
    }
    out
}

/// Every place of this machine.
pub fn places(m: &Machine) -> Places {
    let mut hidden = assent_places(m);
    for secret in secret_places(m) {
        push(&mut hidden, secret);
    }
    let read_only = hook_places(m)
        .into_iter()
        .filter(|p| !hidden.iter().any(|h| p.starts_with(h)))
        .collect();
    Places { hidden, read_only }
}

fn push(out: &mut Vec<PathBuf>, path: PathBuf) {
    if !out.iter().any(|p| p == &path) {
        out.push(path);
    }
}

/// `path` where it really is, when it exists (a link resolved), else as written.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine {
            home: "/h".into(),
            cwd: Some("/h/src/shop".into()),
            xdg_data: Some("/data".into()),
            codex_home: Some("/opt/codex".into()),
            extra: vec!["/srv/assent-data".into()],
            ..Machine::default()
        }
    }

    #[test]
    fn assent_places_and_secrets_are_hidden() {
        let places = places(&machine());
        for want in [
            "/data/assent",
            "/h/.local/share/assent",
            "/h/.config/assent",
            "/h/.local/state/assent",
            "/srv/assent-data",
            "/h/.ssh",
            "/h/.gnupg",
            "/h/.config/gh",
            "/h/.mozilla",
            "/h/.local/share/keyrings",
        ] {
            assert!(
                places.hidden.contains(&PathBuf::from(want)),
                "{want} is hidden from a sandboxed agent: {places:?}"
            );
        }
    }

    #[test]
    fn hook_settings_are_read_only_not_hidden() {
        let places = places(&machine());
        for want in [
            "/h/.claude/settings.json",
            "/h/.codex/config.toml",
            "/opt/codex/config.toml",
            "/h/src/shop/.claude/settings.json",
            "/h/src/shop/.codex/config.toml",
            "/h/.copilot/hooks",
        ] {
            assert!(
                places.read_only.contains(&PathBuf::from(want)),
                "{want}: the agent reads its hooks, never writes them: {places:?}"
            );
            assert!(
                !places.hidden.contains(&PathBuf::from(want)),
                "{want}: a hidden hook file would turn the gate off"
            );
        }
    }
}
