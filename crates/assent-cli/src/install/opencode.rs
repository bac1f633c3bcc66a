//! `assent install opencode [--user|--project]` and `assent uninstall opencode`: the gate as an
//! opencode plugin, `assent.js` in opencode's plugin directory (`$XDG_CONFIG_HOME/opencode/plugin`,
//! default `~/.config/opencode/plugin`; or `./.opencode/plugin`), which opencode loads at start.
//! Its `tool.execute.before` hands every tool call to `assent gate opencode` and throws to deny.
//!
//! opencode (1.18) has no fail-closed switch: a plugin that is missing, does not parse or
//! throws while loading is skipped and the tools run unguarded, as under `opencode run --pure`.
//! The plugin itself fails closed (a gate that cannot start, or answers nonsense, blocks), and
//! `assent doctor` checks the plugin is there and runs a canary through the gate.

use std::path::PathBuf;

use super::binary;
use super::shared::{write_text, InstallArgs, InstallError, Target, BACKUP_SUFFIX};
use crate::gate::OnUnavailable;

/// The plugin's template; `__ASSENT_BIN__` and `__ASSENT_ARGS__` become JSON strings.
const TEMPLATE: &str = include_str!("opencode_plugin.js");
/// The first words of every plugin Assent writes: how uninstall knows the file is its own.
pub const MARKER: &str = "// Assent gate for opencode, written by `assent install opencode`";

/// The plugin file: the user's (XDG config) or the project's.
pub fn plugin_path(target: &Target) -> Result<PathBuf, InstallError> {
    if target.project {
        let cwd = std::env::current_dir().map_err(|source| InstallError::Read {
            path: ".".into(),
            source,
        })?;
        return Ok(cwd.join(".opencode/plugin/assent.js"));
    }
    Ok(config_home()?.join("opencode/plugin/assent.js"))
}

/// `$XDG_CONFIG_HOME`, else `~/.config`.
pub fn config_home() -> Result<PathBuf, InstallError> {
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .map(|home| home.join(".config"))
        .ok_or(InstallError::NoHome)
}

/// The plugin's text for the gate `bin` with these flags.
pub fn plugin(bin: &std::path::Path, args: &InstallArgs) -> String {
    let mut gate = vec![
        "gate".to_owned(),
        "opencode".to_owned(),
        "--wait".to_owned(),
        args.wait.as_secs().to_string(),
    ];
    if args.on_unavailable == OnUnavailable::Ask {
        gate.extend(["--on-unavailable".to_owned(), "ask".to_owned()]);
    }
    let quoted = serde_json::to_string(&bin.to_string_lossy()).unwrap_or_default();
    let argv = serde_json::to_string(&gate).unwrap_or_default();
    TEMPLATE
        .replace("__ASSENT_BIN__", &quoted)
        .replace("__ASSENT_ARGS__", &argv)
}

pub fn install(args: &InstallArgs) -> Result<Vec<String>, InstallError> {
    let bin = binary::hook_program(args.bin.as_deref(), "opencode")?;
    let path = plugin_path(&args.target)?;
    let text = plugin(&bin, args);
    let mut lines = Vec::new();
    match std::fs::read_to_string(&path) {
        Ok(old) if old == text => lines.push(format!("{}: unchanged", path.display())),
        Ok(old) => {
            if !old.starts_with(MARKER) {
                let backup = path.with_extension(format!("js.{BACKUP_SUFFIX}"));
                std::fs::copy(&path, &backup).map_err(|source| InstallError::Write {
                    path: backup.clone(),
                    source,
                })?;
                lines.push(format!("backup: {}", backup.display()));
            }
            write_text(&path, &text)?;
            lines.push(format!("{}: updated", path.display()));
        }
        Err(_) => {
            write_text(&path, &text)?;
            lines.push(format!("{}: written", path.display()));
        }
    }
    lines.push(format!("the plugin runs {}", bin.display()));
    lines.push(
        "note: opencode skips a plugin that fails to load and then runs tools unguarded; \
         `assent doctor` checks the plugin and the gate"
            .into(),
    );
    Ok(lines)
}

pub fn uninstall(target: &Target) -> Result<Vec<String>, InstallError> {
    let path = plugin_path(target)?;
    match std::fs::read_to_string(&path) {
        Ok(text) if text.starts_with(MARKER) => {
            std::fs::remove_file(&path).map_err(|source| InstallError::Write {
                path: path.clone(),
                source,
            })?;
            Ok(vec![format!("{}: removed", path.display())])
        }
        Ok(_) => Ok(vec![format!(
            "{}: not Assent's plugin, left as it is",
            path.display()
        )]),
        Err(_) => Ok(vec![format!("{}: not installed", path.display())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_names_the_binary_as_a_json_string() {
        let args = InstallArgs {
            target: Target {
                user: false,
                project: false,
            },
            wait: std::time::Duration::from_secs(120),
            on_unavailable: OnUnavailable::Deny,
            bin: None,
            sandbox: false,
            hide: Vec::new(),
        };
        let text = plugin(std::path::Path::new("/opt/it's \"here\"/assent"), &args);
        assert!(
            text.starts_with(MARKER),
            "uninstall recognises what install writes"
        );
        assert!(
            text.contains(r#"const BIN = "/opt/it's \"here\"/assent";"#),
            "a path with quotes stays one JS string: {text}"
        );
        assert!(
            text.contains(r#"const ARGS = ["gate","opencode","--wait","120"];"#),
            "the gate's flags are an argv, never a shell line"
        );
    }
}
