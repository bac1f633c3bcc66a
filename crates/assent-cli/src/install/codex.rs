//! `assent install codex [--user|--project]` and `assent uninstall codex`: the gate's hook
//! entries in Codex's `config.toml` (`$CODEX_HOME/config.toml`, default `~/.codex`; or
//! `./.codex/config.toml`), trusted the way Codex records trust — in the user's config, the
//! only one whose `hooks.state` Codex reads. Each file changed keeps a backup; a file that is
//! not TOML, or whose hooks are not in Codex's shape, is refused and left as it was.

use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use super::codex_toml::{self, Placed, Removed};
use super::shared::{
    write_text, InstallArgs, InstallError, Target, BACKUP_SUFFIX, TIMEOUT_MARGIN_SECONDS,
};
use super::{binary, codex_sandbox, hooks, sandbox_record};

/// Where Codex keeps its config: `$CODEX_HOME`, else `~/.codex`.
fn codex_home() -> Result<PathBuf, InstallError> {
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        return absolute(PathBuf::from(home));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .ok_or(InstallError::NoHome)?;
    Ok(home.join(".codex"))
}

fn absolute(path: PathBuf) -> Result<PathBuf, InstallError> {
    std::path::absolute(&path).map_err(|source| InstallError::Read { path, source })
}

/// The config the hooks go in, and the user config that holds their trust.
fn paths(target: &Target) -> Result<(PathBuf, PathBuf), InstallError> {
    let user = codex_home()?.join("config.toml");
    if target.project {
        let project = absolute(PathBuf::from(".codex").join("config.toml"))?;
        return Ok((project, user));
    }
    Ok((user.clone(), user))
}

/// One config file as read: its path, its text, its document.
struct Config {
    path: PathBuf,
    text: String,
    doc: DocumentMut,
}

impl Config {
    fn read(path: &Path) -> Result<Config, InstallError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(InstallError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|err| InstallError::NotToml {
                path: path.to_owned(),
                reason: err.to_string().trim().to_owned(),
            })?;
        Ok(Config {
            path: path.to_owned(),
            text,
            doc,
        })
    }

    fn shape(&self, err: codex_toml::ShapeError) -> InstallError {
        InstallError::Shape {
            path: self.path.clone(),
            source: err,
        }
    }

    /// Writes the document (a backup of the old file first) unless its text is unchanged.
    fn write(&self, lines: &mut Vec<String>) -> Result<(), InstallError> {
        let text = self.doc.to_string();
        if text == self.text {
            lines.push(format!("{}: unchanged", self.path.display()));
            return Ok(());
        }
        if self.path.exists() {
            let backup = self.path.with_extension(format!("toml.{BACKUP_SUFFIX}"));
            std::fs::copy(&self.path, &backup).map_err(|source| InstallError::Write {
                path: backup.clone(),
                source,
            })?;
            lines.push(format!("backup: {}", backup.display()));
        }
        write_text(&self.path, &text)?;
        lines.push(format!("{}: updated", self.path.display()));
        Ok(())
    }
}

