#![allow(clippy::unwrap_used, reason = "tests")]
use super::*;

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
const OTHER: &str = "89abcdef0123456789abcdef0123456789abcdef";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn finds_the_nearest_repository_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    write(&repo.join(".git/HEAD"), "ref: refs/heads/main\n");
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
fn an_empty_git_directory_is_no_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    write(&repo.join(".git/HEAD"), "ref: refs/heads/main\n");
    let scratch = repo.join("tmp");
    std::fs::create_dir_all(scratch.join(".git")).unwrap();
    let inside = scratch.join("work");
    std::fs::create_dir_all(&inside).unwrap();
    assert_eq!(
        git_root(&inside),
        Some(repo.clone()),
        "an empty .git (Codex's sandbox leaves one in /tmp) is passed over, as git does: \
         the repository is the one above it"
    );
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    assert_eq!(
        git_root(&inside),
        None,
        "with only the empty .git above, the directory is in no repository"
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

#[test]
fn head_is_read_from_loose_refs_packed_refs_or_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let git = tmp.path().join(".git");
    write(&git.join("HEAD"), "ref: refs/heads/main\n");
    assert_eq!(
        head(tmp.path()),
        Head::Unborn("main".into()),
        "a branch without a ref file or packed line has no commit yet"
    );
    write(
        &git.join("packed-refs"),
        &format!("# pack-refs with: peeled fully-peeled sorted\n{OTHER} refs/heads/dev\n{SHA} refs/heads/main\n^{OTHER}\n"),
    );
    assert_eq!(
        head(tmp.path()).sha(),
        Some(SHA),
        "packed-refs holds the branch once refs are packed"
    );
    write(&git.join("refs/heads/main"), &format!("{OTHER}\n"));
    assert_eq!(
        head(tmp.path()),
        Head::Branch {
            name: "main".into(),
            sha: OTHER.into()
        },
        "a loose ref is newer than its packed line"
    );
    write(&git.join("HEAD"), &format!("{SHA}\n"));
    assert_eq!(
        head(tmp.path()),
        Head::Detached(SHA.into()),
        "a detached HEAD is the commit itself"
    );
    write(&git.join("HEAD"), "garbage\n");
    assert!(
        matches!(head(tmp.path()), Head::Unreadable(_)),
        "a HEAD that is neither is said, never guessed"
    );
}

#[test]
fn a_worktree_reads_its_own_head_and_the_common_refs() {
    let tmp = tempfile::tempdir().unwrap();
    let main_git = tmp.path().join("main/.git");
    write(&main_git.join("refs/heads/feature"), &format!("{SHA}\n"));
    let wt_git = main_git.join("worktrees/wt");
    write(&wt_git.join("HEAD"), "ref: refs/heads/feature\n");
    write(&wt_git.join("commondir"), "../..\n");
    let wt = tmp.path().join("wt");
    write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
    assert_eq!(
        head(&wt).sha(),
        Some(SHA),
        "a worktree's branch ref lives in the common git dir"
    );
    std::fs::remove_file(wt.join(".git")).unwrap();
    std::fs::create_dir_all(wt.join(".git")).unwrap();
    assert!(
        head(&wt).note().unwrap().contains("cannot read HEAD"),
        "a .git without HEAD gives no base commit and says why"
    );
}
