use super::*;
use crate::evidence::{DiffFile, FileChange};

fn packet(files: &[&str], flags: &[DiffFlag], base: &str, fingerprint: &str) -> DiffPacket {
    DiffPacket {
        files: files
            .iter()
            .map(|p| DiffFile {
                path: (*p).to_owned(),
                change: FileChange::Modified,
                added: 1,
                removed: 1,
                binary: false,
            })
            .collect(),
        flags: flags.to_vec(),
        base_sha: Some(base.to_owned()),
        diff_fingerprint: Some(fingerprint.to_owned()),
        ..DiffPacket::default()
    }
}

const CI: &[DiffFlag] = &[DiffFlag::WorkflowChanged];
const WF: &str = ".github/workflows/build.yml";

/// The review `id` (`ap-N` is asked at second N).
fn reviewed<'a>(id: &'a str, status: ApprovalStatus, p: &'a DiffPacket) -> DiffReviewed<'a> {
    let second: u32 = id.trim_start_matches("ap-").parse().unwrap();
    DiffReviewed {
        approval_id: id,
        summary: "Review diff · shop: 1 file, CI workflow changed",
        status,
        packet: p,
        created_at: chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 3, 1, 9, 0, second)
            .unwrap(),
    }
}

/// A PR request at `sha` carrying no ancestors.
fn at(sha: Option<&str>) -> PrBase<'_> {
    PrBase {
        sha,
        ancestors: &[],
    }
}

fn states(gate: &PrGate) -> Vec<(String, DiffApprovalState)> {
    gate.diff_approvals
        .iter()
        .map(|r| (r.approval_id.clone(), r.state))
        .collect()
}

#[test]
fn drill_2_a_ci_change_gates_the_pr_until_its_review_is_current() {
    let p = packet(&[WF], CI, "abc123", "f1");
    let pending = pr_gate(
        &[reviewed("ap-1", ApprovalStatus::Requested, &p)],
        at(Some("abc123")),
    );
    assert_eq!(
        pending.blocked.as_deref(),
        Some("publishing needs the diff review of .github/workflows/build.yml (approval ap-1) approved first: still pending"),
        "a pending review blocks the PR, named"
    );
    let approved = pr_gate(
        &[reviewed("ap-1", ApprovalStatus::ApprovedOnce, &p)],
        at(Some("abc123")),
    );
    assert_eq!(
        approved.blocked, None,
        "an approved review on the same base lets the PR be asked"
    );
    assert_eq!(
        states(&approved),
        vec![("ap-1".to_owned(), DiffApprovalState::Current)],
        "listed current"
    );
    let moved = pr_gate(
        &[reviewed("ap-1", ApprovalStatus::ApprovedOnce, &p)],
        at(Some("def456")),
    );
    assert_eq!(
        states(&moved),
        vec![("ap-1".to_owned(), DiffApprovalState::Stale)],
        "another base commit makes it stale"
    );
    assert_eq!(
        moved.diff_approvals[0].reason.as_deref(),
        Some("base commit changed abc123 → def456"),
        "saying which"
    );
    assert!(
        moved
            .blocked
            .as_deref()
            .is_some_and(|b| b.contains("stale: base commit changed abc123 → def456")),
        "and blocks: {:?}",
        moved.blocked
    );
    let denied = pr_gate(
        &[reviewed("ap-1", ApprovalStatus::Denied, &p)],
        at(Some("abc123")),
    );
    assert!(
        denied
            .blocked
            .as_deref()
            .is_some_and(|b| b.ends_with("it was denied or timed out")),
        "a denied review never lets the PR through"
    );
}

#[test]
fn only_ci_security_and_dependency_reviews_gate_a_pr() {
    let wide = packet(&["src/gen.rs"], &[DiffFlag::Wide], "abc", "f1");
    let tests = packet(&["tests/a.rs"], &[DiffFlag::TestsDeleted], "abc", "f2");
    let gate = pr_gate(
        &[
            reviewed("ap-1", ApprovalStatus::Requested, &wide),
            reviewed("ap-2", ApprovalStatus::Requested, &tests),
        ],
        at(Some("abc")),
    );
    assert_eq!(
        gate,
        PrGate {
            diff_approvals: vec![],
            blocked: None
        },
        "a wide or test diff is reviewed on its own, the PR does not wait for it"
    );
    for flag in [
        DiffFlag::SecurityChanged,
        DiffFlag::DependencyChanged,
        DiffFlag::LockfileChanged,
    ] {
        let p = packet(&["x"], &[flag], "abc", "f");
        let gate = pr_gate(
            &[reviewed("ap-3", ApprovalStatus::Requested, &p)],
            at(Some("abc")),
        );
        assert!(gate.blocked.is_some(), "{flag:?} gates the PR");
    }
}

