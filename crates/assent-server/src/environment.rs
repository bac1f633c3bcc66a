//! The evaluation environment of this machine: the home directory, where symlinks really
//! lead, and the places agents are blocked from — Assent's own files where this service and
//! the XDG defaults put them, the agents' configuration dirs (`$CODEX_HOME`,
//! `$CLAUDE_CONFIG_DIR`) and this `assent` binary with the `assent-gate` beside it. The core
//! reads no environment variable; this is where they are read.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use assent_core::Environment;

use crate::realpath::FsResolver;

/// What a service knows about its own files.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnFiles<'a> {
    /// The data dir it runs with (`--data-dir`), when not the default.
    pub data_dir: Option<&'a Path>,
    /// The policy file it was started with (`--policy`).
    pub policy_file: Option<&'a Path>,
    /// The audit's checkpoint key (`--audit-key`), when outside the data dir.
    pub audit_key: Option<&'a Path>,
    /// The port it answers on.
    pub port: Option<u16>,
    /// The host a team reaches it by (`--public-url`).
    pub public_host: Option<&'a str>,
}

/// The environment the policy evaluates in on this machine, for the user whose home is `home`.
pub fn environment(home: &str, own: OwnFiles<'_>) -> Environment {
    let mut env = Environment::new(home).with_resolver(Arc::new(FsResolver));
    let xdg = |var: &str| absolute_var(var).map(|base| base.join("assent"));
    for dir in forms(xdg("XDG_DATA_HOME")).chain(forms(own.data_dir)) {
        env = env.with_data_dir(&dir);
    }
    for dir in forms(xdg("XDG_CONFIG_HOME")) {
        env = env.with_config_dir(&dir);
    }
    for dir in forms(xdg("XDG_STATE_HOME")) {
        env = env.with_state_dir(&dir);
    }
    for file in forms(own.policy_file) {
        env = env.with_policy_file(&file);
    }
    for file in forms(own.audit_key) {
        env = env.with_audit_key(&file);
    }
    for var in ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME"] {
        for dir in forms(absolute_var(var)) {
            env = env.with_agent_config_dir(&dir);
        }
    }
    // Gemini CLI's home holds `.gemini/settings.json`; Copilot CLI loads every file in
    // `$COPILOT_HOME/hooks`, opencode every plugin in its config dir's `plugin(s)`.
    for dir in forms(absolute_var("GEMINI_CLI_HOME").map(|h| h.join(".gemini"))) {
        env = env.with_agent_config_dir(&dir);
    }
    for dir in forms(absolute_var("COPILOT_HOME").map(|h| h.join("hooks"))) {
        env = env.with_agent_hook_file_dir(&dir);
    }
    for sub in ["opencode/plugin", "opencode/plugins"] {
        for dir in forms(absolute_var("XDG_CONFIG_HOME").map(|h| h.join(sub))) {
            env = env.with_agent_hook_file_dir(&dir);
        }
    }
    // The hooks most often run this very binary (`assent install` names the `assent` on
    // PATH, or the fast gate `assent-gate` beside it): replacing either is choosing the gate,
    // wherever it is installed.
    let this = std::env::current_exe()
        .ok()
        .filter(|exe| exe.file_name().is_some_and(|n| n == "assent"));
    let fast = this.as_ref().map(|exe| exe.with_file_name("assent-gate"));
    for file in forms(this).chain(forms(fast)) {
        env = env.with_gate_binary(&file);
    }
    if let Some(port) = own.port {
        env = env.with_service_port(port);
    }
    if let Some(host) = own.public_host {
        env = env.with_service_host(host);
    }
    env
}

/// An environment variable holding an absolute path (XDG ignores relative ones).
fn absolute_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// `path` as written (made absolute) and where it really is, when that differs: an agent
/// may name either.
fn forms(path: Option<impl AsRef<Path>>) -> impl Iterator<Item = String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(path) = path {
        let path = path.as_ref();
        let written = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let real = std::fs::canonicalize(&written).ok();
        for p in std::iter::once(written).chain(real) {
            let text = p.to_string_lossy().into_owned();
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out.into_iter()
}
