//! `assent doctor`: is every way an agent acts guarded? Checks the service and the token,
//! the token files' modes, the Claude Code and Codex hooks (installed, naming a binary that
//! runs, failing closed, trusted), the agents' versions, the gates of Gemini CLI, opencode,
//! Cursor and Copilot CLI where their configuration is there, a canary round trip through each
//! installed hook command, whether each installed agent runs its commands sandboxed
//! (`install … --sandbox`), and the desktop's notification server and tray host. Each check
//! module judges what was found with pure functions; this adapter gathers it and prints.

mod agents;
mod canary;
mod desktop;
mod hooks;
mod report;
mod sandbox;
mod service;
mod versions;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;
use toml_edit::DocumentMut;

use crate::gate::ServiceArgs;
use crate::install::binary;
use crate::install::claude_version::{self, ClaudeCode, PROBE_TIMEOUT};
use report::Check;

const EXIT_HELP: &str = "Exit codes:
  0  every check passed or only warned (warnings, e.g. no tray host, let nothing through)
  1  a check failed: an action could go through unguarded, or the guard cannot work
     (service down, token missing or readable by others, hooks missing, not failing closed,
     naming a missing binary, untrusted, an agent too old for them, a canary unanswered)
  2  usage error";

/// Checks that every agent action is guarded; prints a fix under each failure.
#[derive(Debug, Args)]
#[command(after_help = EXIT_HELP)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// The service's data dir holding the token files [default: $XDG_DATA_HOME/assent, else
    /// ~/.local/share/assent].
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Print one JSON document (`{"ok", "exit_code", "checks": [{"check", "status",
    /// "message", "fix"}]}`) instead of lines.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DoctorArgs) -> ExitCode {
    let checks = gather(args);
    if args.json {
        println!("{}", report::json(&checks));
    } else {
        print!("{}", report::text(&checks));
    }
    ExitCode::from(report::exit_code(&checks))
}

