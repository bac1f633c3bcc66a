//! The notification lines of a diff or PR approval: what changed, its flags in words, and for a
//! PR how each of the run's diff approvals stands — one short line each, agent text cleaned.

use assent_core::{
    ApprovalEvidence, DiffApprovalRef, DiffApprovalState, DiffFile, DiffFlag, DiffPacket,
    EvidenceDetail, PrPacket, PushPacket,
};

use crate::text::untrusted;

/// Longest line of a packet (the summary, the file list, a diff approval).
const MAX_LINE_CHARS: usize = 120;
/// Files or diff approvals listed before "+N more".
const MAX_ITEMS: usize = 3;

/// The body lines for a typed packet, or `None` for a tool approval (its command says it).
pub fn packet_lines(evidence: &ApprovalEvidence) -> Option<Vec<String>> {
    let mut lines = vec![untrusted(&evidence.summary, MAX_LINE_CHARS)];
    match &evidence.detail {
        // A credential prompt says what it needs in its question line (prompt.rs).
        EvidenceDetail::Tool
        | EvidenceDetail::Credential(_)
        | EvidenceDetail::PreRun(_)
        | EvidenceDetail::Fleet(_) => return None,
        EvidenceDetail::Diff(packet) => lines.extend(diff_lines(packet)),
        EvidenceDetail::Pr(packet) => lines.extend(pr_lines(packet)),
        // The summary names the rule, the finding, the lifetime and the repo: then the command
        // and the agent's reason.
        EvidenceDetail::Exception(packet) => {
            lines.push(format!(
                "$ {}",
                untrusted(&packet.covered_command, MAX_LINE_CHARS)
            ));
            lines.push(untrusted(
                &format!("why: {}", packet.reason),
                MAX_LINE_CHARS,
            ));
        }
    }
    Some(lines)
}

/// "files: .github/workflows/build.yml +3 −1", then "flags: CI workflow changed".
fn diff_lines(packet: &DiffPacket) -> Vec<String> {
    let mut lines = Vec::new();
    if !packet.files.is_empty() {
        let files: Vec<String> = packet.files.iter().map(file_item).collect();
        lines.push(untrusted(
            &format!("files: {}", with_more(&files, packet.files.len())),
            MAX_LINE_CHARS,
        ));
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
    lines.extend(head.map(|head| untrusted(&head, MAX_LINE_CHARS)));
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
            .map(|d| untrusted(&diff_approval_item(d), MAX_LINE_CHARS)),
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
                .map(|why| untrusted(&format!("commits: unknown ({why})"), MAX_LINE_CHARS)),
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
    lines.push(untrusted(&format!("{count}{listed}"), MAX_LINE_CHARS));
    lines.extend(
        commits
            .diffstat
            .as_deref()
            .map(|stat| untrusted(stat, MAX_LINE_CHARS)),
    );
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
fn with_more(shown: &[String], total: usize) -> String {
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
