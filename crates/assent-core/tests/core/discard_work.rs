//! Discarding uncommitted work in git (issue 41, section 2): every spelling of a command that
//! throws away changes no commit holds is asked, its reason saying what would be lost; the
//! harmless spellings beside them (a dry run, unstaging, deleting a merged branch, help) stay
//! auto.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{Decision, Policy};

use Decision::{Ask, Auto};

const RULE: &str = "ask.discard_work";

/// The reasons the default policy gives `line`.
fn reasons(line: &str) -> Vec<String> {
    eval_default(&shell(line)).decision.reasons
}

#[test]
fn discarding_uncommitted_work_is_asked() {
    let lost = |name, line: &str, why| row(name, shell(line), Ask, RULE, why);
    check(
        vec![
            lost(
                "checkout -f",
                "git checkout -f main",
                "a forced checkout drops every change to tracked files",
            ),
            lost(
                "checkout --force",
                "git checkout --force main",
                "the long form is the same option",
            ),
            lost(
                "checkout -qf",
                "git checkout -qf main",
                "-f inside a cluster of short flags still forces",
            ),
            lost(
                "checkout --forc",
                "git checkout --forc main",
                "git takes an unambiguous prefix of a long option",
            ),
            lost(
                "checkout -- path",
                "git checkout -- src/lib.rs",
                "paths checked out take the index's version over the working tree",
            ),
            lost(
                "checkout REV -- path",
                "git checkout HEAD~1 -- src/lib.rs",
                "paths checked out from a revision overwrite their changes",
            ),
            lost(
                "checkout .",
                "git checkout .",
                "`.` is every path under the directory",
            ),
            lost(
                "checkout REV path",
                "git checkout main src/lib.rs",
                "a revision and a file without `--` is still a path checkout",
            ),
            lost(
                "checkout --pathspec-from-file",
                "git checkout --pathspec-from-file=paths.txt",
                "the paths come from a file, each overwritten",
            ),
            lost(
                "switch -f",
                "git switch -f main",
                "switch's force drops changes as checkout's does",
            ),
            lost(
                "switch --discard-changes",
                "git switch --discard-changes main",
                "the option says it",
            ),
            lost(
                "restore",
                "git restore src/lib.rs",
                "restore without --staged overwrites the working tree",
            ),
            lost(
                "restore --source",
                "git restore --source=HEAD~2 .",
                "from another revision, over every file",
            ),
            lost(
                "restore -SW",
                "git restore -SW src/lib.rs",
                "--worktree beside --staged overwrites the file too",
            ),
            lost(
                "reset --hard",
                "git reset --hard",
                "drops every uncommitted change to tracked files",
            ),
            lost(
                "reset --hard REV",
                "git reset --hard origin/main",
                "the same, and moves the branch",
            ),
            lost(
                "reset --har",
                "git reset --har",
                "an abbreviation of --hard",
            ),
            lost(
                "reset --merge",
                "git reset --merge",
                "drops staged changes and a merge in progress",
            ),
            lost(
                "clean -fd",
                "git clean -fd",
                "untracked files were never committed: nothing brings them back",
            ),
            lost("clean -fdx", "git clean -fdx", "ignored files too"),
            lost("clean --force", "git clean --force", "the long form"),
            lost(
                "stash drop",
                "git stash drop",
                "a stash entry holds uncommitted work",
            ),
            lost(
                "stash drop entry",
                "git stash drop stash@{1}",
                "a named entry",
            ),
            lost("stash clear", "git stash clear", "every entry"),
            lost(
                "branch -D",
                "git branch -D feature",
                "an unmerged branch's commits are lost",
            ),
            lost("branch -Dq", "git branch -Dq feature", "-D in a cluster"),
            lost(
                "branch -df",
                "git branch -df feature",
                "-d with force is -D",
            ),
            lost(
                "branch --delete --force",
                "git branch --delete --force feature",
                "the long forms",
            ),
            lost(
                "worktree remove --force",
                "git worktree remove --force ../wt",
                "a dirty worktree removed with its changes",
            ),
            lost(
                "worktree remove -f",
                "git worktree remove -f ../wt",
                "the short form",
            ),
            lost(
                "git -C dir",
                "git -C /home/dev/shop reset --hard",
                "git's global options do not hide the subcommand",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn the_reason_says_what_is_lost() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "git checkout -- src/lib.rs",
            "src/lib.rs",
            "a path checkout names the file overwritten",
        ),
        (
            "git checkout HEAD~1 -- src/lib.rs",
            "HEAD~1",
            "and the revision it comes from",
        ),
        ("git clean -fdx", "ignored", "-x deletes ignored files too"),
        (
            "git stash drop stash@{1}",
            "stash@{1}",
            "the stash entry dropped",
        ),
        ("git branch -D feature", "feature", "the branch deleted"),
        (
            "git branch -D feature",
            "unmerged",
            "-D deletes even when unmerged",
        ),
        (
            "git reset --hard origin/main",
            "origin/main",
            "where the branch moves",
        ),
        (
            "git worktree remove --force ../wt",
            "../wt",
            "the worktree removed",
        ),
        (
            "git checkout -f main",
            "--force",
            "a forced checkout says it is forced",
        ),
    ];
    for (line, needle, why) in cases {
        let got = reasons(line);
        assert!(
            got.iter().any(|r| r.contains(needle)),
            "[{line}] {why}: {got:?}"
        );
    }
    // Each reason is true of its own command.
    let forced = reasons("git checkout -f main");
    assert!(
        !forced.iter().any(|r| r.contains("git checkout -- ")),
        "a forced branch checkout checks out no paths: {forced:?}"
    );
    let merged = reasons("git branch -d feature");
    assert!(
        !merged
            .iter()
            .any(|r| r.contains("-D") || r.contains("unmerged")),
        "`-d` deletes only a merged branch and must not be reported as -D: {merged:?}"
    );
}

#[test]
fn harmless_spellings_beside_them_stay_auto() {
    let read = |name, line: &str, why| row(name, shell(line), Auto, "auto.read", why);
    let local = |name, line: &str, why| row(name, shell(line), Auto, "auto.git_local", why);
    check(
        vec![
            read("clean -n", "git clean -n", "a dry run only lists"),
            read(
                "clean --dry-run -d",
                "git clean --dry-run -d",
                "the long dry run, with directories",
            ),
            read(
                "clean -nd",
                "git clean -nd",
                "-n in a cluster is still a dry run",
            ),
            local(
                "reset HEAD path",
                "git reset HEAD src/lib.rs",
                "unstages a file: the working tree keeps it",
            ),
            local(
                "reset -- path",
                "git reset -- src/lib.rs",
                "the same with `--`",
            ),
            local(
                "reset",
                "git reset",
                "unstages everything, the working tree untouched",
            ),
            local(
                "restore --staged",
                "git restore --staged src/lib.rs",
                "unstaging is no discard",
            ),
            local("restore -S", "git restore -S .", "the short form"),
            local(
                "branch -d",
                "git branch -d feature",
                "-d refuses to delete an unmerged branch",
            ),
            local(
                "checkout branch",
                "git checkout main",
                "a checkout without force keeps changes or refuses",
            ),
            local(
                "checkout -b",
                "git checkout -b feature",
                "creating a branch loses nothing",
            ),
            local(
                "switch",
                "git switch main",
                "a switch without force keeps changes or refuses",
            ),
            local("switch -c", "git switch -c feature", "creating a branch"),
            local(
                "stash",
                "git stash",
                "stashing keeps the changes in an entry",
            ),
            local(
                "worktree remove",
                "git worktree remove ../wt",
                "without --force git refuses to remove a dirty worktree",
            ),
            read("stash list", "git stash list", "listing"),
            read(
                "checkout --help",
                "git checkout --help",
                "help runs nothing",
            ),
            read("reset -h", "git reset -h", "-h alone prints usage"),
        ],
        &Policy::default(),
    );
}
