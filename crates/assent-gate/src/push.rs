//! The commits a `git push` sends, read from the repository before it runs: how many the
//! remote does not have, their subjects, what they change (`--shortstat`), and for a branch
//! the remote already has, how many of its commits a force push would drop. Only a push pays
//! for these `git` processes.

use std::path::Path;

use assent_core::{PushTarget, PushedCommit, PushedCommits, MAX_PUSHED_COMMITS};

/// What `target` would push from the repository at `root`.
pub fn pushed(root: &Path, target: &PushTarget) -> Result<PushedCommits, String> {
    let remote = match &target.remote {
        Some(remote) => remote.clone(),
        None => upstream_remote(root).unwrap_or_else(|| "origin".to_owned()),
    };
    if remote.contains([':', '/']) {
        return Err(format!(
            "{remote} is a URL, not a named remote: what it holds is not known here"
        ));
    }
    let branch = match &target.branch {
        Some(branch) => branch.clone(),
        None => git(root, &["symbolic-ref", "--quiet", "--short", "HEAD"])
            .map_err(|_| "HEAD is on no branch".to_owned())?,
    };
    let source = if target.source == "HEAD" || target.source.is_empty() {
        "HEAD".to_owned()
    } else {
        target.source.clone()
    };
    let tracking = format!("refs/remotes/{remote}/{branch}");
    let known = git(root, &["rev-parse", "--verify", "--quiet", &tracking]).is_ok();
    let range: Vec<String> = if known {
        vec![format!("{tracking}..{source}")]
    } else {
        vec![
            source.clone(),
            "--not".to_owned(),
            format!("--remotes={remote}"),
        ]
    };
    let range: Vec<&str> = range.iter().map(String::as_str).collect();
    let count = git(root, &[&["rev-list", "--count"], range.as_slice()].concat())?
        .parse::<u32>()
        .map_err(|err| format!("git rev-list --count: {err}"))?;
    let max = format!("--max-count={MAX_PUSHED_COMMITS}");
    let log = git(
        root,
        &[
            &[
                "log",
                "--no-decorate",
                "--abbrev=12",
                "--format=%h%x09%s",
                &max,
            ],
            range.as_slice(),
            &["--"],
        ]
        .concat(),
    )?;
    let commits = log
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(sha, subject)| PushedCommit {
            sha: sha.to_owned(),
            subject: subject.to_owned(),
        })
        .collect();
    let (diffstat, overwritten) = if known {
        let stat = git(
            root,
            &["diff", "--shortstat", &format!("{tracking}...{source}")],
        )?;
        let dropped = git(
            root,
            &["rev-list", "--count", &format!("{source}..{tracking}")],
        )?
        .parse::<u32>()
        .ok();
        (Some(stat).filter(|s| !s.is_empty()), dropped)
    } else {
        (None, None)
    };
    Ok(PushedCommits {
        branch: Some(branch.clone()),
        against: if known {
            format!("{remote}/{branch}")
        } else {
            format!("every branch {remote} has ({branch} is new there)")
        },
        count,
        commits,
        diffstat,
        overwritten,
    })
}

/// The remote of the current branch's upstream (`origin` of `origin/main`).
fn upstream_remote(root: &Path) -> Option<String> {
    let branch = git(root, &["symbolic-ref", "--quiet", "--short", "HEAD"]).ok()?;
    git(
        root,
        &["config", "--get", &format!("branch.{branch}.remote")],
    )
    .ok()
}

/// `git -C root ARGS`, its output trimmed; an error says which command failed.
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed ({})",
            args.first().copied().unwrap_or_default(),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {ok:?}");
    }

    fn commit(dir: &Path, file: &str, subject: &str) {
        std::fs::write(dir.join(file), subject).unwrap();
        run(dir, &["add", file]);
        run(dir, &["commit", "-q", "-m", subject]);
    }

    fn target(remote: &str, branch: Option<&str>) -> PushTarget {
        PushTarget {
            remote: Some(remote.to_owned()),
            source: "HEAD".to_owned(),
            branch: branch.map(str::to_owned),
        }
    }

    #[test]
    fn a_push_lists_the_commits_the_remote_lacks_and_what_a_force_drops() {
        let tmp = tempfile::tempdir().unwrap();
        let (bare, work) = (tmp.path().join("remote.git"), tmp.path().join("shop"));
        std::fs::create_dir_all(&work).unwrap();
        run(
            tmp.path(),
            &["init", "-q", "--bare", bare.to_str().unwrap()],
        );
        run(&work, &["init", "-q", "-b", "main"]);
        run(&work, &["remote", "add", "origin", bare.to_str().unwrap()]);
        commit(&work, "a.txt", "first");
        commit(&work, "b.txt", "second");
        run(&work, &["push", "-q", "origin", "main"]);

        commit(&work, "c.txt", "add the checkout page");
        commit(&work, "d.txt", "fix the cart total");
        let got = pushed(&work, &target("origin", Some("main"))).unwrap();
        assert_eq!(got.count, 2, "two commits are not on origin/main yet");
        let subjects: Vec<&str> = got.commits.iter().map(|c| c.subject.as_str()).collect();
        assert_eq!(
            subjects,
            ["fix the cart total", "add the checkout page"],
            "the subjects are listed, newest first"
        );
        assert_eq!(
            got.against, "origin/main",
            "counted against the remote's branch"
        );
        assert!(
            got.diffstat
                .as_deref()
                .is_some_and(|s| s.contains("2 files changed")),
            "the diffstat says what the commits change: {:?}",
            got.diffstat
        );
        assert_eq!(got.overwritten, Some(0), "a fast-forward drops nothing");

        // Rewrite history: drop the pushed `second` and the new commits.
        run(&work, &["reset", "-q", "--hard", "HEAD~3"]);
        commit(&work, "e.txt", "rewrite");
        let forced = pushed(&work, &target("origin", Some("main"))).unwrap();
        assert_eq!(forced.count, 1, "one commit origin lacks");
        assert_eq!(
            forced.overwritten,
            Some(1),
            "a force push would drop `second`, which origin/main has"
        );

        run(&work, &["checkout", "-q", "-b", "topic"]);
        commit(&work, "f.txt", "topic work");
        let new = pushed(&work, &target("origin", None)).unwrap();
        assert_eq!(
            new.branch.as_deref(),
            Some("topic"),
            "the current branch is pushed"
        );
        assert_eq!(
            new.count, 2,
            "a branch new on the remote counts what no remote branch has"
        );
        assert!(
            new.against.contains("new there"),
            "and says so: {}",
            new.against
        );

        let url = pushed(&work, &target("https://example.org/x.git", Some("main")));
        assert!(
            url.is_err(),
            "a URL remote's branches are not known: said, not guessed"
        );
    }
}
