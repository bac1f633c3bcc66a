//! Drill 2 through the service: an agent edits a CI workflow (a diff approval for a repo
//! maintainer), and publishing waits until that review is approved and current.

use crate::common::{maven, Service};
use reqwest::StatusCode;
use serde_json::{json, Value};

const WORKFLOW: &str = ".github/workflows/build.yml";

/// A unified diff of one file.
fn diff_of(path: &str, removed: &[&str], added: &[&str]) -> String {
    let mut out = format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{} +1,{} @@\n",
        removed.len(),
        added.len()
    );
    for l in removed {
        out.push_str(&format!("-{l}\n"));
    }
    for l in added {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

/// An edit of `path` in run `run` on `base`, carrying `diff`.
fn edit(run: &str, kind: &str, path: &str, diff: &str, base: &str) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": kind, "tool": "Edit", "cwd": "/home/dev/shop",
                   "paths": [format!("/home/dev/shop/{path}")]},
        "context": {"repo": "/home/dev/shop", "base_sha": base, "diff": diff,
                    "verification_status": "cargo test: 12 passed"},
        "reason": "fix the build"
    })
}

/// `gh pr create` in run `run` on `base`.
fn pr_create(run: &str, base: &str) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": "gh pr create --title 'Fix CI' --head fix-ci",
                   "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop", "base_sha": base},
        "reason": "publish the fix"
    })
}

fn workflow_diff() -> String {
    diff_of(
        WORKFLOW,
        &["on: [push]"],
        &["on: [push, pull_request]", "permissions: write-all"],
    )
}

async fn approve_once(svc: &Service, id: &str) -> (StatusCode, Value) {
    svc.decide(
        id,
        &json!({"decision":"approve","scope":"once","expires_in_seconds":600}),
    )
    .await
}

