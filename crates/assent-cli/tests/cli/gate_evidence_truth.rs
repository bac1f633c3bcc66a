//! The evidence is the action, whole and true (issue 42 §1), the way an agent meets it: the
//! real gate reads the real repository, the real `assent serve` opens the prompt, and what a
//! person reads is checked there — a force push named as one with the commits it sends, a
//! `sh -c` line shown whole with its riskiest step first, a CI change's risks each named.

use crate::gate_support::git::{git, GitRepo};
use crate::gate_support::*;
use assent_core::{ApprovalType, DiffFlag, EvidenceDetail};
use serde_json::{json, Value};

fn pre(repo: &GitRepo, id: &str, tool: &str, input: Value) -> Value {
    payload("PreToolUse", "sess-truth", id, tool, input, &repo.root)
}

/// `repo` with a bare `origin` that has `main` as it is now.
fn with_origin(repo: &GitRepo) {
    let bare = repo.tmp.path().join("origin.git");
    git(
        repo.tmp.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    git(
        &repo.root,
        &["remote", "add", "origin", bare.to_str().unwrap()],
    );
    git(&repo.root, &["push", "-q", "origin", "main"]);
    git(&repo.root, &["fetch", "-q", "origin"]);
}

#[test]
fn a_force_push_to_main_is_named_with_its_commits_and_not_recommended() {
    let service = Service::start();
    let repo = GitRepo::new();
    with_origin(&repo);
    repo.write("src/cart.rs", "pub fn total() -> u32 { 2 }\n");
    repo.commit("add the checkout page");
    repo.write("src/pay.rs", "pub fn pay() {}\n");
    repo.commit("fix the cart total");

    let push = pre(
        &repo,
        "p1",
        "Bash",
        json!({ "command": "git push --force origin main" }),
    );
    let child = spawn_gate(&service.url, &service.requester, &["--wait", "30"], &push);
    let prompt = wait_pending(&service, 1).remove(0);
    assert_eq!(prompt.approval_type, ApprovalType::Pr, "a push publishes");
    let summary = &prompt.evidence.summary;
    assert!(
        summary.starts_with("Force-push main (the default branch) to origin: 2 commits")
            && !summary.contains("pull request"),
        "a push is named as a push, with force, the branch and the commits the gate counted: \
         {summary}"
    );
    assert!(
        summary.ends_with("· shop"),
        "the place is the repository's name, not its path: {summary}"
    );
    let EvidenceDetail::Pr(packet) = &prompt.evidence.detail else {
        panic!("a PR packet: {:?}", prompt.evidence.detail);
    };
    let sent = packet
        .push
        .as_ref()
        .and_then(|p| p.commits.as_ref())
        .expect("the gate read the commits from the repository");
    let subjects: Vec<&str> = sent.commits.iter().map(|c| c.subject.as_str()).collect();
    assert_eq!(
        subjects,
        ["fix the cart total", "add the checkout page"],
        "the commits origin lacks, newest first, as git has them"
    );
    assert!(
        sent.diffstat
            .as_deref()
            .is_some_and(|s| s.starts_with("2 files changed")),
        "the diffstat is the repository's: {:?}",
        sent.diffstat
    );
    assert_eq!(
        prompt.recommendation.decision, "deny",
        "a force push to the default branch is never recommended for approval: {}",
        prompt.recommendation.text
    );
    assert!(
        prompt.recommendation.text.contains("new branch"),
        "the advice says what would be safe instead: {}",
        prompt.recommendation.text
    );
    deny(&service, &prompt.approval_id, "open a pull request");
    assert_eq!(
        finish(child).decision(),
        "deny",
        "the denial reaches the agent"
    );
}

#[test]
fn a_sh_c_line_is_shown_whole_with_its_riskiest_step_first() {
    let service = Service::start();
    let repo = GitRepo::new();
    let line = "sh -c \"ls -la; rm -rf ../../.config\"";
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre(&repo, "s1", "Bash", json!({ "command": line })),
    );
    let prompt = wait_pending(&service, 1).remove(0);
    assert_eq!(
        prompt.evidence.command_line.as_deref(),
        Some(line),
        "the line shown is the whole line as it will run, not its first step"
    );
    let steps: Vec<&str> = prompt
        .evidence
        .steps
        .iter()
        .map(|s| s.line.as_str())
        .collect();
    assert_eq!(
        steps,
        ["rm -rf ../../.config", "ls -la"],
        "each step is listed, the delete first"
    );
    deny(&service, &prompt.approval_id, "no");
    assert_eq!(finish(child).decision(), "deny", "nothing ran");
}

const WORKFLOW: &str = ".github/workflows/release.yml";

#[test]
fn a_workflow_that_hands_out_secrets_names_each_risk_and_is_advised_against() {
    let service = Service::start();
    let repo = GitRepo::new();
    repo.write(
        WORKFLOW,
        "on: pull_request\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n",
    );
    repo.commit("ci");
    let edit = json!({
        "file_path": repo.root.join(WORKFLOW),
        "old_string": "on: pull_request\n",
        "new_string": "on: pull_request_target\npermissions: write-all\n",
    });
    let child = spawn_gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre(&repo, "e1", "Edit", edit),
    );
    let prompt = wait_pending(&service, 1).remove(0);
    let EvidenceDetail::Diff(packet) = &prompt.evidence.detail else {
        panic!("a diff packet: {:?}", prompt.evidence.detail);
    };
    for flag in [
        DiffFlag::WorkflowChanged,
        DiffFlag::CiPrivilegedTrigger,
        DiffFlag::CiWritePermissions,
    ] {
        assert!(
            packet.flags.contains(&flag),
            "{flag:?} is a risk flag of its own: {:?}",
            packet.flags
        );
    }
    assert_eq!(
        prompt.recommendation.decision, "deny",
        "a workflow giving forks' code write access is not recommended for approval: {}",
        prompt.recommendation.text
    );
    assert!(
        prompt.recommendation.text.contains("`pull_request`"),
        "the advice says what would make it safe: {}",
        prompt.recommendation.text
    );
    deny(&service, &prompt.approval_id, "keep pull_request");
    assert_eq!(finish(child).decision(), "deny", "the edit is refused");
}
