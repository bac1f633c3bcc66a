//! The git repository of a directory, found by walking up for `.git`, and its HEAD commit,
//! read from the files git keeps (no `git` process: the gate runs on every tool call).

use std::path::{Path, PathBuf};

/// How many symbolic refs to follow before giving up (git's own limit is 5).
const MAX_REF_DEPTH: usize = 5;

/// The nearest ancestor of `dir` (itself included) holding a repository: a `.git` file
/// (worktrees and submodules) or a `.git` directory with a `HEAD`. An empty `.git` directory is
/// no repository (git agrees; it also checks `objects/` and `refs/`, which this does not): Codex's sandbox makes one in every writable root it
/// protects, `/tmp` included, while it runs, and a repository of `/tmp` would widen a "this
/// repository" grant to all of it.
pub fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|candidate| is_repository(candidate))
        .map(Path::to_path_buf)
}

fn is_repository(dir: &Path) -> bool {
    let dot_git = dir.join(".git");
    match std::fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => dot_git.join("HEAD").is_file(),
        Ok(meta) => meta.is_file(),
        Err(_) => false,
    }
}

/// What HEAD of a repository is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// On a branch at this commit.
    Branch { name: String, sha: String },
    /// Detached at this commit.
    Detached(String),
    /// On a branch with no commit yet (a new repository).
    Unborn(String),
    /// HEAD could not be read; why.
    Unreadable(String),
}

impl Head {
    /// The commit, when there is one.
    pub fn sha(&self) -> Option<&str> {
        match self {
            Head::Branch { sha, .. } | Head::Detached(sha) => Some(sha),
            Head::Unborn(_) | Head::Unreadable(_) => None,
        }
    }

    /// The evidence note for a HEAD that is not simply a branch at a commit.
    pub fn note(&self) -> Option<String> {
        match self {
            Head::Branch { .. } => None,
            Head::Detached(sha) => Some(format!(
                "detached HEAD: the base commit is {}",
                sha.get(..12).unwrap_or(sha)
            )),
            Head::Unborn(branch) => Some(format!(
                "the repository has no commits yet (branch {branch}): no base commit"
            )),
            Head::Unreadable(why) => Some(format!("no base commit: {why}")),
        }
    }
}

/// The commits HEAD of `root` descends from, newest first, HEAD included, at most `max`:
/// `git rev-list` (walking history needs git's object store; only publishing requests ask).
pub fn ancestors(root: &Path, max: usize) -> Result<Vec<String>, String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-list", &format!("--max-count={max}"), "HEAD", "--"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if !out.status.success() {
        return Err(format!("git rev-list failed ({})", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| is_sha(line))
        .map(str::to_owned)
        .collect())
}

/// HEAD of the repository whose work tree is `root`: `.git/HEAD`, its branch's loose ref or
/// `packed-refs`; a `.git` file (`gitdir: …`, worktrees and submodules) is followed, with the
/// refs in its `commondir`.
pub fn head(root: &Path) -> Head {
    let git_dir = match git_dir(root) {
        Ok(dir) => dir,
        Err(why) => return Head::Unreadable(why),
    };
    let common = common_dir(&git_dir);
    let head = match std::fs::read_to_string(git_dir.join("HEAD")) {
        Ok(text) => text.trim().to_owned(),
        Err(err) => return Head::Unreadable(format!("cannot read HEAD: {err}")),
    };
    let Some(mut name) = head.strip_prefix("ref:").map(|r| r.trim().to_owned()) else {
        return match is_sha(&head) {
            true => Head::Detached(head),
            false => Head::Unreadable(format!("HEAD is neither a ref nor a commit: {head:?}")),
        };
    };
    for _ in 0..MAX_REF_DEPTH {
        match resolve_ref(&git_dir, &common, &name) {
            Some(Target::Sha(sha)) => {
                let branch = name.strip_prefix("refs/heads/").unwrap_or(&name).to_owned();
                return Head::Branch { name: branch, sha };
            }
            Some(Target::Ref(next)) => name = next,
            None => {
                let branch = name.strip_prefix("refs/heads/").unwrap_or(&name).to_owned();
                return Head::Unborn(branch);
            }
        }
    }
    Head::Unreadable(format!("HEAD's refs nest deeper than {MAX_REF_DEPTH}"))
}

/// The repository's git directory: `.git`, or where a `.git` file points.
fn git_dir(root: &Path) -> Result<PathBuf, String> {
    let dot_git = root.join(".git");
    if dot_git.is_dir() {
        return Ok(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git)
        .map_err(|err| format!("cannot read {}: {err}", dot_git.display()))?;
    let target = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .ok_or_else(|| format!("{} has no gitdir line", dot_git.display()))?;
    Ok(root.join(target))
}

/// Where the shared refs are: the `commondir` a worktree's git dir names, else itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|text| git_dir.join(text.trim()))
        .unwrap_or_else(|| git_dir.to_path_buf())
}

enum Target {
    Sha(String),
    Ref(String),
}

/// A ref's value: its loose file (the worktree's own dir first), else its `packed-refs` line.
fn resolve_ref(git_dir: &Path, common: &Path, name: &str) -> Option<Target> {
    if name.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    let loose = [git_dir, common]
        .iter()
        .find_map(|dir| std::fs::read_to_string(dir.join(name)).ok());
    if let Some(text) = loose {
        let text = text.trim();
        return match text.strip_prefix("ref:") {
            Some(next) => Some(Target::Ref(next.trim().to_owned())),
            None => is_sha(text).then(|| Target::Sha(text.to_owned())),
        };
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with('^'))
        .find_map(|line| {
            let (sha, ref_name) = line.split_once(' ')?;
            (ref_name.trim() == name && is_sha(sha)).then(|| Target::Sha(sha.to_owned()))
        })
}

/// A full object name: 40 (SHA-1) or 64 (SHA-256) hex digits.
fn is_sha(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests;
