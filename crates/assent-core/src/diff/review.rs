//! When an edit is a diff approval, and its packet: CI, security, dependency or lock files,
//! a path the policy lists, a wide change, or tests deleted or weakened (seed section 13).
//! The change is read from `context.diff` when the request carries one, else only its paths
//! are known (and the packet says so).

use crate::classify::ctx::Ctx;

use crate::classify::verdict::{Access, Facts, Verdict};
use crate::diff::parse::{parse, ParsedFile};
use crate::evidence::{DiffFile, DiffFlag, DiffPacket, FileChange};
use crate::paths::relative_to;
use crate::request::canon::CanonicalAction;
use crate::request::{ActionRequest, MAX_DIFF_BYTES};
use crate::text::cut_at_line;
use crate::types::{ActionKind, RiskLevel, Role};

/// The most diff text a packet shows (bytes); the rest is cut at a line with a note.
pub(crate) const SHOWN_DIFF_BYTES: usize = 64 * 1024;

/// An edit that needs a diff review: its packet, and the verdict that asks for it.
#[derive(Debug, Clone)]
pub(crate) struct DiffReview {
    pub packet: DiffPacket,
    pub verdict: Verdict,
}

impl DiffReview {
    /// The role a review of these flags needs: security files a security reviewer, the rest
    /// a repo maintainer.
    pub fn role(&self) -> Role {
        if self.packet.flags.contains(&DiffFlag::SecurityChanged) {
            Role::SecurityReviewer
        } else {
            Role::RepoMaintainer
        }
    }

    /// One line for the notification: "Review diff · shop: 1 file, CI workflow changed".
    pub fn summary(&self, place: &str) -> String {
        let n = self.packet.files.len();
        let phrases: Vec<String> = self
            .packet
            .flags
            .iter()
            .map(|f| phrase(*f, &self.packet))
            .collect();
        let line = format!(
            "Review diff · {place}: {n} file{}, {}",
            if n == 1 { "" } else { "s" },
            phrases.join(", ")
        );
        // Cut between words, never inside one or a bracket (issue 42).
        crate::text::fit_words(&line, 140, crate::text::Brackets::Every)
    }

    /// The common evidence's short count: "1 file, +2 −1".
    pub fn counts(&self) -> String {
        let p = &self.packet;
        let n = p.files.len();
        format!(
            "{n} file{}, +{} −{}",
            if n == 1 { "" } else { "s" },
            p.lines_added,
            p.lines_removed
        )
    }
}

/// The change a grant binds to: the fingerprint the gate sent, else the SHA-256 of the diff.
pub(crate) fn fingerprint(request: &ActionRequest) -> Option<String> {
    let ctx = &request.context;
    ctx.diff_fingerprint.clone().or_else(|| {
        ctx.diff.as_deref().map(|diff| {
            crate::request::canon::lower_hex(&<sha2::Sha256 as sha2::Digest>::digest(
                diff.as_bytes(),
            ))
        })
    })
}

/// A diff is bounded like every other part of a request.
pub(crate) fn check_size(request: &ActionRequest) -> Result<(), crate::request::canon::CanonError> {
    match &request.context.diff {
        Some(diff) if diff.len() > MAX_DIFF_BYTES => {
            Err(crate::request::canon::CanonError::TooLarge {
                what: "the diff",
                size: diff.len(),
                limit: MAX_DIFF_BYTES,
            })
        }
        _ => Ok(()),
    }
}

/// The review `request` needs, if it is an edit (or carries a diff) that needs one.
/// `canonical.diff_fingerprint` is the fingerprint a grant binds to.
pub(crate) fn review(
    request: &ActionRequest,
    canonical: &CanonicalAction,
    facts: &Facts,
    ctx: &Ctx<'_>,
) -> Option<DiffReview> {
    let kind = request.action.kind;
    let edit = matches!(kind, ActionKind::FileWrite | ActionKind::FileDelete);
    let diff = request.context.diff.as_deref();
    if !edit && diff.is_none() {
        return shell_review(request, facts, ctx);
    }
    let mut notes = request.context.diff_notes.clone();
    let parsed = diff.map(parse);
    let mut files: Vec<ParsedFile<'_>> = match &parsed {
        Some(p) => {
            notes.extend(p.notes.iter().cloned());
            p.files.clone()
        }
        None => {
            notes.push("the request carried no diff: only the paths it names are known".to_owned());
            Vec::new()
        }
    };
    if edit {
        // The paths the edit names count even when its diff leaves them out.
        for named in paths_only(kind, canonical, ctx) {
            if !files.iter().any(|f| f.path == named.path) {
                if parsed.is_some() {
                    notes.push(format!("{} is edited but not in the diff", named.path));
                }
                files.push(named);
            }
        }
    }
    let mut flags = flags_of(&files, ctx);
    if parsed.is_none() && edit_weakens_tests(&files, ctx) {
        flags.push(DiffFlag::TestsWeakened);
        flags.sort();
        flags.dedup();
    }
    if !flags.iter().any(|f| *f != DiffFlag::PublicApiChanged) {
        return None;
    }
    for f in files.iter().filter(|f| f.binary) {
        notes.push(format!("binary file: {} (counted, not shown)", f.path));
    }
    let (shown, truncated) = shown_diff(diff.unwrap_or_default());
    if truncated {
        notes.push(format!(
            "the diff shown is cut at {} KiB",
            SHOWN_DIFF_BYTES / 1024
        ));
    }
    let packet = DiffPacket {
        lines_added: count(files.iter().map(|f| f.added.len())),
        lines_removed: count(files.iter().map(|f| f.removed.len())),
        files: files.iter().map(diff_file).collect(),
        flags,
        diff: shown,
        diff_truncated: truncated,
        base_sha: request.context.base_sha.clone(),
        diff_fingerprint: canonical.diff_fingerprint.clone(),
        notes: notes.iter().map(|n| crate::mask::mask_secrets(n)).collect(),
    };
    Some(review_of(packet))
}

