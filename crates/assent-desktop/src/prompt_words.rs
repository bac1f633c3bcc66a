//! What a prompt's notification asks, in words: the action itself ("Install left-pad with
//! npm", "Upload to s3://… and delete every object there", "Push main to origin"), not the
//! program's name. Raw text: the caller cleans it ([`crate::text::untrusted`]) and cuts it.

use assent_core::EvidenceDetail;
use assent_protocol::Approval;

/// The action in a summary: long enough for "Upload to s3://bucket and delete every object".
pub(crate) const MAX_SUMMARY_ACTION: usize = 64;

/// Package managers and the verbs that install with them.
const INSTALLERS: &[(&str, &[&str])] = &[
    ("npm", &["install", "i", "add", "ci"]),
    ("pnpm", &["install", "i", "add"]),
    ("yarn", &["add", "install"]),
    ("bun", &["add", "install", "i"]),
    ("pip", &["install"]),
    ("pip3", &["install"]),
    ("uv", &["add", "pip"]),
    ("poetry", &["add", "install"]),
    ("cargo", &["add", "install"]),
    ("gem", &["install"]),
    ("go", &["get", "install"]),
    ("brew", &["install"]),
    ("apt", &["install"]),
    ("apt-get", &["install"]),
];

/// The third-person verbs the evidence uses for remote changes, and their imperative.
const VERBS: &[(&str, &str)] = &[
    ("calls", "call"),
    ("changes", "change"),
    ("copies", "copy"),
    ("deletes", "delete"),
    ("destroys", "destroy"),
    ("merges", "merge"),
    ("publishes", "publish"),
    ("pushes", "push"),
    ("runs", "run"),
    ("sends", "send"),
    ("starts", "start"),
    ("uploads", "upload"),
    ("writes", "write"),
];

/// The action a prompt is about, as an imperative phrase without a question mark.
pub fn action(approval: &Approval) -> String {
    let evidence = &approval.evidence;
    match &evidence.detail {
        EvidenceDetail::Diff(packet) => {
            return match packet.files.as_slice() {
                [] => "Accept a change".to_owned(),
                [one] => format!("Accept the change to {}", one.path),
                [first, rest @ ..] => {
                    format!(
                        "Accept the change to {} and {} more",
                        first.path,
                        rest.len()
                    )
                }
            };
        }
        EvidenceDetail::Pr(packet) => {
            // A push is a push: named with its branch, the default branch and force.
            if let Some(push) = &packet.push {
                let verb = if push.force { "Force-push" } else { "Push" };
                let default = if push.to_default_branch {
                    " (the default branch)"
                } else {
                    ""
                };
                return format!(
                    "{verb} {}{default} to {}",
                    packet.branch.as_deref().unwrap_or("the current branch"),
                    packet.remote.as_deref().unwrap_or("its remote")
                );
            }
            return match &packet.title {
                Some(title) => format!("Publish the pull request “{title}”"),
                None => "Publish a pull request".to_owned(),
            };
        }
        EvidenceDetail::Credential(packet) => return format!("Grant {}", packet.subject()),
        EvidenceDetail::Exception(packet) => {
            return format!("Make an exception to {}", packet.rule);
        }
        _ => {}
    }
    if let Some(profile) = &approval.profile {
        return format!("Run {profile}");
    }
    let headline = headline(&evidence.summary, approval);
    let Some((first, argv)) = evidence
        .command
        .as_deref()
        .and_then(|argv| Some((argv.first()?, argv)))
    else {
        return headline;
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    let more = more_steps(&evidence.summary);
    if let Some(install) = install(program, argv) {
        return with_more(&install, &more);
    }
    // "aws: uploads to … and deletes …": the remote change, said as an order.
    if let Some(remote) = headline
        .strip_prefix(program)
        .and_then(|r| r.strip_prefix(": "))
    {
        let remote = remote.split(", and ").next().unwrap_or(remote);
        return with_more(&imperative(remote), &more);
    }
    if program == "rm" && evidence.commands.len() <= 1 {
        let targets: Vec<&str> = operands(argv).collect();
        if !targets.is_empty() {
            return format!("Delete {}", targets.join(" "));
        }
    }
    headline
}

/// The core's headline without its place ("… in shop": the repository's name, else the
/// cwd's last part) and without code marks.
fn headline(summary: &str, approval: &Approval) -> String {
    let last = |path: &str| {
        let path = path.trim_end_matches('/');
        path.rsplit('/').next().unwrap_or(path).to_owned()
    };
    let places = [
        approval.repo.clone(),
        approval.repo.as_deref().map(last),
        Some(last(&approval.evidence.cwd)),
        Some("/".to_owned()),
    ];
    let bare = places
        .iter()
        .flatten()
        .filter(|place| !place.is_empty())
        .find_map(|place| summary.strip_suffix(place.as_str())?.strip_suffix(" in "))
        .unwrap_or(summary);
    bare.replace('`', "")
}

/// `phrase` fitted at a word (and never inside an open bracket) so that ` (+2 steps)` still
/// fits after it in a notification's title.
fn with_more(phrase: &str, more: &str) -> String {
    let room = MAX_SUMMARY_ACTION.saturating_sub(more.chars().count());
    format!("{}{more}", crate::text::fit_words(phrase, room))
}

/// ", and 2 more steps" in the headline, kept short: " (+2 steps)".
fn more_steps(summary: &str) -> String {
    let Some((_, tail)) = summary.rsplit_once(", and ") else {
        return String::new();
    };
    match tail.split_whitespace().next() {
        Some("1") if tail.starts_with("1 more step") => " (+1 step)".to_owned(),
        Some(n) if n.parse::<u32>().is_ok() && tail[n.len()..].starts_with(" more steps") => {
            format!(" (+{n} steps)")
        }
        _ => String::new(),
    }
}

/// "Install left-pad and chalk with npm"; "Install the dependencies with npm".
fn install(program: &str, argv: &[String]) -> Option<String> {
    let (_, verbs) = INSTALLERS.iter().find(|(name, _)| *name == program)?;
    let mut words = operands(argv);
    let verb = words.next()?;
    if !verbs.contains(&verb) {
        return None;
    }
    // `uv pip install x`: the verb is the second word.
    let packages: Vec<&str> = if verb == "pip" {
        words.skip_while(|w| *w == "install").collect()
    } else {
        words.collect()
    };
    Some(match packages.as_slice() {
        [] => format!("Install the dependencies with {program}"),
        [one] => format!("Install {one} with {program}"),
        [first @ .., last] => format!("Install {} and {last} with {program}", first.join(", ")),
    })
}

/// The words after the program that are not flags.
fn operands(argv: &[String]) -> impl Iterator<Item = &str> {
    argv.iter()
        .skip(1)
        .map(String::as_str)
        .filter(|word| !word.starts_with('-'))
}

/// "uploads to x and deletes y" → "Upload to x and delete y": each known verb that leads a
/// clause becomes an order; other words stay as written.
fn imperative(clause: &str) -> String {
    let mut out = String::with_capacity(clause.len());
    let mut leads = true;
    for (i, word) in clause.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let order = leads
            .then(|| VERBS.iter().find(|(third, _)| *third == word))
            .flatten();
        match order {
            Some((_, base)) if i == 0 => {
                let mut chars = base.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            }
            Some((_, base)) => out.push_str(base),
            None => out.push_str(word),
        }
        leads = word == "and" || word == "then";
    }
    out
}

#[cfg(test)]
#[path = "prompt_words_tests.rs"]
mod tests;
