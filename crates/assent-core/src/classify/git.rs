//! `git` and `gh`.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::{check_args, Cmd};
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::types::{CommandRisk, CredentialRisk, RiskLevel};

const GIT_READ: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "blame",
    "grep",
    "describe",
    "shortlog",
    "cat-file",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "count-objects",
    "check-ignore",
    "show-ref",
    "whatchanged",
    "help",
    "version",
    "--version",
    "rev-list",
    "reflog",
];
const GIT_LOCAL: &[&str] = &[
    "add",
    "commit",
    "switch",
    "stash",
    "mv",
    "init",
    "restore",
    "checkout",
    "branch",
    "tag",
    "remote",
    "config",
    "worktree",
    "notes",
    "apply",
    "am",
    "merge",
    "cherry-pick",
    "revert",
];
const GIT_NETWORK: &[&str] = &["fetch", "pull", "clone", "ls-remote", "submodule"];

/// A `git` command line split at its subcommand.
pub(crate) struct GitLine<'a> {
    /// The values of the global `-c` options (`core.hooksPath=/dev/null`).
    pub settings: Vec<&'a str>,
    pub sub: &'a str,
    pub rest: &'a [String],
}

/// Splits `git`'s arguments past its global options (`-C dir`, `-c k=v`, …).
pub(crate) fn split_git(args: &[String]) -> GitLine<'_> {
    let mut i = 0;
    let mut settings = Vec::new();
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
            | "--attr-source" | "--shallow-file" => i += 2,
            "-c" | "--config-env" => {
                settings.push(args.get(i + 1).map_or("", String::as_str));
                i += 2;
            }
            a if a.starts_with("--config-env=") => {
                settings.push(a);
                i += 1;
            }
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    GitLine {
        settings,
        sub: args.get(i).map(String::as_str).unwrap_or("help"),
        rest: args.get(i + 1..).unwrap_or_default(),
    }
}

/// `git X --help` (git turns it into `git help X`) and `git X -h` alone (every builtin prints
/// its usage): nothing runs. Anywhere else `-h` may mean something else (`git grep -h`).
fn asks_help(rest: &[String]) -> bool {
    match rest {
        [only] => only == "-h" || only == "--help",
        [first, ..] => first == "--help",
        [] => false,
    }
}

/// `git [-C dir] [-c k=v] <sub> …`.
pub(crate) fn git(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let GitLine {
        settings,
        sub,
        rest,
    } = split_git(cmd.args);
    if asks_help(rest) {
        return vec![Verdict::auto(
            "auto.read",
            format!(
                "`git {sub} {}` prints help",
                rest.first().map_or("--help", String::as_str)
            ),
        )];
    }
    let config_override = !settings.is_empty();
    let sub_cmd = Cmd {
        program: sub,
        args: rest,
        ..*cmd
    };
    let mut out = Vec::new();
    if config_override {
        out.push(Verdict::ask(
            "ask.env_override",
            RiskLevel::High,
            "`git -c` sets configuration that can run commands",
        ));
    }
    out.push(git_sub(&sub_cmd, ctx, facts));
    if GIT_READ.contains(&sub) {
        out.extend(crate::classify::readers::revision_paths(
            &sub_cmd, ctx, facts,
        ));
    }
    match sub {
        "rm" => out.extend(check_args(&sub_cmd, 0, Access::Delete, ctx, facts)),
        // Moving a file changes both places: CI or security tooling moved away is asked.
        "mv" => out.extend(check_args(&sub_cmd, 0, Access::Write, ctx, facts)),
        _ => {}
    }
    out
}

