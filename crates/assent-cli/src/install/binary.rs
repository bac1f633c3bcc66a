//! Which `assent` the hooks run. Claude Code runs the hook command on every tool call for as
//! long as the settings stay, so it must name a binary that stays where it is: `--bin PATH`;
//! else the `assent` on `PATH`; else this binary, unless it is a build output — a cargo
//! `target/` dir, which `cargo clean`, a rebuild or another branch empties or changes under
//! the hooks. A path is taken as named, not resolved: `~/.local/bin/assent` stays the name
//! even when it is a link.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The program name looked up on `PATH`.
const PROGRAM: &str = "assent";
/// The cache-directory tag cargo writes at the top of every target dir (also a custom
/// `CARGO_TARGET_DIR`).
const CACHE_DIR_TAG: &str = "CACHEDIR.TAG";

#[derive(Debug, thiserror::Error)]
pub enum BinaryError {
    #[error("--bin {0}: give an absolute path (the hooks run from any directory)")]
    NotAbsolute(PathBuf),
    #[error("--bin {path}: {source}")]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--bin {0}: not a file")]
    NotFile(PathBuf),
    #[error("--bin {0}: not executable")]
    NotExecutable(PathBuf),
    #[error(
        "no `assent` on PATH, and this one ({exe}) is a build output under {dir}: hooks naming \
         it break when it is rebuilt or cleaned. Install assent first (`cargo install --path \
         crates/assent-cli`, or ./scripts/setup.sh, which puts it in ~/.local/bin) and have it \
         on PATH, or name an installed copy with --bin PATH"
    )]
    BuildOutput { exe: PathBuf, dir: PathBuf },
    #[error("no `assent` on PATH, and where this binary is cannot be told ({0}): pass --bin PATH")]
    NoExe(std::io::Error),
}

/// The binary the hooks name: `bin` if given (absolute, an executable file), else the first
/// `assent` on `PATH` outside a build dir, else this binary if it is not a build output.
pub fn hook_binary(bin: Option<&Path>) -> Result<PathBuf, BinaryError> {
    if let Some(bin) = bin {
        return checked(bin);
    }
    let cwd = std::env::current_dir().ok();
    if let Some(found) = on_path(std::env::var_os("PATH"), cwd.as_deref()) {
        return Ok(found);
    }
    let exe = std::env::current_exe().map_err(BinaryError::NoExe)?;
    match build_dir(&exe) {
        Some(dir) => Err(BinaryError::BuildOutput { exe, dir }),
        None => Ok(exe),
    }
}

/// The program `agent`'s hooks run: `bin` as given; else the fast gate (`assent-gate`)
/// installed beside the [`hook_binary`] for the agents it answers, so every tool call loads a
/// small binary instead of the whole `assent`; else that `assent`.
pub fn hook_program(bin: Option<&Path>, agent: &str) -> Result<PathBuf, BinaryError> {
    let assent = hook_binary(bin)?;
    if bin.is_some() || assent_gate::agent(agent).is_none() {
        return Ok(assent);
    }
    Ok(assent_gate::beside(&assent).unwrap_or(assent))
}

/// `--bin`: an absolute path to an executable file.
fn checked(bin: &Path) -> Result<PathBuf, BinaryError> {
    if !bin.is_absolute() {
        return Err(BinaryError::NotAbsolute(bin.to_owned()));
    }
    let meta = std::fs::metadata(bin).map_err(|source| BinaryError::Missing {
        path: bin.to_owned(),
        source,
    })?;
    if !meta.is_file() {
        return Err(BinaryError::NotFile(bin.to_owned()));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(BinaryError::NotExecutable(bin.to_owned()));
    }
    Ok(bin.to_owned())
}

/// The first executable `assent` in the `PATH` dirs (relative ones taken from `cwd`) that is
/// not a build output.
fn on_path(path_var: Option<OsString>, cwd: Option<&Path>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(&path_var)
        .filter_map(|dir| {
            if dir.is_absolute() {
                Some(dir)
            } else {
                cwd.map(|cwd| cwd.join(dir))
            }
        })
        .map(|dir| dir.join(PROGRAM))
        .find(|candidate| checked(candidate).is_ok() && build_dir(candidate).is_none())
}

/// The build dir `path` lies in, if any: an ancestor named `target` or tagged as a cache
/// dir (cargo tags its target dirs).
pub(crate) fn build_dir(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|dir| {
            dir.file_name().is_some_and(|name| name == "target")
                || dir.join(CACHE_DIR_TAG).is_file()
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
        std::fs::write(path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn build_outputs_are_recognised() {
        let root = tempfile::tempdir().expect("temp dir");
        let custom = root.path().join("custom-target");
        std::fs::create_dir_all(custom.join("release")).expect("dir");
        std::fs::write(
            custom.join(CACHE_DIR_TAG),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .expect("tag");
        let rows = [
            (
                root.path().join("repo/target/debug/assent"),
                true,
                "cargo's default target dir",
            ),
            (
                custom.join("release/assent"),
                true,
                "a CARGO_TARGET_DIR cargo tagged",
            ),
            (
                root.path().join(".local/bin/assent"),
                false,
                "an installed binary",
            ),
            (
                root.path().join(".cargo/bin/assent"),
                false,
                "cargo install's bin dir",
            ),
        ];
        for (path, want, scenario) in rows {
            assert_eq!(
                build_dir(&path).is_some(),
                want,
                "{scenario}: {}",
                path.display()
            );
        }
    }

    #[test]
    fn path_lookup_skips_build_dirs_and_non_executables() {
        let root = tempfile::tempdir().expect("temp dir");
        let build = root.path().join("repo/target/debug");
        let plain = root.path().join("plain");
        let installed = root.path().join("bin");
        executable(&build.join(PROGRAM));
        std::fs::create_dir_all(&plain).expect("dir");
        std::fs::write(plain.join(PROGRAM), "not executable").expect("write");
        executable(&installed.join(PROGRAM));
        let path_var = std::env::join_paths([&build, &plain, &installed]).expect("PATH");

        assert_eq!(
            on_path(Some(path_var), None),
            Some(installed.join(PROGRAM)),
            "the first installed, executable assent on PATH"
        );
        assert_eq!(
            on_path(Some(OsString::from("bin")), Some(root.path())),
            Some(installed.join(PROGRAM)),
            "a relative PATH entry becomes absolute"
        );
        assert_eq!(on_path(None, None), None, "no PATH, nothing found");
    }

    #[test]
    fn bin_must_be_an_absolute_executable_file() {
        let root = tempfile::tempdir().expect("temp dir");
        let good = root.path().join("assent");
        executable(&good);
        let plain = root.path().join("plain");
        std::fs::write(&plain, "data").expect("write");
        assert_eq!(checked(&good).expect("accepted"), good);
        assert!(matches!(
            checked(Path::new("bin/assent")),
            Err(BinaryError::NotAbsolute(_))
        ));
        assert!(matches!(
            checked(&root.path().join("gone")),
            Err(BinaryError::Missing { .. })
        ));
        assert!(matches!(checked(root.path()), Err(BinaryError::NotFile(_))));
        assert!(matches!(
            checked(&plain),
            Err(BinaryError::NotExecutable(_))
        ));
    }
}