/// The review of `packet`: its verdict, asked of the role its flags need.
fn review_of(packet: DiffPacket) -> DiffReview {
    let verdict = verdict_for(&packet);
    let mut review = DiffReview { packet, verdict };
    review.verdict = review.verdict.clone().role(review.role());
    review
}

/// A file known only by its path (no diff names its lines), as shown: relative to the
/// repository, `~/…` under home.
fn named_file(path: &str, change: FileChange, ctx: &Ctx<'_>) -> ParsedFile<'static> {
    ParsedFile {
        path: crate::paths::display(path, &ctx.root, ctx.home),
        change,
        binary: false,
        added: Vec::new(),
        removed: Vec::new(),
    }
}

/// The flags a change seen only by its paths can raise on its own (the line-based ones need
/// the diff; `wide` counts lines too).
const PATH_FLAGS: &[DiffFlag] = &[
    DiffFlag::WorkflowChanged,
    DiffFlag::SecurityChanged,
    DiffFlag::DependencyChanged,
    DiffFlag::LockfileChanged,
    DiffFlag::PolicyPath,
    DiffFlag::TestsDeleted,
];

/// A shell command that writes or deletes a CI, security, dependency or lock file, a path
/// the policy lists, or deletes a test file (`sed -i`, `cp`, `>`, `rm`): a diff review like
/// the same edit through a file tool, so the PR gate counts it. Its diff exists only once it
/// ran: the packet names the files, and says so.
fn shell_review(request: &ActionRequest, facts: &Facts, ctx: &Ctx<'_>) -> Option<DiffReview> {
    if request.action.kind != ActionKind::Shell || facts.changed.is_empty() {
        return None;
    }
    let files: Vec<ParsedFile<'static>> = facts
        .changed
        .iter()
        .map(|(path, access)| {
            let change = if *access == Access::Delete {
                FileChange::Deleted
            } else {
                FileChange::Modified
            };
            named_file(path, change, ctx)
        })
        .collect();
    let mut flags = flags_of(&files, ctx);
    flags.retain(|f| PATH_FLAGS.contains(f));
    if flags.is_empty() {
        return None;
    }
    let notes = request
        .context
        .diff_notes
        .iter()
        .cloned()
        .chain(std::iter::once(
            "changed by a shell command: only the files it names are known before it runs"
                .to_owned(),
        ))
        .map(|n| crate::mask::mask_secrets(&n))
        .collect();
    let packet = DiffPacket {
        lines_added: 0,
        lines_removed: 0,
        files: files.iter().map(diff_file).collect(),
        flags,
        diff: String::new(),
        diff_truncated: false,
        base_sha: request.context.base_sha.clone(),
        diff_fingerprint: None,
        notes,
    };
    Some(review_of(packet))
}

/// Whether the text of an edit that sent no diff (`context.edit`: what it replaces and what
/// it writes) skips or takes out tests, as its diff would show: the lines only the old text
/// has are removed, those only the new text has added. Its lines count for this alone (a
/// Write's whole text is not a wide change).
fn edit_weakens_tests(files: &[ParsedFile<'_>], ctx: &Ctx<'_>) -> bool {
    let Some(edit) = ctx.edit else {
        return false;
    };
    let old: Vec<&str> = edit.old.as_deref().unwrap_or_default().lines().collect();
    let new: Vec<&str> = edit.new.lines().collect();
    let (removed, added) = (only_in(&old, &new), only_in(&new, &old));
    files
        .iter()
        .filter(|f| f.change != FileChange::Deleted)
        .any(|f| {
            let file = ParsedFile {
                path: f.path.clone(),
                change: f.change,
                binary: false,
                added: added.clone(),
                removed: removed.clone(),
            };
            let test_file = ctx
                .policy
                .compiled
                .tests
                .is_match(repo_relative(&f.path, ctx));
            weakens_tests(&file, test_file)
        })
}

/// The lines of `these` that `those` does not hold (as many times as it holds them less).
fn only_in<'a>(these: &[&'a str], those: &[&str]) -> Vec<&'a str> {
    let mut left: Vec<&str> = those.to_vec();
    these
        .iter()
        .filter(|line| match left.iter().position(|l| l == *line) {
            Some(at) => {
                left.swap_remove(at);
                false
            }
            None => true,
        })
        .copied()
        .collect()
}

