//! Where a path really leads on this machine: the filesystem behind the core's symlink checks.
//!
//! [`FsResolver`] is the [`PathResolver`] the service (and `assent policy eval`) hand to
//! `assent_core::evaluate`. For one canonical path it canonicalises the longest existing
//! ancestor (`std::fs::canonicalize`: every symlink followed by the kernel) and appends the
//! not-yet-existing rest, so a file about to be written through a linked directory is
//! judged where it will land. A dangling symlink is followed to where it points, so writing
//! through it is judged at its target.
//!
//! Bounds: only absolute paths of at most [`MAX_PATH_BYTES`] bytes, at most [`MAX_HOPS`]
//! dangling links per path (the kernel bounds the others); the core asks for at most
//! `assent_core::MAX_RESOLVED_PATHS` paths per action. Anything that cannot be answered —
//! a symlink loop, a permission error, a path through a regular file, a name that is not
//! UTF-8 — is `None`: the core treats it as unknown, which is risky (asked, never covered by a
//! path-pattern grant, never auto).

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::PathBuf;

use assent_core::paths::normalize;
use assent_core::PathResolver;

/// Longest path resolved (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Most dangling symlinks followed for one path (the kernel's own limit is 40).
pub const MAX_HOPS: usize = 40;

/// Resolves paths on the local filesystem.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsResolver;

impl PathResolver for FsResolver {
    fn real_path(&self, canonical: &str) -> Option<String> {
        real_path(canonical)
    }
}

/// The real path of the absolute path `path`; `None` when it cannot be known.
pub fn real_path(path: &str) -> Option<String> {
    if !path.starts_with('/') || path.len() > MAX_PATH_BYTES {
        return None;
    }
    let mut current = PathBuf::from(path);
    // Names below the deepest existing ancestor, deepest first.
    let mut missing: Vec<OsString> = Vec::new();
    let mut hops = 0;
    loop {
        match std::fs::canonicalize(&current) {
            Ok(real) => return finish(real, &missing),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return None;
                }
                let target = std::fs::read_link(&current).ok()?;
                current = current.parent()?.join(target);
            }
            // It exists yet cannot be canonicalised (it changed under us): unknown.
            Ok(_) => return None,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                missing.push(current.file_name()?.to_owned());
                current = current.parent()?.to_path_buf();
            }
            Err(_) => return None,
        }
    }
}

/// The canonical ancestor with the missing names appended, normalised.
fn finish(mut real: PathBuf, missing: &[OsString]) -> Option<String> {
    for name in missing.iter().rev() {
        real.push(name);
    }
    let text = real.to_str()?;
    Some(normalize(text, "/", "/"))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
mod tests {
    use std::os::unix::fs::symlink;
    use std::path::Path;

    use super::*;

    /// A temp dir by its canonical name (so expected paths are exact).
    fn tmp() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        (dir, root)
    }

    fn real(path: &str) -> Option<String> {
        FsResolver.real_path(path)
    }

    #[test]
    fn plain_and_missing_paths_are_where_they_say() {
        let (_dir, root) = tmp();
        std::fs::create_dir(format!("{root}/src")).unwrap();
        std::fs::write(format!("{root}/src/main.rs"), "fn main() {}").unwrap();
        for path in [
            format!("{root}/src/main.rs"),
            format!("{root}/src/new.rs"),
            format!("{root}/src/deep/er/new.rs"),
            format!("{root}/missing"),
            root.clone(),
        ] {
            assert_eq!(
                real(&path),
                Some(path.clone()),
                "{path} is not behind a link"
            );
        }
    }

    #[test]
    fn links_are_followed_to_their_targets() {
        let (_out, outside) = tmp();
        let (_dir, root) = tmp();
        std::fs::create_dir(format!("{root}/src")).unwrap();
        std::fs::write(format!("{outside}/id_rsa"), "secret").unwrap();
        symlink(format!("{outside}/id_rsa"), format!("{root}/src/key")).unwrap();
        symlink(&outside, format!("{root}/src/out")).unwrap();
        symlink("../src", format!("{root}/src/up")).unwrap();
        assert_eq!(
            real(&format!("{root}/src/key")),
            Some(format!("{outside}/id_rsa")),
            "a file link leads to its target"
        );
        assert_eq!(
            real(&format!("{root}/src/out")),
            Some(outside.clone()),
            "a directory link leads out"
        );
        assert_eq!(
            real(&format!("{root}/src/out/new/file.txt")),
            Some(format!("{outside}/new/file.txt")),
            "a file not yet written through a linked directory lands outside"
        );
        assert_eq!(
            real(&format!("{root}/src/up/up/up/x")),
            Some(format!("{root}/src/x")),
            "relative links resolve from the link's directory"
        );
    }

    #[test]
    fn dangling_links_are_judged_at_their_target() {
        let (_out, outside) = tmp();
        let (_dir, root) = tmp();
        symlink(format!("{outside}/not-yet"), format!("{root}/dangling")).unwrap();
        symlink("../../nowhere/file", format!("{root}/rel")).unwrap();
        symlink(format!("{root}/dangling"), format!("{root}/chain")).unwrap();
        assert_eq!(
            real(&format!("{root}/dangling")),
            Some(format!("{outside}/not-yet")),
            "writing through a dangling link creates its target"
        );
        assert_eq!(
            real(&format!("{root}/chain")),
            Some(format!("{outside}/not-yet")),
            "a chain ending in a dangling link is followed to its end"
        );
        let parent = Path::new(&root).parent().unwrap().parent().unwrap();
        let expected = normalize(&format!("{}/nowhere/file", parent.display()), "/", "/");
        assert_eq!(
            real(&format!("{root}/rel")),
            Some(expected),
            "a relative dangling link resolves from its directory"
        );
    }

    #[test]
    fn what_cannot_be_known_is_none() {
        let (_dir, root) = tmp();
        symlink(format!("{root}/b"), format!("{root}/a")).unwrap();
        symlink(format!("{root}/a"), format!("{root}/b")).unwrap();
        symlink("self", format!("{root}/self")).unwrap();
        std::fs::write(format!("{root}/file"), "x").unwrap();
        for (path, why) in [
            (format!("{root}/a"), "a two-link loop"),
            (format!("{root}/a/x"), "a path through a loop"),
            (format!("{root}/self"), "a link to itself"),
            (format!("{root}/file/x"), "a path through a regular file"),
            ("relative/path".to_owned(), "a relative path"),
            (
                format!("/{}", "a".repeat(MAX_PATH_BYTES)),
                "a path longer than PATH_MAX",
            ),
        ] {
            assert_eq!(real(&path), None, "{why} cannot be resolved");
        }
    }

    #[test]
    fn many_dangling_hops_are_bounded() {
        let (_dir, root) = tmp();
        for i in 0..=MAX_HOPS + 1 {
            symlink(format!("{root}/l{}", i + 1), format!("{root}/l{i}")).unwrap();
        }
        assert_eq!(
            real(&format!("{root}/l0")),
            None,
            "a chain of dangling links longer than the bound is unknown"
        );
        assert_eq!(
            real(&format!("{root}/l{}", MAX_HOPS)),
            Some(format!("{root}/l{}", MAX_HOPS + 2)),
            "a short chain is followed to the missing end"
        );
    }
}