#[test]
fn a_later_different_diff_of_the_same_file_stands_in_for_the_earlier_one() {
    let first = packet(&[WF], CI, "abc", "f1");
    let second = packet(&[WF], CI, "abc", "f2");
    let gate = pr_gate(
        &[
            reviewed("ap-1", ApprovalStatus::ApprovedOnce, &first),
            reviewed("ap-2", ApprovalStatus::Requested, &second),
        ],
        at(Some("abc")),
    );
    assert_eq!(
        states(&gate),
        vec![("ap-2".to_owned(), DiffApprovalState::Pending)],
        "the earlier review no longer describes the file"
    );
    assert!(
        gate.blocked.as_deref().is_some_and(|b| b.contains("ap-2")),
        "the PR waits for the later diff's review"
    );
    let both = pr_gate(
        &[
            reviewed("ap-1", ApprovalStatus::ApprovedOnce, &first),
            reviewed("ap-2", ApprovalStatus::ApprovedOnce, &second),
        ],
        at(Some("abc")),
    );
    assert_eq!(
        both.blocked, None,
        "once the later diff is reviewed the PR may be asked"
    );
    let partly = packet(
        &[WF, "Cargo.toml"],
        &[DiffFlag::WorkflowChanged, DiffFlag::DependencyChanged],
        "abc",
        "f3",
    );
    let other = packet(&["Cargo.toml"], &[DiffFlag::DependencyChanged], "abc", "f4");
    let gate = pr_gate(
        &[
            reviewed("ap-1", ApprovalStatus::Requested, &partly),
            reviewed("ap-2", ApprovalStatus::ApprovedOnce, &other),
        ],
        at(Some("abc")),
    );
    assert!(
        gate.blocked.as_deref().is_some_and(|b| b.contains("ap-1")),
        "a later diff of only some of its files does not replace it: {gate:?}"
    );
    let at_once = pr_gate(
        &[
            reviewed("ap-2", ApprovalStatus::Requested, &first),
            reviewed("ap-2", ApprovalStatus::ApprovedOnce, &second),
        ],
        at(Some("abc")),
    );
    assert_eq!(
        at_once.diff_approvals.len(),
        2,
        "asked at the same instant, neither replaces the other"
    );
    assert!(at_once.blocked.is_some(), "so both must be approved");
    let same = pr_gate(
        &[
            reviewed("ap-1", ApprovalStatus::ApprovedOnce, &first),
            reviewed("ap-2", ApprovalStatus::Requested, &first.clone()),
        ],
        at(Some("abc")),
    );
    assert_eq!(
        same.diff_approvals.len(),
        2,
        "the same diff again replaces nothing"
    );
}

#[test]
fn a_review_the_agent_committed_since_is_still_current_for_the_pr() {
    let p = packet(&[WF], CI, "abc123", "f1");
    let review = [reviewed("ap-1", ApprovalStatus::ApprovedOnce, &p)];
    let history = [
        "def456".to_owned(),
        "abc123".to_owned(),
        "0ld000".to_owned(),
    ];
    let committed = pr_gate(
        &review,
        PrBase {
            sha: Some("def456"),
            ancestors: &history,
        },
    );
    assert_eq!(
        (committed.blocked.as_deref(), states(&committed)),
        (None, vec![("ap-1".to_owned(), DiffApprovalState::Current)]),
        "edit at abc123, commit → HEAD def456, then the PR: the reviewed change is in what is \
         published, so the review counts (drill 2's usual path)"
    );
    let rebased = ["fff999".to_owned(), "eee888".to_owned()];
    let elsewhere = pr_gate(
        &review,
        PrBase {
            sha: Some("fff999"),
            ancestors: &rebased,
        },
    );
    assert_eq!(
        states(&elsewhere),
        vec![("ap-1".to_owned(), DiffApprovalState::Stale)],
        "a HEAD that does not descend from the reviewed commit (rebased, reset) makes it stale"
    );
    let none = pr_gate(&review, at(None));
    assert!(
        none.blocked.is_some(),
        "a PR request that knows no commit does not inherit a review made at one"
    );
}
