//! Drill 2 the way an agent works: edit a CI workflow (a diff review), commit it, open the
//! PR. The PR request carries the commits HEAD descends from, so the review made before the
//! commit still counts, and the PR is asked — not blocked as stale. Real gate, real
//! `assent serve`, a real git repository.

use crate::gate_support::git::GitRepo;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::{json, Value};

const WORKFLOW: &str = ".github/workflows/build.yml";

fn pre(repo: &GitRepo, id: &str, tool: &str, input: Value) -> Value {
    payload("PreToolUse", "sess-pr", id, tool, input, &repo.root)
}

/// Commits a workflow, has the agent edit it through the gate, and approves that diff review
/// once: the review, and the commit it was made at.
fn reviewed_ci_edit(service: &Service, repo: &GitRepo) -> (assent_protocol::Approval, String) {
    repo.write(WORKFLOW, "on: push\njobs: {}\n");
    let reviewed_at = repo.commit("ci");
    let edit = json!({
        "file_path": repo.root.join(WORKFLOW),
        "old_string": "on: push",
        "new_string": "on: [push, pull_request]",
    });
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre(repo, "e1", "Edit", edit),
    );
    let review = wait_pending(service, 1).remove(0);
    assert_eq!(
        review.approval_type,
        assent_core::ApprovalType::Diff,
        "a CI edit is a diff review"
    );
    approve(service, &review.approval_id, ScopeKind::Once);
    assert_eq!(finish(child).decision(), "allow", "the reviewed edit runs");
    (review, reviewed_at)
}

#[test]
fn a_reviewed_ci_change_committed_since_lets_the_pr_be_asked() {
    let service = Service::start();
    let repo = GitRepo::new();
    let (review, reviewed_at) = reviewed_ci_edit(&service, &repo);

    // The agent's edit lands on disk and is committed: HEAD moves past the reviewed commit.
    repo.write(WORKFLOW, "on: [push, pull_request]\njobs: {}\n");
    let committed = repo.commit("run CI on PRs");
    assert_ne!(committed, reviewed_at, "HEAD moved");

    let pr = pre(
        &repo,
        "p1",
        "Bash",
        json!({ "command": "gh pr create --title 'Run CI on PRs'" }),
    );
    let child = spawn_gate(&service.url, &service.requester, &["--wait", "30"], &pr);
    let prompt = wait_pending(&service, 1).remove(0);
    assert_eq!(
        prompt.approval_type,
        assent_core::ApprovalType::Pr,
        "the PR is its own approval, asked — not blocked as unreviewed"
    );
    let assent_core::EvidenceDetail::Pr(packet) = &prompt.evidence.detail else {
        panic!("a PR packet: {:?}", prompt.evidence.detail);
    };
    assert_eq!(
        packet
            .diff_approvals
            .iter()
            .map(|d| (d.approval_id.as_str(), d.state))
            .collect::<Vec<_>>(),
        vec![(
            review.approval_id.as_str(),
            assent_core::DiffApprovalState::Current
        )],
        "the review made before the commit is current: its commit is in HEAD's history"
    );
    approve(&service, &prompt.approval_id, ScopeKind::Once);
    assert_eq!(
        finish(child).decision(),
        "allow",
        "and a maintainer's approval publishes"
    );
}

#[test]
fn a_branch_that_left_the_reviewed_commit_behind_blocks_the_pr() {
    let service = Service::start();
    let repo = GitRepo::new();
    let (review, _) = reviewed_ci_edit(&service, &repo);

    // A new history that does not contain the reviewed commit (an orphan branch).
    git::git(&repo.root, &["checkout", "-q", "--orphan", "other"]);
    repo.write(WORKFLOW, "on: [push, pull_request]\njobs: {}\n");
    repo.commit("elsewhere");
    let pr = pre(
        &repo,
        "p1",
        "Bash",
        json!({ "command": "gh pr create --title 'Run CI on PRs'" }),
    );
    let ran = gate(&service.url, &service.requester, &["--wait", "30"], &pr);
    assert_eq!(
        ran.decision(),
        "deny",
        "what is published is not what was reviewed: blocked at once"
    );
    assert!(
        ran.reason().contains("stale") && ran.reason().contains(&review.approval_id),
        "naming the stale review: {}",
        ran.reason()
    );
}
