//! Git commands that discard uncommitted work: a checkout or restore over changed files, a
//! forced switch, `reset --hard`, `clean`, a stash dropped, an unmerged branch or a dirty
//! worktree deleted. Each is asked, the reason saying what would be lost. Their harmless
//! spellings (a dry run, unstaging, deleting a merged branch) are auto.
//!
//! Options are read as git reads them: short flags in any cluster (`-fq`, `-Dv`), long ones
//! as `--opt=value` or `--opt value`, abbreviated (`--forc`), anywhere on the line.

use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::types::{CommandRisk, RiskLevel};

/// The rule of an action that discards uncommitted work.
pub(crate) const RULE: &str = "ask.discard_work";

/// The verdict on `git <sub> …` (`cmd.program` is the subcommand) when it is one of the
/// commands that can discard work; `None` leaves it to the other git rules.
pub(crate) fn judge(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let judged = match cmd.program {
        "checkout" => checkout(cmd.args),
        "switch" => switch(cmd.args),
        "restore" => restore(cmd.args),
        "reset" => reset(cmd.args),
        "clean" => clean(cmd.args),
        "stash" => stash(cmd.args),
        "branch" => branch(cmd.args),
        "worktree" => worktree(cmd.args),
        _ => None,
    }?;
    facts.command(CommandRisk::Mutation);
    Some(match judged {
        Judged::Loses(what) => Verdict::ask(RULE, RiskLevel::High, what),
        Judged::Rewrites(what) => Verdict::ask("ask.history_rewrite", RiskLevel::High, what),
        Judged::Keeps(what) => Verdict::auto("auto.git_local", what),
        Judged::Reads(what) => Verdict::auto("auto.read", what),
    })
}

enum Judged {
    /// Uncommitted work (or work only a ref held) is lost.
    Loses(String),
    /// A branch moves: commits leave it, the reflog keeps them.
    Rewrites(String),
    /// Changes only the index or refs, losing nothing.
    Keeps(String),
    /// Changes nothing.
    Reads(String),
}

/// A git subcommand's arguments, read as git's option parser reads them.
#[derive(Default)]
struct Args<'a> {
    shorts: Vec<char>,
    longs: Vec<&'a str>,
    /// Values of options that take one, by the option's first name as written.
    values: Vec<(&'a str, &'a str)>,
    positionals: Vec<&'a str>,
    /// Words after `--`: always paths.
    paths: Vec<&'a str>,
    dashdash: bool,
}

impl<'a> Args<'a> {
    /// `short_values`: short flags taking a value; `long_values`: long ones.
    fn parse(args: &'a [String], short_values: &str, long_values: &[&str]) -> Self {
        let mut out = Args::default();
        let mut words = args.iter().map(String::as_str);
        while let Some(word) = words.next() {
            if out.dashdash {
                out.paths.push(word);
            } else if word == "--" {
                out.dashdash = true;
            } else if let Some(long) = word.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                out.longs.push(name);
                let takes = long_values.iter().any(|l| matches_long(name, l));
                match value {
                    Some(v) => out.values.push((name, v)),
                    None if takes => out.values.push((name, words.next().unwrap_or_default())),
                    None => {}
                }
            } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
                for (at, letter) in cluster.char_indices() {
                    out.shorts.push(letter);
                    if short_values.contains(letter) {
                        let rest = cluster.get(at + letter.len_utf8()..).unwrap_or_default();
                        let value = if rest.is_empty() {
                            words.next().unwrap_or_default()
                        } else {
                            rest
                        };
                        out.values.push((short_name(letter), value));
                        break;
                    }
                }
            } else {
                out.positionals.push(word);
            }
        }
        out
    }

    fn short(&self, letter: char) -> bool {
        self.shorts.contains(&letter)
    }

    fn long(&self, name: &str) -> bool {
        self.longs.iter().any(|given| matches_long(given, name))
    }

    fn value(&self, name: &str) -> Option<&'a str> {
        self.values
            .iter()
            .find(|(given, _)| matches_long(given, name))
            .map(|(_, v)| *v)
    }

    /// The paths named after `--`, or among the positionals from `from` on.
    fn named_paths(&self, from: usize) -> Vec<&'a str> {
        if self.dashdash {
            return self.paths.clone();
        }
        self.positionals.get(from..).unwrap_or_default().to_vec()
    }
}

/// Git accepts a long option abbreviated to any unambiguous prefix (`--har` is `--hard`).
fn matches_long(given: &str, name: &str) -> bool {
    given == name || (given.len() >= 3 && name.starts_with(given))
}

