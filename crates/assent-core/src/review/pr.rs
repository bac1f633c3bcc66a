//! When an action publishes: `gh pr create`, `git push` of a branch to a remote, or a
//! `kind: "pr"` request — a PR approval, separate from the edits (seed section 14). Its packet
//! names the remote, branch and title where the command line says them; the run's diff
//! approvals it depends on are filled in by the service (`crate::workflow::publish`).

use crate::classify::git::split_git;
use crate::evidence::parts::is_default_branch_ref;
use crate::evidence::{PrPacket, PushPacket};
use crate::request::{ActionRequest, MAX_PUSHED_COMMITS};
use crate::shell::wrappers::{effective, program_name};
use crate::shell::ShellScript;
use crate::types::ActionKind;

/// How an action publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// A pull request (`gh pr create`, `kind: "pr"`).
    PullRequest,
    /// `git push` of a branch.
    Push,
}

/// The PR packet of `request` when it publishes, and how.
pub(crate) fn detect(
    request: &ActionRequest,
    script: Option<&ShellScript>,
) -> Option<(PrPacket, Via)> {
    let base = PrPacket {
        base_sha: request.context.base_sha.clone(),
        ..PrPacket::default()
    };
    if request.action.kind == ActionKind::Pr {
        return Some((base, Via::PullRequest));
    }
    let script = script?;
    script.commands.iter().find_map(|command| {
        let argv = effective(&command.argv).argv;
        let (program, args) = argv.split_first()?;
        let (found, via) = match program_name(program) {
            "gh" => (gh_pr_create(args)?, Via::PullRequest),
            "git" => (pushed(git_push(args)?, args, request), Via::Push),
            _ => return None,
        };
        let packet = PrPacket {
            base_sha: base.base_sha.clone(),
            ..found
        };
        Some((packet, via))
    })
}

/// Whether `request` publishes (a PR approval): what a gate asks before it spends a `git`
/// process on the commits a PR request carries (`context.head_ancestors`).
pub fn publishes(request: &ActionRequest) -> bool {
    if request.action.kind == ActionKind::Pr {
        return true;
    }
    if request.action.kind != ActionKind::Shell {
        return false;
    }
    match crate::request::canon::canonicalize_parsed(&request.action, "/") {
        Ok((_, Some(script))) => detect(request, Some(&script)).is_some(),
        _ => false,
    }
}

/// Where a `git push` of `request` goes, for the gate to read its commits: the remote (as
/// written, `None`: the branch's upstream), the local ref it pushes (`HEAD` when unnamed) and
/// the branch it lands on (`None`: the current branch's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    pub remote: Option<String>,
    pub source: String,
    pub branch: Option<String>,
}

/// The push `request` makes, if it is a `git push` that publishes a branch.
pub fn push_target(request: &ActionRequest) -> Option<PushTarget> {
    if request.action.kind != ActionKind::Shell {
        return None;
    }
    let Ok((_, Some(script))) = crate::request::canon::canonicalize_parsed(&request.action, "/")
    else {
        return None;
    };
    script.commands.iter().find_map(|command| {
        let argv = effective(&command.argv).argv;
        let (program, args) = argv.split_first()?;
        if program_name(program) != "git" {
            return None;
        }
        let packet = git_push(args)?;
        let line = split_git(args);
        let refspec = line
            .rest
            .iter()
            .filter(|a| !a.starts_with('-'))
            .nth(1)
            .map(|r| r.trim_start_matches('+'));
        let source = match refspec.map(|r| r.split_once(':').map_or(r, |(from, _)| from)) {
            Some(from) if !from.is_empty() => from.to_owned(),
            _ => "HEAD".to_owned(),
        };
        Some(PushTarget {
            remote: packet.remote,
            source,
            branch: packet.branch,
        })
    })
}

/// The push packet on a `git push`'s PR packet: force and default branch from the command
/// line, the commits from what the gate read (capped; subjects on one line, clipped).
fn pushed(mut packet: PrPacket, git_args: &[String], request: &ActionRequest) -> PrPacket {
    let args = split_git(git_args).rest;
    let force = args.iter().any(|a| {
        matches!(a.as_str(), "-f" | "--force" | "--mirror")
            || a.starts_with("--force-with-lease")
            || a.starts_with("--force-if-includes")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
    }) || args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .any(|r| r.starts_with('+'));
    let commits = request.context.pushed.clone().map(|mut found| {
        found.commits.truncate(MAX_PUSHED_COMMITS);
        for commit in &mut found.commits {
            commit.subject = crate::text::clip(&crate::text::one_line(&commit.subject), 120);
            commit.sha = crate::text::first_chars(&commit.sha, 12);
        }
        // The gate's words, but a request's: bounded like the rest of the packet.
        found.against = crate::text::clip(&crate::text::one_line(&found.against), 120);
        found.diffstat = found
            .diffstat
            .map(|stat| crate::text::clip(&crate::text::one_line(&stat), 120));
        found.branch = found
            .branch
            .map(|branch| crate::text::clip(&crate::text::one_line(&branch), 120));
        found
    });
    if packet.branch.is_none() {
        packet.branch = commits.as_ref().and_then(|c| c.branch.clone());
    }
    let to_default_branch = packet.branch.as_deref().is_some_and(is_default_branch_ref);
    let unknown = commits.is_none().then(|| {
        "the gate read no commits for this push (no repository, no git, or not through a gate)"
            .to_owned()
    });
    packet.push = Some(PushPacket {
        force,
        to_default_branch,
        commits,
        unknown,
    });
    packet
}

