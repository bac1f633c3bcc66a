//! The git repository of a directory, found by walking up for `.git` (no `git` process:
//! the gate runs on every tool call).

use std::path::{Path, PathBuf};

/// The nearest ancestor of `dir` (itself included) holding a `.git` directory or file
/// (worktrees and submodules have a file).
pub fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|candidate| candidate.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn finds_the_nearest_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let deep = repo.join("src").join("deep");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(
            git_root(&deep),
            Some(repo.clone()),
            "a subdirectory belongs to the repository above it"
        );
        let worktree = deep.join("wt");
        std::fs::create_dir_all(&worktree).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: /elsewhere").unwrap();
        assert_eq!(
            git_root(&worktree),
            Some(worktree.clone()),
            "a .git file marks a worktree root"
        );
    }

    #[test]
    fn no_repository_is_none() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(
            git_root(tmp.path()),
            None,
            "a directory outside any repository has no root"
        );
    }
}