fn gather(args: &DoctorArgs) -> Vec<Check> {
    let url = args
        .service
        .url
        .clone()
        .or_else(|| env(assent_client::URL_ENV))
        .unwrap_or_else(|| assent_protocol::DEFAULT_URL.to_owned());
    let token = args.service.token.clone();
    let mut checks = service::probe(&url, token.as_deref());

    let env_token = token.is_some() || env(assent_client::TOKEN_ENV).is_some();
    match args
        .data_dir
        .clone()
        .or_else(assent_client::default_data_dir)
    {
        Some(dir) => checks.extend(service::tokens(&service::modes(&dir), env_token)),
        None => checks.push(Check::fail(
            "tokens",
            "no home directory to find the data dir",
            "set HOME, or pass --data-dir",
        )),
    }

    let mut canary_env = vec![(assent_client::URL_ENV, url)];
    if let Some(token) = token {
        canary_env.push((assent_client::TOKEN_ENV, token));
    }
    let home = home();
    let (claude, claude_path) = claude_hooks(home.as_deref());
    let hooked = !claude.commands.is_empty();
    let claude_found = claude_version::probe();
    // An agent that is neither on PATH nor hooked is not installed: nothing to warn about
    // (its version line says so).
    if hooked || !matches!(claude_found, ClaudeCode::NotFound) {
        checks.extend(claude.checks);
    }
    if let (true, Some(at)) = (hooked, &claude_path) {
        let settings = std::fs::read_to_string(&at.path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        checks.push(sandbox::claude_code(
            settings.as_ref(),
            &places_for(at.project),
        ));
    }
    checks.push(versions::claude_code(&claude_found, hooked));
    for command in &claude.commands {
        let ran = canary::run("claude-code", command, &canary_env);
        checks.push(canary::judge_claude_code(command, &ran));
    }

    let (codex, codex_path) = codex_hooks(home.as_deref());
    let hooked = !codex.commands.is_empty();
    let found = claude_version::probe_program(Path::new("codex"), PROBE_TIMEOUT);
    if hooked || !matches!(found, ClaudeCode::NotFound) {
        checks.extend(codex.checks);
    }
    if let (true, Some(at)) = (hooked, &codex_path) {
        let doc = read_toml(&at.path);
        let places = places_for(at.project);
        checks.push(sandbox::codex(doc.as_ref(), &places, &|p| p.exists()));
    }
    checks.push(versions::codex(&found, hooked));
    for command in &codex.commands {
        let ran = canary::run("codex", command, &canary_env);
        checks.push(canary::judge_codex(command, &ran));
    }

    for agent in agents::Agent::ALL {
        let Some(found) = agents::found(agent, home.as_deref(), &runs) else {
            continue;
        };
        checks.extend(found.checks);
        for command in &found.commands {
            let ran = agents::canary(agent, command, &canary_env);
            checks.push(agents::judge_canary(agent, command, &ran));
        }
    }

    checks.push(desktop::notifications(&desktop::has_owner(
        desktop::NOTIFICATIONS,
    )));
    checks.push(desktop::tray(&desktop::has_owner(desktop::TRAY_WATCHER)));
    checks
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
}

/// The settings files to look at: the user's, and this project's. Those holding gate hooks
/// are checked; with none, the user's is reported (not installed).
fn candidates(user: Option<PathBuf>, project: &str) -> Vec<PathBuf> {
    let project = std::env::current_dir().ok().map(|cwd| cwd.join(project));
    user.into_iter().chain(project).collect()
}

/// The places an agent's sandbox should keep out of reach, as `install --sandbox` lists them:
/// a project install (`project`) also guards this project's hook settings.
fn places_for(project: bool) -> crate::sandbox::places::Places {
    let mut machine = crate::sandbox::places::Machine::from_env(Vec::new()).unwrap_or_default();
    if !project {
        machine.cwd = None;
    }
    crate::sandbox::places::places(&machine)
}

/// The settings file holding the gate's hooks, and whether it is a project's.
struct Installed {
    path: PathBuf,
    project: bool,
}

/// The gate's hooks as found, and the settings file holding them.
fn claude_hooks(home: Option<&Path>) -> (hooks::Found, Option<Installed>) {
    let user = home.map(|h| h.join(".claude/settings.json"));
    let mut first = None;
    for path in candidates(user.clone(), ".claude/settings.json") {
        let settings = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        let found = hooks::claude_code(&path, settings.as_ref(), &runs);
        if !found.commands.is_empty() {
            let project = Some(&path) != user.as_ref();
            return (found, Some(Installed { path, project }));
        }
        first.get_or_insert(found);
    }
    (first.unwrap_or_default(), None)
}

fn codex_hooks(home: Option<&Path>) -> (hooks::Found, Option<Installed>) {
    let codex_home = env("CODEX_HOME")
        .map(PathBuf::from)
        .and_then(|p| std::path::absolute(p).ok())
        .or_else(|| home.map(|h| h.join(".codex")));
    let user_path = codex_home.map(|h| h.join("config.toml"));
    let user = user_path.as_deref().and_then(read_toml);
    let mut first = None;
    for path in candidates(user_path.clone(), ".codex/config.toml") {
        let doc = read_toml(&path);
        let found = hooks::codex(&path, doc.as_ref(), user.as_ref(), &runs);
        if !found.commands.is_empty() {
            let project = Some(&path) != user_path.as_ref();
            return (found, Some(Installed { path, project }));
        }
        first.get_or_insert(found);
    }
    (first.unwrap_or_default(), None)
}

fn read_toml(path: &Path) -> Option<DocumentMut> {
    std::fs::read_to_string(path).ok()?.parse().ok()
}

/// Whether `program` (a path, or a name on `PATH`) is an executable file, and the build dir
/// it lies in, if any.
fn runs(program: &str) -> Result<Option<String>, String> {
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        let dirs = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&dirs)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
            .ok_or_else(|| "is not on PATH".to_owned())?
    };
    let meta = std::fs::metadata(&path).map_err(|err| format!("cannot be found ({err})"))?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err("is not executable".into());
    }
    Ok(binary::build_dir(&path).map(|dir| dir.display().to_string()))
}