#[tokio::test]
async fn drill_2_publishing_waits_for_the_ci_diff_review() {
    let svc = Service::start().await;
    let run = "r-ci";
    let asked = svc
        .submit(&edit(
            run,
            "file_write",
            WORKFLOW,
            &workflow_diff(),
            "abc123",
        ))
        .await;
    assert_eq!(
        asked["status"], "pending",
        "a CI workflow edit is asked: {asked}"
    );
    assert_eq!(
        asked["required_role"], "repo_maintainer",
        "by a repo maintainer"
    );
    let diff_id = asked["approval_id"].as_str().unwrap().to_owned();
    let diff = svc.approval(&diff_id).await;
    assert_eq!(
        diff["approval_type"], "diff",
        "it is a diff approval: {diff}"
    );
    assert_eq!(
        diff["evidence"]["type"], "diff",
        "its evidence is the diff packet"
    );
    assert_eq!(
        diff["evidence"]["flags"],
        json!(["workflow_changed", "ci_write_permissions"]),
        "flagged as a workflow change, and its write-all as a risk of its own"
    );
    assert_eq!(
        diff["evidence"]["files"][0]["path"], WORKFLOW,
        "naming the file"
    );
    assert_eq!(
        (
            diff["evidence"]["lines_added"].as_u64(),
            diff["evidence"]["lines_removed"].as_u64()
        ),
        (Some(2), Some(1)),
        "with its +/- counts"
    );
    assert_eq!(
        diff["evidence"]["base_sha"], "abc123",
        "bound to its base commit"
    );
    assert_eq!(
        diff["evidence"]["summary"],
        "Review diff · shop: 1 file, CI workflow changed, gives the workflow write permissions",
        "the notification line"
    );
    assert_eq!(
        diff["evidence"]["verification_status"], "cargo test: 12 passed",
        "the agent's verification is shown"
    );
    assert_eq!(
        diff["recommendation"]["decision"], "deny",
        "write-all for a workflow is not recommended for approval: {}",
        diff["recommendation"]
    );
    assert!(
        diff["recommendation"]["text"]
            .as_str()
            .unwrap()
            .contains("permissions: contents: read"),
        "the recommendation says what would make it safe: {}",
        diff["recommendation"]
    );

    let early = svc.submit(&pr_create(run, "abc123")).await;
    assert_eq!(
        early["status"], "blocked",
        "the PR is not asked before the review: {early}"
    );
    assert_eq!(
        early["reasons"][0],
        format!("publishing needs the diff review of {WORKFLOW} (approval {diff_id}) approved first: still pending"),
        "the block names the missing review"
    );
    assert_eq!(early["rule"], "block.pr_unreviewed", "and its rule");

    let (status, approved) = approve_once(&svc, &diff_id).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the maintainer approves the diff: {approved}"
    );

    let asked_pr = svc.submit(&pr_create(run, "abc123")).await;
    assert_eq!(
        asked_pr["status"], "pending",
        "with the review current the PR is asked: {asked_pr}"
    );
    assert_eq!(
        asked_pr["required_role"], "repo_maintainer",
        "a PR needs a repo maintainer"
    );
    let pr_id = asked_pr["approval_id"].as_str().unwrap().to_owned();
    let pr = svc.approval(&pr_id).await;
    assert_eq!(
        pr["approval_type"], "pr",
        "a PR approval, separate from the edit: {pr}"
    );
    assert_eq!(
        pr["evidence"]["type"], "pr",
        "its evidence is the PR packet"
    );
    assert_eq!(
        pr["evidence"]["title"], "Fix CI",
        "naming what it publishes"
    );
    assert_eq!(pr["evidence"]["branch"], "fix-ci", "and the branch");
    assert_eq!(
        pr["evidence"]["diff_approvals"],
        json!([{"approval_id": diff_id, "summary": "Review diff · shop: 1 file, CI workflow changed, gives the workflow write permissions", "state": "current"}]),
        "listing the diff review it depends on"
    );

    let moved = svc.submit(&pr_create(run, "def456")).await;
    assert_eq!(
        moved["status"], "blocked",
        "a new base commit makes the review stale: {moved}"
    );
    assert_eq!(
        moved["reasons"][0],
        format!("publishing needs the diff review of {WORKFLOW} (approval {diff_id}) approved first: stale: base commit changed abc123 → def456"),
        "the block names the stale review and why"
    );

    // A moment later the agent changes the workflow again, differently.
    svc.clock.advance(chrono::Duration::seconds(5));
    let again = diff_of(
        WORKFLOW,
        &["on: [push]"],
        &["on: [push, pull_request_target]"],
    );
    let second = svc
        .submit(&edit(run, "file_write", WORKFLOW, &again, "abc123"))
        .await;
    let second_id = second["approval_id"].as_str().unwrap().to_owned();
    assert_ne!(
        second_id, diff_id,
        "a different diff of the same file is its own prompt"
    );
    let (status, refused) = approve_once(&svc, &pr_id).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "the PR is never approved over an unreviewed diff: {refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("approval {second_id}")) && message.ends_with("still pending"),
        "the refusal names the review that replaced the approved one: {message}"
    );
    assert_eq!(
        svc.approval(&pr_id).await["status"],
        "requested",
        "the PR stays pending"
    );
    let (status, _) = approve_once(&svc, &second_id).await;
    assert_eq!(status, StatusCode::OK, "the new diff is reviewed");
    let (status, published) = approve_once(&svc, &pr_id).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "now the PR may be approved: {published}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn test_deleting_and_wide_diffs_are_diff_approvals_and_small_edits_are_not() {
    let svc = Service::start().await;
    let deleted = "diff --git a/tests/pay_test.rs b/tests/pay_test.rs\ndeleted file mode 100644\n\
        --- a/tests/pay_test.rs\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#[test]\n-fn pays() {}\n";
    let answer = svc
        .submit(&edit(
            "r-t",
            "file_delete",
            "tests/pay_test.rs",
            deleted,
            "abc",
        ))
        .await;
    let tests = svc.approval(answer["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        tests["approval_type"], "diff",
        "deleting a test file is reviewed: {tests}"
    );
    assert_eq!(
        tests["evidence"]["flags"],
        json!(["tests_deleted"]),
        "flagged"
    );
    assert_eq!(
        tests["evidence"]["files"][0]["change"], "deleted",
        "the file is shown deleted"
    );

    let lines: Vec<String> = (0..600)
        .map(|i| format!("const L{i}: u32 = {i};"))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let wide = diff_of("src/gen.rs", &[], &lines);
    let answer = svc
        .submit(&edit("r-t", "file_write", "src/gen.rs", &wide, "abc"))
        .await;
    assert_eq!(
        answer["status"], "pending",
        "a wide edit is asked: {answer}"
    );
    let wide = svc.approval(answer["approval_id"].as_str().unwrap()).await;
    assert_eq!(wide["evidence"]["flags"], json!(["wide"]), "flagged wide");

    let small = diff_of("src/lib.rs", &["let x = 1;"], &["let x = 2;"]);
    let answer = svc
        .submit(&edit("r-t", "file_write", "src/lib.rs", &small, "abc"))
        .await;
    assert_eq!(
        answer["status"], "allowed",
        "a small source edit stays auto: {answer}"
    );

    svc.submit(&maven("r-t")).await;
    let (status, list) = svc.get("/v1/approvals?status=pending", &svc.approver).await;
    assert_eq!(status, StatusCode::OK, "the approver lists prompts");
    let approvals = list["approvals"].as_array().unwrap();
    assert_eq!(
        approvals.len(),
        3,
        "two diff reviews and a tool prompt: {list}"
    );
    for a in approvals {
        assert_eq!(
            a["approval_type"], a["evidence"]["type"],
            "approval_type on the wire is the evidence's type: {a}"
        );
    }
    assert!(
        approvals.iter().any(|a| a["approval_type"] == "tool"),
        "maven stays a tool approval"
    );
    svc.stop().await;
}