/// The files of an edit that sent no diff: its paths, relative to the repository.
fn paths_only(
    kind: ActionKind,
    canonical: &CanonicalAction,
    ctx: &Ctx<'_>,
) -> Vec<ParsedFile<'static>> {
    let change = if kind == ActionKind::FileDelete {
        FileChange::Deleted
    } else {
        FileChange::Modified
    };
    canonical
        .paths
        .iter()
        .map(|p| named_file(p, change, ctx))
        .collect()
}

/// Every flag the files raise, in the flags' order.
fn flags_of(files: &[ParsedFile<'_>], ctx: &Ctx<'_>) -> Vec<DiffFlag> {
    let c = &ctx.policy.compiled;
    let limits = &ctx.policy.diff;
    let mut flags = Vec::new();
    for f in files {
        let rel = repo_relative(&f.path, ctx);
        let test_file = c.tests.is_match(rel);
        if c.ci.is_match(rel) {
            flags.extend(crate::diff::ci::flags(&f.added));
        }
        let hits = [
            (c.ci.is_match(rel), DiffFlag::WorkflowChanged),
            (c.security.is_match(rel), DiffFlag::SecurityChanged),
            (c.locks.is_match(rel), DiffFlag::LockfileChanged),
            (
                c.dependency.is_match(rel) && !c.locks.is_match(rel),
                DiffFlag::DependencyChanged,
            ),
            (c.review.is_match(rel), DiffFlag::PolicyPath),
            (
                test_file && f.change == FileChange::Deleted,
                DiffFlag::TestsDeleted,
            ),
            (
                f.change != FileChange::Deleted && weakens_tests(f, test_file),
                DiffFlag::TestsWeakened,
            ),
            (
                !test_file && changes_public_api(f),
                DiffFlag::PublicApiChanged,
            ),
        ];
        flags.extend(hits.iter().filter(|(hit, _)| *hit).map(|(_, flag)| *flag));
    }
    let lines: usize = files.iter().map(|f| f.added.len() + f.removed.len()).sum();
    if files.len() > limits.max_files as usize || lines > limits.max_lines as usize {
        flags.push(DiffFlag::Wide);
    }
    flags.sort();
    flags.dedup();
    flags
}

/// A diff's path relative to the repository root (an absolute one inside it is made so).
fn repo_relative<'a>(path: &'a str, ctx: &Ctx<'_>) -> &'a str {
    if path.starts_with('/') {
        relative_to(path, &ctx.root).unwrap_or(path)
    } else {
        path
    }
}

/// Markers an added line skips a test with (or focuses one, which skips the others). A
/// marker that starts with a letter starts a name: `sys.exit(` holds `xit(` and skips nothing.
const SKIP_MARKERS: &[&str] = &[
    "#[ignore",
    "@Disabled",
    "@Ignore",
    "xit(",
    "xdescribe(",
    "xtest(",
    "xcontext(",
    "fdescribe(",
    "it.skip(",
    "describe.skip(",
    "test.skip(",
    "context.skip(",
    "it.only(",
    "describe.only(",
    "test.only(",
    "it.todo(",
    "test.todo(",
    "pytest.mark.skip",
    "pytest.mark.xfail",
    "pytest.skip(",
    "unittest.skip",
    ".skipTest(",
    "t.Skip(",
    "t.SkipNow(",
];

/// Whether `line` holds `marker` where a word starts (see [`SKIP_MARKERS`]).
fn has_marker(line: &str, marker: &str) -> bool {
    let starts_word = marker.starts_with(|c: char| c.is_ascii_alphanumeric());
    line.match_indices(marker).any(|(at, _)| {
        !starts_word
            || line
                .get(..at)
                .and_then(|before| before.chars().next_back())
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
    })
}

/// How a line starts a test.
const TEST_STARTS: &[&str] = &[
    "#[test]",
    "#[tokio::test",
    "#[rstest",
    "fn test_",
    "def test_",
    "async def test_",
    "@Test",
    "func Test",
    "it(",
    "test(",
];

/// Whether a file's change skips tests, or takes out more tests (anywhere) or assertions
/// (in a test file) than it adds.
fn weakens_tests(f: &ParsedFile<'_>, test_file: bool) -> bool {
    let skips = f
        .added
        .iter()
        .any(|l| SKIP_MARKERS.iter().any(|m| has_marker(l, m)));
    let tests = |lines: &[&str]| {
        lines
            .iter()
            .filter(|l| TEST_STARTS.iter().any(|s| l.trim_start().starts_with(s)))
            .count()
    };
    // An assertion commented out checks nothing: it counts as taken out.
    let asserts = |lines: &[&str]| {
        lines
            .iter()
            .filter(|l| !is_comment(l) && (l.contains("assert") || l.contains("expect(")))
            .count()
    };
    skips
        || tests(&f.removed) > tests(&f.added)
        || (test_file && asserts(&f.removed) > asserts(&f.added))
}

/// Whether a line is a comment (`#`, `//`, `--`, or inside a `/* … */` block).
fn is_comment(line: &str) -> bool {
    let line = line.trim_start();
    ["#", "//", "/*", "*", "--"]
        .iter()
        .any(|start| line.starts_with(start))
        && !line.starts_with("#[")
}

/// How a line declares a public interface.
const PUBLIC_STARTS: &[&str] = &[
    "pub fn ",
    "pub async fn ",
    "pub struct ",
    "pub enum ",
    "pub trait ",
    "pub type ",
    "pub const ",
    "pub mod ",
    "export function ",
    "export async function ",
    "export class ",
    "export const ",
    "export interface ",
    "export type ",
    "export default ",
    "public ",
];

/// Whether a removed line declared a public interface (a signature changed or went away).
fn changes_public_api(f: &ParsedFile<'_>) -> bool {
    f.removed
        .iter()
        .any(|l| PUBLIC_STARTS.iter().any(|s| l.trim_start().starts_with(s)))
}

/// The verdict asking for the review: high risk for CI and security files.
fn verdict_for(packet: &DiffPacket) -> Verdict {
    let high = packet
        .flags
        .iter()
        .any(|f| matches!(f, DiffFlag::WorkflowChanged | DiffFlag::SecurityChanged));
    let risk = if high {
        RiskLevel::High
    } else {
        RiskLevel::Medium
    };
    let phrases: Vec<String> = packet.flags.iter().map(|f| phrase(*f, packet)).collect();
    Verdict::ask(
        "ask.diff_review",
        risk,
        format!("the change needs a diff review: {}", phrases.join(", ")),
    )
}

/// How a flag reads in a summary, naming its first file where it has one.
pub(crate) fn phrase(flag: DiffFlag, packet: &DiffPacket) -> String {
    match flag {
        DiffFlag::WorkflowChanged => "CI workflow changed".to_owned(),
        DiffFlag::CiPrivilegedTrigger => {
            "runs on pull_request_target or workflow_run (secrets and a write token for forks' code)"
                .to_owned()
        }
        DiffFlag::CiChecksOutPrHead => "checks out the pull request's code".to_owned(),
        DiffFlag::CiWritePermissions => "gives the workflow write permissions".to_owned(),
        DiffFlag::CiSecretSentOut => "sends a secret to a host".to_owned(),
        DiffFlag::SecurityChanged => "security configuration changed".to_owned(),
        DiffFlag::DependencyChanged => "dependencies changed".to_owned(),
        DiffFlag::LockfileChanged => "lockfile changed".to_owned(),
        DiffFlag::TestsDeleted => "tests deleted".to_owned(),
        DiffFlag::TestsWeakened => "tests weakened".to_owned(),
        DiffFlag::PublicApiChanged => "public API changed".to_owned(),
        DiffFlag::Wide => format!(
            "wide change (+{} −{})",
            packet.lines_added, packet.lines_removed
        ),
        DiffFlag::PolicyPath => "a path the policy reviews changed".to_owned(),
    }
}

fn diff_file(f: &ParsedFile<'_>) -> DiffFile {
    DiffFile {
        path: f.path.clone(),
        change: f.change,
        added: count(std::iter::once(f.added.len())),
        removed: count(std::iter::once(f.removed.len())),
        binary: f.binary,
    }
}

fn count(lens: impl Iterator<Item = usize>) -> u32 {
    u32::try_from(lens.sum::<usize>()).unwrap_or(u32::MAX)
}

/// The diff as shown: cut at the last whole line within [`SHOWN_DIFF_BYTES`], then secrets
/// masked (only what is shown needs it; a private key block cut short is masked to the end);
/// whether it was cut.
fn shown_diff(diff: &str) -> (String, bool) {
    let (head, cut) = cut_at_line(diff, SHOWN_DIFF_BYTES);
    let masked = crate::mask::mask_secrets(head);
    let (shown, cut_again) = cut_at_line(&masked, SHOWN_DIFF_BYTES);
    (shown.to_owned(), cut || cut_again)
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
