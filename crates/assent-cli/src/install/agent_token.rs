//! The installed agent's own token: `assent install AGENT` makes the agent `AGENT` in the
//! local service's database with a token kept in `<data dir>/agents/AGENT.token` (0600). The
//! gate of that agent presents it when neither `--token` nor `ASSENT_TOKEN` names another
//! ([`assent_client::ClientConfig::resolve_as`]), so each prompt says which agent asked —
//! `claude-code`, `codex` — instead of `default`.
//!
//! Left alone: a token already made (installing again keeps it, so a running agent keeps
//! working), and a service chosen through `ASSENT_URL` / `ASSENT_TOKEN` (a team service: its
//! admin adds agents, `assent agents add NAME`).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

use assent_client::{agent_token_path, TOKEN_ENV, URL_ENV};
use assent_server::Directory;

/// What became of the agent's token, as a line for the person.
pub fn ensure(agent: &str) -> Result<String, String> {
    let chosen = [URL_ENV, TOKEN_ENV]
        .into_iter()
        .find(|name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty()));
    if let Some(name) = chosen {
        return Ok(format!(
            "{name} is set: the gate asks with the token it is given (`assent agents add \
             {agent}` on that service names the agent)"
        ));
    }
    let path = agent_token_path(agent).ok_or("no home directory for the data dir")?;
    if std::fs::read_to_string(&path).is_ok_and(|t| !t.trim().is_empty()) {
        return Ok(format!(
            "the gate asks as the agent {agent} (its token: {})",
            path.display()
        ));
    }
    let data_dir = path.parent().and_then(Path::parent).ok_or("no data dir")?;
    let token = made(agent, data_dir)?;
    write_private(&path, &token)?;
    Ok(format!(
        "the gate asks as the agent {agent} (its token: {})",
        path.display()
    ))
}

/// A fresh install token for `agent` in the SQLite database of `data_dir`, beside a running
/// service as `assent agents add` works.
fn made(agent: &str, data_dir: &Path) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| err.to_string())?;
    runtime.block_on(async {
        let directory = Directory::open(data_dir)
            .await
            .map_err(|err| err.to_string())?;
        let token = directory.install_token(agent).await;
        directory.close().await;
        token.map_err(|err| err.to_string())
    })
}

/// Writes `token` to `path`, readable by its owner alone, its directory private (0700).
fn write_private(path: &Path, token: &str) -> Result<(), String> {
    let fail = |err: std::io::Error| format!("cannot write {}: {err}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(fail)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(fail)?;
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(fail)
}