#[tokio::test]
async fn equal_diffs_batch_different_diffs_do_not_and_kind_pr_is_a_pr_approval() {
    let svc = Service::start().await;
    let first = svc
        .submit(&edit(
            "r-b",
            "file_write",
            WORKFLOW,
            &workflow_diff(),
            "abc",
        ))
        .await;
    let same = svc
        .submit(&edit(
            "r-b",
            "file_write",
            WORKFLOW,
            &workflow_diff(),
            "abc",
        ))
        .await;
    assert_eq!(
        first["approval_id"], same["approval_id"],
        "the same diff asked twice is one prompt"
    );
    assert_eq!(
        svc.approval(first["approval_id"].as_str().unwrap()).await["count"],
        2,
        "with two waiting"
    );
    let other = diff_of(WORKFLOW, &["on: [push]"], &["on: [workflow_dispatch]"]);
    let different = svc
        .submit(&edit("r-b", "file_write", WORKFLOW, &other, "abc"))
        .await;
    assert_ne!(
        first["approval_id"], different["approval_id"],
        "a different diff never joins that prompt"
    );

    let pr = json!({
        "run_id": "r-clean", "task_id": "task-1", "requested_by": "agent",
        "action": {"kind": "pr", "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop", "base_sha": "abc"},
    });
    let answer = svc.submit(&pr).await;
    assert_eq!(
        answer["status"], "pending",
        "a run without CI changes asks its PR as usual: {answer}"
    );
    let pr = svc.approval(answer["approval_id"].as_str().unwrap()).await;
    assert_eq!(pr["approval_type"], "pr", "kind pr is a PR approval");
    assert_eq!(
        pr["evidence"]["diff_approvals"],
        json!([]),
        "depending on no diff review"
    );
    svc.stop().await;
}

/// A shell command in run `run` on `base`.
fn shell_on(run: &str, command: &str, base: &str) -> Value {
    json!({
        "run_id": run,
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": command, "cwd": "/home/dev/shop"},
        "context": {"repo": "/home/dev/shop", "repo_trust": "trusted", "base_sha": base},
        "reason": "fix the build"
    })
}

#[tokio::test]
async fn a_ci_file_changed_by_a_shell_command_is_reviewed_before_publishing() {
    let svc = Service::start().await;
    let run = "r-sed";
    let sed = format!("sed -i 's/push]/push, pull_request]/' {WORKFLOW}");
    let asked = svc.submit(&shell_on(run, &sed, "abc123")).await;
    assert_eq!(asked["status"], "pending", "a CI edit is asked: {asked}");
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let review = svc.approval(&id).await;
    assert_eq!(
        review["approval_type"], "diff",
        "a CI file changed with sed is a diff review, like the same edit through a file tool: {review}"
    );
    assert_eq!(
        review["evidence"]["flags"],
        json!(["workflow_changed"]),
        "{review}"
    );
    assert_eq!(
        review["evidence"]["files"][0]["path"], WORKFLOW,
        "the packet names the file the command changes: {review}"
    );
    assert_eq!(
        review["evidence"]["command_line"], sed,
        "the reviewer sees the command itself (there is no diff before it runs): {review}"
    );
    assert!(
        review["evidence"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("changed by a shell command")),
        "the packet says why no diff is shown: {review}"
    );
    assert_eq!(
        review["required_role"], "repo_maintainer",
        "reviewed by a repo maintainer"
    );

    let blocked = svc.submit(&pr_create(run, "abc123")).await;
    assert_eq!(
        blocked["status"], "blocked",
        "publishing waits for the shell change's review: {blocked}"
    );
    let why = blocked["reasons"][0].as_str().unwrap();
    assert!(
        why.contains(WORKFLOW) && why.contains(&id) && why.contains("still pending"),
        "the reason names the file and the review: {why}"
    );

    let (status, _) = approve_once(&svc, &id).await;
    assert_eq!(status, StatusCode::OK, "a maintainer approves the command");
    let asked = svc.submit(&pr_create(run, "abc123")).await;
    assert_eq!(asked["status"], "pending", "then the PR is asked: {asked}");
    let pr = svc.approval(asked["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        pr["evidence"]["diff_approvals"][0]["approval_id"], id,
        "the PR packet lists the shell change's review: {pr}"
    );
    assert_eq!(
        pr["evidence"]["diff_approvals"][0]["state"], "current",
        "{pr}"
    );

    let other = svc
        .submit(&shell_on("r-plain", "sed -i s/a/b/ src/lib.rs", "abc123"))
        .await;
    assert_eq!(
        other["status"], "allowed",
        "a shell edit of an ordinary source file stays what the policy says: {other}"
    );
    svc.stop().await;
}