/// Writes the hooks and their trust; the summary lines.
pub fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let bin = binary::hook_program(args.bin.as_deref(), "codex")?;
    let (hooks_path, user_path) = paths(&args.target)?;
    let gate = hooks::agent_gate_command("codex", &bin, args.wait, args.on_unavailable);
    let command = format!("{gate}{}", hooks::SHELL_FAIL_CLOSED);
    let timeout = args.wait.as_secs() + TIMEOUT_MARGIN_SECONDS;
    let source = hooks_path.to_string_lossy().into_owned();

    let mut config = Config::read(&hooks_path)?;
    let before = codex_toml::gate_handlers(&config.doc);
    let (placed, removed) =
        codex_toml::put_gate(&mut config.doc, &command, timeout).map_err(|e| config.shape(e))?;
    let mut lines = summary(&before, &codex_toml::gate_handlers(&config.doc));
    let sandbox = if args.sandbox {
        if codex_sandbox::has_sandbox_mode(&config.doc) {
            return Err(InstallError::LegacySandboxMode { path: hooks_path });
        }
        let machine = super::sandbox_scope::sandbox_machine(&args.target, &args.hide)?;
        let made = crate::sandbox::make_assent_dirs(&machine)
            .map_err(|(path, source)| InstallError::Write { path, source })?;
        for dir in made {
            lines.push(format!(
                "+ {} (mode 0700, for Codex to deny)",
                dir.display()
            ));
        }
        // Codex's sandbox cannot name a missing path (it fails to start), so the profile
        // lists what is there now; doctor warns when a place appears later.
        let all = crate::sandbox::places::places(&machine);
        let places = all.existing(&|p| p.exists());
        let earlier = sandbox_record::load(&hooks_path)?;
        let record = codex_sandbox::with_sandbox(&mut config.doc, &places, earlier.as_ref());
        lines.push(super::sandbox_scope::sandbox_summary(
            "Codex's sandbox",
            &places,
        ));
        let absent = all.hidden.len() - places.hidden.len();
        if absent > 0 {
            lines.push(format!(
                "note: {absent} of the places are not there, so not in the profile (Codex cannot \
                 deny a missing path): run this again after one is made; `assent doctor` says \
                 when one appears"
            ));
        }
        Some(record)
    } else {
        None
    };
    if hooks_path == user_path {
        retrust(&mut config, &source, &removed, &placed)?;
        config.write(&mut lines)?;
    } else {
        let mut user = Config::read(&user_path)?;
        retrust(&mut user, &source, &removed, &placed)?;
        config.write(&mut lines)?;
        user.write(&mut lines)?;
        lines.push(
            "note: Codex reads a project's .codex/config.toml only for a trusted project".into(),
        );
    }
    if let Some(record) = sandbox {
        sandbox_record::save(&hooks_path, Some(record))?;
        lines.push(
            "note: `codex exec --approve-for-me` and `--sandbox`/`-s` replace the profile with \
             Codex's older sandbox, which denies no reads: run those under `assent sandbox`"
                .into(),
        );
    }
    lines.push(format!("the hooks run {}", bin.display()));
    Ok(lines)
}

/// Takes the gate's hooks and their trust out.
pub fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let (hooks_path, user_path) = paths(target)?;
    let source = hooks_path.to_string_lossy().into_owned();
    let mut config = Config::read(&hooks_path)?;
    let before = codex_toml::gate_handlers(&config.doc);
    let removed = codex_toml::take_gate(&mut config.doc).map_err(|e| config.shape(e))?;
    let mut lines = summary(&before, &codex_toml::gate_handlers(&config.doc));
    let record = sandbox_record::load(&hooks_path)?;
    if let Some(record) = &record {
        codex_sandbox::without_sandbox(&mut config.doc, record);
        lines.push("- sandbox: the permission profile --sandbox added".into());
    }
    if hooks_path == user_path {
        retrust(&mut config, &source, &removed, &[])?;
        config.write(&mut lines)?;
    } else {
        let mut user = Config::read(&user_path)?;
        retrust(&mut user, &source, &removed, &[])?;
        config.write(&mut lines)?;
        user.write(&mut lines)?;
    }
    if record.is_some() {
        sandbox_record::save(&hooks_path, None)?;
    }
    Ok(lines)
}

fn retrust(
    user: &mut Config,
    source: &str,
    removed: &[Removed],
    placed: &[Placed],
) -> Result<(), InstallError> {
    codex_toml::untrust(&mut user.doc, source, removed).map_err(|e| user.shape(e))?;
    codex_toml::trust(&mut user.doc, source, placed).map_err(|e| user.shape(e))
}

fn summary(before: &[String], after: &[String]) -> Vec<String> {
    let gone = before.iter().filter(|h| !after.contains(h));
    let new = after.iter().filter(|h| !before.contains(h));
    gone.map(|h| format!("- {h}"))
        .chain(new.map(|h| format!("+ {h}")))
        .collect()
}
