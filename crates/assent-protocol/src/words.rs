//! What a prompt asks, in words, made once here: the desk's notification shows them, and the
//! service sends them with every prompt ([`Approval::words`]) for the window and the web desk
//! to show as they came. The words are raw text, agent text included: each surface cleans them
//! its own way (markup escaped for a notification, hidden characters shown as escapes, cut to
//! its room).

use crate::approval::Approval;
pub use crate::approval::PromptWords;
use assent_core::{
    ApprovalEvidence, DiffApprovalRef, DiffApprovalState, DiffFile, DiffFlag, DiffPacket,
    EvidenceDetail, PrPacket, PushPacket,
};

/// The words of `approval`.
pub fn prompt_words(approval: &Approval) -> PromptWords {
    let flags = match &approval.evidence.detail {
        EvidenceDetail::Diff(packet) => packet
            .flags
            .iter()
            .map(|f| flag_label(*f).to_owned())
            .collect(),
        _ => Vec::new(),
    };
    PromptWords {
        headline: headline(approval),
        summary: packet_lines(&approval.evidence).unwrap_or_default(),
        flags,
    }
}

/// The ellipsis marking a cut.
pub const ELLIPSIS: char = '…';

/// The action in a summary: long enough for "Upload to s3://bucket and delete every object".
pub const MAX_SUMMARY_ACTION: usize = 64;

/// Files or diff approvals listed before "+N more".
const MAX_ITEMS: usize = 3;

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

/// The action a prompt is about, as an imperative phrase without a question mark
/// ([`PromptWords::headline`]).
pub fn headline(approval: &Approval) -> String {
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
    if let Some(profile) = &approval.facts.profile {
        return format!("Run {profile}");
    }
    let summary = bare_summary(&evidence.summary, approval);
    let Some((first, argv)) = evidence
        .command
        .as_deref()
        .and_then(|argv| Some((argv.first()?, argv)))
    else {
        return summary;
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    let more = more_steps(&evidence.summary);
    if let Some(install) = install(program, argv) {
        return with_more(&install, &more);
    }
    // "aws: uploads to … and deletes …": the remote change, said as an order.
    if let Some(remote) = summary
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
    summary
}

/// The core's summary without its place ("… in shop": the repository's name, else the
/// cwd's last part) and without code marks.
fn bare_summary(summary: &str, approval: &Approval) -> String {
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
    format!("{}{more}", fit_words(phrase, room))
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

/// `text` in at most `max_chars` characters, cut at a word rather than inside one, and never
/// leaving a round bracket open (`Change GitHub (repo edit … public` becomes `Change GitHub…`);
/// a cut ends with [`ELLIPSIS`].
///
/// The same cut as the core's evidence summaries ([`assent_core::text::fit_words`]), which also
/// close `[]` and `{}`: a prompt's words close `()` only, as they always have, so a
/// notification's question and the desk's headline read as before (cut to 40 characters,
/// `Run awk over access.log printing {print…` stays so, where a summary ends before the brace).
pub fn fit_words(text: &str, max_chars: usize) -> String {
    assent_core::text::fit_words(text, max_chars, assent_core::text::Brackets::Round)
}

/// The lines of a typed packet, or `None` for a tool approval (its command says it).
fn packet_lines(evidence: &ApprovalEvidence) -> Option<Vec<String>> {
    let mut lines = vec![evidence.summary.clone()];
    match &evidence.detail {
        // A credential prompt says what it needs in its question line.
        EvidenceDetail::Tool
        | EvidenceDetail::Credential(_)
        | EvidenceDetail::PreRun(_)
        | EvidenceDetail::Fleet(_) => return None,
        EvidenceDetail::Diff(packet) => lines.extend(diff_lines(packet)),
        EvidenceDetail::Pr(packet) => lines.extend(pr_lines(packet)),
        // The summary names the rule, the finding, the lifetime and the repo: then the command
        // and the agent's reason.
        EvidenceDetail::Exception(packet) => {
            lines.push(format!("$ {}", packet.covered_command));
            lines.push(format!("why: {}", packet.reason));
        }
    }
    Some(lines)
}

/// "files: .github/workflows/build.yml +3 −1", then "flags: CI workflow changed".
fn diff_lines(packet: &DiffPacket) -> Vec<String> {
    let mut lines = Vec::new();
    if !packet.files.is_empty() {
        let files: Vec<String> = packet.files.iter().map(file_item).collect();
        lines.push(format!("files: {}", listed(&files, packet.files.len())));
    }
    if !packet.flags.is_empty() {
        let flags: Vec<&str> = packet.flags.iter().map(|f| flag_label(*f)).collect();
        lines.push(format!("flags: {}", flags.join(", ")));
    }
    lines
}

/// "to origin/feature: Fix the build", then each diff approval it depends on with its state.
fn pr_lines(packet: &PrPacket) -> Vec<String> {
    let mut lines = Vec::new();
    let target = match (&packet.remote, &packet.branch) {
        (Some(remote), Some(branch)) => Some(format!("{remote}/{branch}")),
        (Some(one), None) | (None, Some(one)) => Some(one.clone()),
        (None, None) => None,
    };
    let head = match (target, &packet.title) {
        (Some(target), Some(title)) => Some(format!("to {target}: {title}")),
        (Some(target), None) => Some(format!("to {target}")),
        (None, Some(title)) => Some(title.clone()),
        (None, None) => None,
    };
    lines.extend(head);
    if let Some(push) = &packet.push {
        lines.extend(push_lines(push));
    }
    if packet.diff_approvals.is_empty() {
        lines.push("no diff approvals in this run".to_owned());
    }
    lines.extend(
        packet
            .diff_approvals
            .iter()
            .take(MAX_ITEMS)
            .map(diff_approval_item),
    );
    let more = packet.diff_approvals.len().saturating_sub(MAX_ITEMS);
    if more > 0 {
        lines.push(format!("+{more} more diff approvals"));
    }
    lines
}

/// "FORCE: drops 1 commit origin/main has", "2 commits: fix the cart total; add the checkout
/// page", "2 files changed, 4 insertions(+)" — or why the commits are unknown.
fn push_lines(push: &PushPacket) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(commits) = &push.commits else {
        if push.force {
            lines.push("force push: the remote's history may be rewritten".to_owned());
        }
        lines.extend(
            push.unknown
                .as_deref()
                .map(|why| format!("commits: unknown ({why})")),
        );
        return lines;
    };
    if push.force {
        lines.push(match commits.overwritten {
            Some(0) => "force push: drops no commit the remote has now".to_owned(),
            Some(1) => format!("force push: drops 1 commit {} has", commits.against),
            Some(n) => format!("force push: drops {n} commits {} has", commits.against),
            None => "force push: the remote's history may be rewritten".to_owned(),
        });
    }
    let subjects: Vec<String> = commits.commits.iter().map(|c| c.subject.clone()).collect();
    let count = match commits.count {
        1 => "1 commit".to_owned(),
        n => format!("{n} commits"),
    };
    let listed = if subjects.is_empty() {
        String::new()
    } else {
        let shown: Vec<&str> = subjects
            .iter()
            .take(MAX_ITEMS)
            .map(String::as_str)
            .collect();
        let more = usize::try_from(commits.count)
            .unwrap_or(usize::MAX)
            .saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" (+{more} more)")
        } else {
            String::new()
        };
        format!(": {}{more}", shown.join("; "))
    };
    lines.push(format!("{count}{listed}"));
    lines.extend(commits.diffstat.as_deref().map(str::to_owned));
    lines
}

