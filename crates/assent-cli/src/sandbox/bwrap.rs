//! The bubblewrap (`bwrap`) command line that runs a command with [`Places`] out of reach:
//! the whole filesystem as it is (`--dev-bind / /`), each hidden directory replaced by an
//! empty read-only tmpfs, each hidden file by `/dev/null`, each hook file bound read-only over
//! itself. Places that do not exist are left out (bwrap would create a mount point on the real
//! filesystem); a link is followed, so the place it leads to is what is covered. The
//! directories holding a hook file (up to the home directory) are bound over themselves,
//! writable: a mount point cannot be renamed, so `mv ~/.claude ~/.old` cannot swap the hook
//! settings for new ones.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::places::{real, Places};

/// The program run.
pub const BWRAP: &str = "bwrap";

/// How one existing place is covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cover {
    /// An empty, read-only directory in its place.
    EmptyDir(PathBuf),
    /// `/dev/null` in its place.
    NullFile(PathBuf),
    /// The same file or directory, read-only.
    ReadOnly(PathBuf),
    /// The same directory, writable, made a mount point so it cannot be renamed away.
    Pinned(PathBuf),
}

/// The covers for `places` as they stand on this machine (`kind` says whether a path is a
/// directory, a file, or absent: `Some(true)`, `Some(false)`, `None`).
pub fn covers(places: &Places, home: &Path, kind: &dyn Fn(&Path) -> Option<bool>) -> Vec<Cover> {
    let mut hidden: Vec<(PathBuf, bool)> = Vec::new();
    for place in &places.hidden {
        let at = real(place);
        let Some(dir) = kind(&at) else { continue };
        if !hidden.iter().any(|(h, _)| at.starts_with(h)) {
            hidden.retain(|(h, _)| !h.starts_with(&at));
            hidden.push((at, dir));
        }
    }
    let inside_hidden = |at: &Path| hidden.iter().any(|(h, _)| at.starts_with(h));
    let mut read_only: Vec<PathBuf> = Vec::new();
    for place in &places.read_only {
        let at = real(place);
        if kind(&at).is_some() && !inside_hidden(&at) && !read_only.contains(&at) {
            read_only.push(at);
        }
    }
    let mut pinned: Vec<PathBuf> = Vec::new();
    for at in &read_only {
        for dir in holders(at, home) {
            if kind(&dir) == Some(true) && !inside_hidden(&dir) && !pinned.contains(&dir) {
                pinned.push(dir);
            }
        }
    }
    // Outer before inner: a later bind covers what an earlier one put beneath it.
    pinned.sort_by_key(|d| d.components().count());
    let mut out: Vec<Cover> = pinned.into_iter().map(Cover::Pinned).collect();
    out.extend(hidden.iter().map(|(at, dir)| {
        if *dir {
            Cover::EmptyDir(at.clone())
        } else {
            Cover::NullFile(at.clone())
        }
    }));
    out.extend(read_only.into_iter().map(Cover::ReadOnly));
    out
}

/// The directories holding `path` below `home` (just its parent when it is not under
/// `home`), never `/`.
fn holders(path: &Path, home: &Path) -> Vec<PathBuf> {
    let within = path.starts_with(home);
    let mut out = Vec::new();
    for dir in path.ancestors().skip(1) {
        if dir == Path::new("/") || dir.as_os_str().is_empty() || (within && dir == home) {
            break;
        }
        out.push(dir.to_path_buf());
        if !within {
            break;
        }
    }
    out
}

/// bwrap's arguments for `covers`, then `--` and the command.
pub fn arguments(covers: &[Cover], command: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["--dev-bind", "/", "/", "--die-with-parent"]
        .map(OsString::from)
        .into();
    for cover in covers {
        match cover {
            Cover::EmptyDir(dir) => {
                args.extend([
                    "--tmpfs".into(),
                    dir.into(),
                    "--remount-ro".into(),
                    dir.into(),
                ]);
            }
            Cover::NullFile(file) => {
                args.extend(["--ro-bind".into(), "/dev/null".into(), file.into()]);
            }
            Cover::ReadOnly(path) => {
                args.extend(["--ro-bind".into(), path.into(), path.into()]);
            }
            Cover::Pinned(dir) => {
                args.extend(["--bind".into(), dir.into(), dir.into()]);
            }
        }
    }
    args.push("--".into());
    args.extend(command.iter().cloned());
    args
}

/// Why no sandbox can be made here.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error(
        "bubblewrap (bwrap) is not installed, so no sandbox can be made: install it \
         (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
    )]
    Missing,
    #[error(
        "bubblewrap cannot make a sandbox here ({0}): user namespaces are unavailable or \
         refused (check /proc/sys/user/max_user_namespaces, \
         kernel.apparmor_restrict_unprivileged_userns, or a container that forbids them)"
    )]
    NoNamespaces(String),
}

/// Runs `bwrap --dev-bind / / true`: whether a sandbox can be made at all.
pub fn probe() -> Result<(), Unavailable> {
    let out = Command::new(BWRAP)
        .args(["--dev-bind", "/", "/", "true"])
        .stdin(Stdio::null())
        .output();
    match out {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(Unavailable::Missing),
        Err(err) => Err(Unavailable::NoNamespaces(err.to_string())),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let said = if said.is_empty() {
                format!("bwrap exited with {}", out.status)
            } else {
                said
            };
            Err(Unavailable::NoNamespaces(said))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_become_empty_files_null_and_hooks_read_only() {
        let places = Places {
            hidden: vec![
                "/h/.local/share/assent".into(),
                "/h/.local/share/assent/approver.token".into(),
                "/h/.netrc".into(),
                "/h/.aws".into(),
            ],
            read_only: vec![
                "/h/.claude/settings.json".into(),
                "/h/.local/share/assent/x.json".into(),
                "/h/.codex/config.toml".into(),
            ],
        };
        let kind = |p: &Path| match p.to_str() {
            Some("/h/.local/share/assent" | "/h/.claude") => Some(true),
            Some("/h/.local/share/assent/approver.token" | "/h/.netrc") => Some(false),
            Some("/h/.claude/settings.json" | "/h/.local/share/assent/x.json") => Some(false),
            _ => None,
        };
        let got = covers(&places, Path::new("/h"), &kind);
        assert_eq!(
            got,
            vec![
                Cover::Pinned("/h/.claude".into()),
                Cover::EmptyDir("/h/.local/share/assent".into()),
                Cover::NullFile("/h/.netrc".into()),
                Cover::ReadOnly("/h/.claude/settings.json".into()),
            ],
            "a place inside a hidden dir is covered by it; absent places are left out; the \
             directory holding a hook file is pinned first"
        );
        let args = arguments(&got, &["sh".into(), "-c".into(), "true".into()]);
        let text: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
        assert_eq!(
            text,
            [
                "--dev-bind",
                "/",
                "/",
                "--die-with-parent",
                "--bind",
                "/h/.claude",
                "/h/.claude",
                "--tmpfs",
                "/h/.local/share/assent",
                "--remount-ro",
                "/h/.local/share/assent",
                "--ro-bind",
                "/dev/null",
                "/h/.netrc",
                "--ro-bind",
                "/h/.claude/settings.json",
                "/h/.claude/settings.json",
                "--",
                "sh",
                "-c",
                "true"
            ],
            "bwrap's arguments, the command after `--`"
        );
    }
}