/// Short flags with values, stored under a name of their own.
fn short_name(letter: char) -> &'static str {
    match letter {
        'b' | 'B' | 'c' | 'C' => "-branch",
        's' => "source",
        'e' => "exclude",
        'u' => "set-upstream-to",
        _ => "-value",
    }
}

/// Whether a word, in a place where git takes either a revision or a path, reads as a path.
/// Without the repository at hand this is a guess that leans to "path": `.`, anything
/// relative or absolute, a glob, a file with an extension or a well-known file name.
fn looks_like_path(word: &str) -> bool {
    if matches!(word, "." | ".." | "*") || word.ends_with('/') {
        return true;
    }
    if ["./", "../", "/", ":", "~"]
        .iter()
        .any(|p| word.starts_with(p))
    {
        return true;
    }
    if word.contains(['*', '?', '[']) {
        return true;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    let extension = name
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .map(|(_, ext)| ext);
    let has_extension = extension.is_some_and(|ext| {
        (1..=10).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    has_extension || name.starts_with('.') || WELL_KNOWN_FILES.contains(&name)
}

const WELL_KNOWN_FILES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "Jenkinsfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Vagrantfile",
    "Containerfile",
    "LICENSE",
    "README",
    "CHANGELOG",
    "COPYING",
    "CODEOWNERS",
];

/// `a, b and 2 more`.
fn list(paths: &[&str]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(3)
        .map(|p| crate::text::first_chars_marked(p, 60))
        .collect();
    match paths.len() {
        0 => "the working tree".to_owned(),
        n if n > 3 => format!("{} and {} more", shown.join(", "), n - 3),
        _ => shown.join(", "),
    }
}

fn from_where(rev: Option<&str>) -> String {
    match rev {
        Some(rev) => format!(
            "their version in {}",
            crate::text::first_chars_marked(rev, 40)
        ),
        None => "their staged version".to_owned(),
    }
}

fn checkout(args: &[String]) -> Option<Judged> {
    let a = Args::parse(
        args,
        "bB",
        &["orphan", "pathspec-from-file", "conflict", "track"],
    );
    let creates = a.value("-branch").is_some() || a.value("orphan").is_some();
    if let Some(file) = a.value("pathspec-from-file") {
        return Some(Judged::Loses(format!(
            "`git checkout --pathspec-from-file={file}` overwrites the uncommitted changes to every file listed in {file}"
        )));
    }
    let rev = a.positionals.first().copied();
    let paths = if a.dashdash {
        a.paths.clone()
    } else if creates {
        // `-b new [start]`: the positional is where the new branch starts.
        a.named_paths(1)
    } else if a.positionals.len() >= 2 {
        a.named_paths(1)
    } else {
        a.positionals
            .iter()
            .copied()
            .filter(|p| looks_like_path(p))
            .collect()
    };
    if !paths.is_empty() {
        let rev = rev.filter(|r| !paths.contains(r));
        return Some(Judged::Loses(format!(
            "`git checkout` of paths overwrites the uncommitted changes to {} with {}",
            list(&paths),
            from_where(rev)
        )));
    }
    if a.short('f') || a.long("force") {
        return Some(Judged::Loses(
            "`git checkout --force` switches branches discarding every uncommitted change to tracked files"
                .to_owned(),
        ));
    }
    None
}

fn switch(args: &[String]) -> Option<Judged> {
    let a = Args::parse(
        args,
        "cC",
        &["create", "force-create", "orphan", "conflict", "track"],
    );
    (a.short('f') || a.long("force") || a.long("discard-changes")).then(|| {
        Judged::Loses(
            "`git switch --discard-changes` switches branches discarding every uncommitted change to tracked files"
                .to_owned(),
        )
    })
}

fn restore(args: &[String]) -> Option<Judged> {
    let a = Args::parse(args, "s", &["source", "pathspec-from-file", "conflict"]);
    let staged = a.short('S') || a.long("staged");
    let worktree = a.short('W') || a.long("worktree");
    let paths = a.named_paths(0);
    if staged && !worktree {
        return Some(Judged::Keeps(format!(
            "`git restore --staged` unstages {}: the working tree keeps its changes",
            list(&paths)
        )));
    }
    let what = match a.value("pathspec-from-file") {
        Some(file) => format!("every file listed in {file}"),
        None => list(&paths),
    };
    Some(Judged::Loses(format!(
        "`git restore` overwrites the uncommitted changes to {what} with {}",
        from_where(a.value("source"))
    )))
}

fn reset(args: &[String]) -> Option<Judged> {
    let a = Args::parse(args, "", &["pathspec-from-file"]);
    let (rev, paths) = if a.dashdash {
        (a.positionals.first().copied(), a.paths.clone())
    } else if a.positionals.len() >= 2 {
        (a.positionals.first().copied(), a.named_paths(1))
    } else {
        match a.positionals.first() {
            Some(p) if looks_like_path(p) => (None, vec![*p]),
            other => (other.copied(), Vec::new()),
        }
    };
    let moves = rev.filter(|r| !matches!(*r, "HEAD" | "@"));
    let and_moves = moves
        .map(|r| {
            format!(
                ", and moves the branch to {}",
                crate::text::first_chars_marked(r, 40)
            )
        })
        .unwrap_or_default();
    if a.long("hard") {
        return Some(Judged::Loses(format!(
            "`git reset --hard` discards every uncommitted change to tracked files{and_moves}"
        )));
    }
    if a.long("merge") {
        return Some(Judged::Loses(format!(
            "`git reset --merge` discards staged changes and a merge in progress{and_moves}"
        )));
    }
    if a.long("keep") {
        let to = moves.unwrap_or("HEAD");
        return Some(Judged::Rewrites(format!(
            "`git reset --keep` moves the branch to {to}: later commits leave it (git refuses to lose local changes)"
        )));
    }
    if !paths.is_empty() || a.value("pathspec-from-file").is_some() || a.short('p') {
        return Some(Judged::Keeps(format!(
            "`git reset` of paths unstages {}: the working tree keeps its changes",
            list(&paths)
        )));
    }
    Some(match moves {
        None => Judged::Keeps(
            "`git reset` unstages everything: the working tree keeps its changes".to_owned(),
        ),
        Some(r) => Judged::Rewrites(format!(
            "`git reset` moves the branch to {}: the commits after it leave the branch (the working tree keeps its changes)",
            crate::text::first_chars_marked(r, 40)
        )),
    })
}

fn clean(args: &[String]) -> Option<Judged> {
    let a = Args::parse(args, "e", &["exclude"]);
    if a.short('n') || a.long("dry-run") {
        return Some(Judged::Reads(
            "`git clean --dry-run` only lists what it would delete".to_owned(),
        ));
    }
    let mut what = "untracked files".to_owned();
    if a.short('d') {
        what.push_str(" and directories");
    }
    if a.short('x') {
        what.push_str(", ignored ones too");
    } else if a.short('X') {
        what = "ignored files (build output, local settings)".to_owned();
    }
    let paths = a.named_paths(0);
    let under = if paths.is_empty() {
        String::new()
    } else {
        format!(" under {}", list(&paths))
    };
    Some(Judged::Loses(format!(
        "`git clean` deletes {what}{under}: they were never committed, so git cannot bring them back"
    )))
}

fn stash(args: &[String]) -> Option<Judged> {
    let a = Args::parse(args, "m", &["message"]);
    match a.positionals.first().copied() {
        Some("drop") => {
            let entry = a.positionals.get(1).copied().unwrap_or("the latest stash");
            Some(Judged::Loses(format!(
                "`git stash drop` deletes {entry}: the changes saved in it are lost"
            )))
        }
        Some("clear") => Some(Judged::Loses(
            "`git stash clear` deletes every stash entry: the changes saved in them are lost"
                .to_owned(),
        )),
        _ => None,
    }
}

fn branch(args: &[String]) -> Option<Judged> {
    let a = Args::parse(
        args,
        "u",
        &[
            "set-upstream-to",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "sort",
            "format",
        ],
    );
    let names = list(&a.positionals);
    let delete = a.short('d') || a.short('D') || a.long("delete");
    let force = a.short('D') || a.short('f') || a.long("force");
    if delete && force {
        return Some(Judged::Loses(format!(
            "`git branch -D` deletes {names} even when unmerged: commits on no other branch are lost (only the reflog keeps them for a while)"
        )));
    }
    if delete {
        return Some(Judged::Keeps(format!(
            "`git branch -d` deletes {names} only if merged: no commit is lost"
        )));
    }
    if a.short('M') || a.short('C') || (force && (a.short('m') || a.short('c'))) {
        return Some(Judged::Loses(format!(
            "`git branch -M` renames or copies over an existing branch ({names}), whose commits then leave it"
        )));
    }
    if force {
        return Some(Judged::Rewrites(format!(
            "`git branch --force` moves the existing branch {names}: commits only it held leave it"
        )));
    }
    None
}

fn worktree(args: &[String]) -> Option<Judged> {
    let a = Args::parse(args, "", &["reason"]);
    let removes = a.positionals.first() == Some(&"remove");
    (removes && (a.short('f') || a.long("force"))).then(|| {
        Judged::Loses(format!(
            "`git worktree remove --force` deletes the worktree {} with its uncommitted changes and untracked files",
            list(a.positionals.get(1..).unwrap_or_default())
        ))
    })
}