/// "stale: Review diff · shop — base commit changed abc123 → def456".
fn diff_approval_item(d: &DiffApprovalRef) -> String {
    let mut item = format!("{}: {}", state_label(d.state), d.summary);
    if let Some(reason) = &d.reason {
        item.push_str(" — ");
        item.push_str(reason);
    }
    item
}

/// "src/a.rs +3 −1"; a binary file says so instead of counting lines.
fn file_item(file: &DiffFile) -> String {
    if file.binary {
        format!("{} (binary)", file.path)
    } else {
        format!("{} +{} −{}", file.path, file.added, file.removed)
    }
}

/// The first [`MAX_ITEMS`] items and how many more there are.
fn listed(shown: &[String], total: usize) -> String {
    let first: Vec<&str> = shown.iter().take(MAX_ITEMS).map(String::as_str).collect();
    let more = total.saturating_sub(MAX_ITEMS);
    if more > 0 {
        format!("{} (+{more} more)", first.join(", "))
    } else {
        first.join(", ")
    }
}

/// A diff flag in words, as the window shows it.
pub fn flag_label(flag: DiffFlag) -> &'static str {
    match flag {
        DiffFlag::WorkflowChanged => "CI workflow changed",
        DiffFlag::CiPrivilegedTrigger => "Runs forks' code with secrets (pull_request_target)",
        DiffFlag::CiChecksOutPrHead => "Checks out the PR's code",
        DiffFlag::CiWritePermissions => "Write permissions",
        DiffFlag::CiSecretSentOut => "Sends a secret to a host",
        DiffFlag::SecurityChanged => "Security file changed",
        DiffFlag::DependencyChanged => "Dependencies changed",
        DiffFlag::LockfileChanged => "Lock file changed",
        DiffFlag::TestsDeleted => "Tests deleted",
        DiffFlag::TestsWeakened => "Tests weakened",
        DiffFlag::PublicApiChanged => "Public API changed",
        DiffFlag::Wide => "Wide change",
        DiffFlag::PolicyPath => "Policy-listed path",
    }
}

/// How a diff approval stands for a PR, in words.
pub fn state_label(state: DiffApprovalState) -> &'static str {
    match state {
        DiffApprovalState::Current => "current",
        DiffApprovalState::Stale => "stale",
        DiffApprovalState::Pending => "pending",
        DiffApprovalState::Denied => "denied",
    }
}

#[cfg(test)]
#[path = "words_tests.rs"]
mod tests;