fn git_sub(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Verdict {
    let sub = cmd.program;
    let has = |flags: &[&str]| cmd.has_flag(flags);
    let first = cmd
        .positionals()
        .next()
        .map(String::as_str)
        .unwrap_or_default();
    let rewrite = |facts: &mut Facts, what: &str| {
        facts.command(CommandRisk::Mutation);
        Verdict::ask(
            "ask.history_rewrite",
            RiskLevel::High,
            format!("`git {sub}{what}` rewrites history or discards work"),
        )
    };
    if let Some(v) = crate::classify::discard::judge(cmd, facts) {
        return v;
    }
    match sub {
        "push"
            if has(&[
                "-f",
                "--force",
                "--force-with-lease",
                "--mirror",
                "--delete",
                "-d",
            ]) || cmd
                .args
                .iter()
                .any(|a| a.starts_with('+') || a.starts_with("--force") || a.starts_with(':')) =>
        {
            facts.add_network("git remote", false);
            rewrite(facts, " --force")
        }
        "push" => {
            facts.add_network("git remote", false);
            facts.credential(CredentialRisk::Write);
            // `git push origin main`, `HEAD:master`: past any review, straight to the default
            // branch that others build and deploy from.
            let refs = cmd.args.iter().filter(|a| !a.starts_with('-')).skip(1);
            if refs
                .clone()
                .any(|r| crate::evidence::parts::is_default_branch_ref(r))
            {
                return Verdict::ask(
                    "ask.publish",
                    RiskLevel::High,
                    "`git push` to the default branch publishes commits past any review",
                );
            }
            Verdict::ask(
                "ask.publish",
                RiskLevel::Medium,
                "`git push` publishes commits to a remote",
            )
        }
        "rebase" | "filter-branch" | "filter-repo" | "update-ref" | "replace" | "gc" | "prune" => {
            rewrite(facts, "")
        }
        "commit" if has(&["--amend"]) => rewrite(facts, " --amend"),
        "reflog" if matches!(first, "expire" | "delete") => rewrite(facts, &format!(" {first}")),
        "tag" if has(&["-d", "--delete", "-f"]) => rewrite(facts, " -d"),
        "config" if !(has(&["--get", "--list", "-l", "--get-all", "--get-regexp"])) => {
            facts.command(CommandRisk::Mutation);
            Verdict::ask(
                "ask.git_config",
                RiskLevel::Medium,
                "`git config` changes settings (hooks, pagers and ssh commands run code)",
            )
        }
        "remote" if matches!(first, "add" | "set-url" | "remove" | "rm" | "rename") => {
            facts.command(CommandRisk::Mutation);
            Verdict::ask(
                "ask.git_config",
                RiskLevel::Medium,
                format!("`git remote {first}` changes where pushes go"),
            )
        }
        "rm" => {
            facts.command(CommandRisk::Mutation);
            Verdict::ask("ask.delete", RiskLevel::Medium, "`git rm` deletes files")
        }
        s if GIT_NETWORK.contains(&s) => {
            facts.add_network("git remote", false);
            Verdict::ask(
                "ask.network",
                RiskLevel::Medium,
                format!("`git {s}` talks to a remote"),
            )
        }
        "branch" | "tag" | "remote" | "worktree" if first.is_empty() || first == "list" => {
            Verdict::auto("auto.read", format!("`git {sub}` lists"))
        }
        "stash" if first == "list" || first == "show" => {
            Verdict::auto("auto.read", format!("`git {sub}` lists"))
        }
        s if GIT_READ.contains(&s) => {
            Verdict::auto("auto.read", format!("`git {s}` only reads the repository"))
        }
        s if GIT_LOCAL.contains(&s) => {
            facts.command(CommandRisk::Mutation);
            let _ = ctx;
            Verdict::auto(
                "auto.git_local",
                format!("`git {s}` changes only the local repository, reversibly"),
            )
        }
        s => Verdict::ask(
            "ask.unknown",
            RiskLevel::Medium,
            format!(
                "the policy does not know `git {}`",
                crate::text::first_chars(s, 80)
            ),
        ),
    }
}

/// The GitHub CLI: publishing, or reading with the user's token (printing it is
/// [`crate::classify::credentials`]).
pub(crate) fn gh(cmd: &Cmd<'_>, facts: &mut Facts) -> Verdict {
    let pos: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let (group, verb) = (
        pos.first().copied().unwrap_or_default(),
        pos.get(1).copied().unwrap_or_default(),
    );
    facts.add_network("github.com", false);
    facts.credential(CredentialRisk::Readonly);
    match (group, verb) {
        ("repo", "delete") | ("release", "delete") => {
            facts.command(CommandRisk::Destructive);
            Verdict::block(
                "block.destructive",
                format!("`gh {group} {verb}` deletes on GitHub"),
            )
        }
        (
            "pr" | "issue" | "release" | "repo" | "gist" | "workflow" | "run" | "secret"
            | "variable" | "label",
            v,
        ) if matches!(
            v,
            "create"
                | "merge"
                | "edit"
                | "comment"
                | "close"
                | "reopen"
                | "review"
                | "upload"
                | "fork"
                | "run"
                | "rerun"
                | "cancel"
                | "set"
                | "enable"
                | "disable"
                | "ready"
                | "delete"
        ) =>
        {
            facts.credential(CredentialRisk::Write);
            Verdict::ask(
                "ask.publish",
                RiskLevel::Medium,
                format!("`gh {group} {v}` publishes on GitHub"),
            )
        }
        ("api", _) => {
            facts.credential(CredentialRisk::Write);
            Verdict::ask(
                "ask.credential",
                RiskLevel::High,
                "`gh api` calls GitHub with the user's token",
            )
        }
        _ => Verdict::ask(
            "ask.credential",
            RiskLevel::Low,
            format!("`gh {group} {verb}` reads GitHub with the user's token"),
        ),
    }
}
