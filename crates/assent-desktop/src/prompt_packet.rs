//! The notification lines of a diff or PR approval: what changed, its flags in words, and for a
//! PR how each of the run's diff approvals stands — one short line each, agent text cleaned.

use assent_core::{
    ApprovalEvidence, DiffApprovalRef, DiffApprovalState, DiffFile, DiffFlag, DiffPacket,
    EvidenceDetail, PrPacket,
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