/// `gh pr create [--title T] [--head BRANCH] [--repo R]`.
fn gh_pr_create(args: &[String]) -> Option<PrPacket> {
    let positionals: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .take(2)
        .collect();
    if positionals != ["pr", "create"] {
        return None;
    }
    Some(PrPacket {
        remote: option(args, &["--repo", "-R"]),
        branch: option(args, &["--head", "-H"]),
        title: option(args, &["--title", "-t"]),
        ..PrPacket::default()
    })
}

/// `git push [remote] [refspec…]` that publishes a branch (not `--delete`, not `:branch`).
fn git_push(args: &[String]) -> Option<PrPacket> {
    let line = split_git(args);
    if line.sub != "push" {
        return None;
    }
    let deletes = line.rest.iter().any(|a| {
        matches!(a.as_str(), "--delete" | "-d" | "--prune" | "--mirror") || a.starts_with(':')
    });
    if deletes {
        return None;
    }
    let mut positionals = line
        .rest
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str);
    let remote = positionals.next().map(str::to_owned);
    let branch = positionals.next().map(|refspec| {
        let refspec = refspec.trim_start_matches('+');
        let to = refspec.rsplit_once(':').map_or(refspec, |(_, to)| to);
        to.strip_prefix("refs/heads/").unwrap_or(to).to_owned()
    });
    Some(PrPacket {
        remote,
        branch,
        ..PrPacket::default()
    })
}

/// The value of `--name VALUE`, `--name=VALUE` or `-n VALUE`.
fn option(args: &[String], names: &[&str]) -> Option<String> {
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        for name in names {
            if arg == name {
                return it.next().cloned();
            }
            if let Some(value) = arg.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(value.to_owned());
            }
        }
    }
    None
}

/// One line for the notification: "Push feature/x to origin · shop".
pub(crate) fn summary(packet: &PrPacket, via: Via, place: &str) -> String {
    let branch = packet.branch.as_deref();
    let what = match (via, &packet.title) {
        (Via::PullRequest, Some(title)) => format!("Open pull request “{title}”"),
        (Via::PullRequest, None) => match branch {
            Some(branch) => format!("Open a pull request from {branch}"),
            None => "Open a pull request".to_owned(),
        },
        (Via::Push, _) => {
            let push = packet.push.clone().unwrap_or_default();
            let verb = if push.force { "Force-push" } else { "Push" };
            let default = if push.to_default_branch {
                " (the default branch)"
            } else {
                ""
            };
            let commits = match push.commits.as_ref().map(|c| c.count) {
                Some(1) => ": 1 commit".to_owned(),
                Some(n) => format!(": {n} commits"),
                None => String::new(),
            };
            format!(
                "{verb} {}{default} to {}{commits}",
                branch.unwrap_or("the current branch"),
                packet.remote.as_deref().unwrap_or("its remote")
            )
        }
    };
    crate::text::clip(&format!("{what} · {place}"), 140)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Action;

    fn shell(line: &str) -> (ActionRequest, Option<ShellScript>) {
        let request = ActionRequest {
            run_id: "r".into(),
            task_id: "t".into(),
            requested_by: crate::types::RequestedBy::Agent,
            idempotency_key: None,
            action: Action {
                kind: ActionKind::Shell,
                command: Some(line.into()),
                argv: None,
                cwd: "/repo".into(),
                paths: vec![],
                network: vec![],
                credential_scope: None,
                tool: None,
            },
            context: crate::request::ActionContext {
                base_sha: Some("abc".into()),
                ..Default::default()
            },
            reason: String::new(),
        };
        let (_, script) =
            crate::request::canon::canonicalize_parsed(&request.action, "/home/u").unwrap();
        (request, script)
    }

    #[test]
    fn publishing_commands_are_pr_approvals_and_others_are_not() {
        type Fields<'a> = Option<(Option<&'a str>, Option<&'a str>, Option<&'a str>)>;
        let cases: &[(&str, Fields<'_>)] = &[
            (
                "gh pr create --title 'Fix CI' --head feat",
                Some((None, Some("feat"), Some("Fix CI"))),
            ),
            (
                "git push origin feature/x",
                Some((Some("origin"), Some("feature/x"), None)),
            ),
            (
                "git push -u origin HEAD:refs/heads/topic",
                Some((Some("origin"), Some("topic"), None)),
            ),
            (
                "git add . && git commit -m x && git push",
                Some((None, None, None)),
            ),
            (
                "sudo git -C /repo push origin main",
                Some((Some("origin"), Some("main"), None)),
            ),
            ("git push origin --delete old", None),
            ("git push origin :old", None),
            ("gh pr view 12", None),
            ("gh issue create --title x", None),
            ("git status", None),
        ];
        for (line, want) in cases {
            let (request, script) = shell(line);
            let got = detect(&request, script.as_ref()).map(|(p, _)| p);
            let got_fields = got
                .as_ref()
                .map(|p| (p.remote.as_deref(), p.branch.as_deref(), p.title.as_deref()));
            assert_eq!(
                got_fields, *want,
                "{line}: publishing is a PR approval, nothing else is"
            );
            assert_eq!(
                publishes(&request),
                want.is_some(),
                "{line}: the gate's question (does this need HEAD's history?) agrees"
            );
            if let Some(p) = got {
                assert_eq!(
                    p.base_sha.as_deref(),
                    Some("abc"),
                    "the packet keeps the base commit"
                );
            }
        }
    }

    #[test]
    fn a_pr_request_is_one_and_its_summary_fits_a_line() {
        let (mut request, _) = shell("true");
        request.action.kind = ActionKind::Pr;
        assert!(detect(&request, None).is_some(), "kind pr is a PR approval");
        let packet = PrPacket {
            branch: Some("feat".into()),
            remote: Some("origin".into()),
            ..PrPacket::default()
        };
        assert_eq!(
            summary(&packet, Via::Push, "shop"),
            "Push feat to origin · shop",
            "what and where"
        );
    }
}
