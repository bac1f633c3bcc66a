//! A pending diff approval on the desk (window and browser): its files with +/−, its flags in words, its notes
//! and the diff itself, agent text as text (never markup); a pending PR approval: where it goes
//! and each of the run's diff approvals with its state and reason.
//!
//! Until the service classifies edits as diff approvals, the request is submitted over HTTP as
//! a file write and its stored evidence is then replaced by a diff packet (the fixture below);
//! the window reads it from the service like any pending approval.

use assent_core::{
    Action, ActionKind, ActionRequest, ApprovalEvidence, DiffApprovalRef, DiffApprovalState,
    DiffFile, DiffFlag, DiffPacket, EvidenceDetail, FileChange, PrPacket, ALL_ROLES,
};
use fantoccini::Locator;

use super::common::driver::{click, text_of};
use super::common::ui::Ui;
use super::common::{shell_request, submit_pending, TestService};

const WORKFLOW: &str = ".github/workflows/build.yml";

/// The diff packet of an edit to the CI workflow, as the service builds it.
fn workflow_diff() -> ApprovalEvidence {
    ApprovalEvidence {
        summary: "Review diff · shop: 1 file, CI workflow changed".to_owned(),
        cwd: "/work/shop".to_owned(),
        paths: vec![WORKFLOW.to_owned()],
        detail: EvidenceDetail::Diff(DiffPacket {
            files: vec![DiffFile {
                path: WORKFLOW.to_owned(),
                change: FileChange::Modified,
                added: 2,
                removed: 1,
                binary: false,
            }],
            flags: vec![DiffFlag::WorkflowChanged],
            lines_added: 2,
            lines_removed: 1,
            diff: format!(
                "--- a/{WORKFLOW}\n+++ b/{WORKFLOW}\n@@ -1,3 +1,4 @@\n on: push\n\
                 -    runs-on: ubuntu-22.04\n+    runs-on: self-hosted\n\
                 +    # <img src=x onerror=alert(1)>\n"
            ),
            diff_truncated: false,
            base_sha: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
            diff_fingerprint: None,
            notes: vec!["binary file: logo.png (not shown)".to_owned()],
        }),
        ..ApprovalEvidence::default()
    }
}

/// An edit of the workflow, as the Claude Code gate submits it.
fn workflow_edit() -> ActionRequest {
    let mut request = shell_request("run-diff", "", "/work/shop");
    request.action = Action {
        kind: ActionKind::FileWrite,
        command: None,
        paths: vec![format!("/work/shop/{WORKFLOW}")],
        tool: Some("Edit".to_owned()),
        ..request.action
    };
    request
}

/// Submits `request` over HTTP and stores `evidence` as its approval's.
async fn pending_with(
    service: &TestService,
    request: &ActionRequest,
    evidence: &ApprovalEvidence,
) -> String {
    let id = submit_pending(&service.requester(), request).await;
    let db = service.dir.path().join("assent.db");
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!(
        "sqlite://{}",
        db.display()
    ))
    .await
    .expect("open the service's database");
    sqlx::query(
        "UPDATE approval_requests SET detail = json_set(detail, '$.evidence', json(?)) \
         WHERE id = ?",
    )
    .bind(serde_json::to_string(evidence).expect("json"))
    .bind(&id)
    .execute(&mut conn)
    .await
    .expect("store the diff packet");
    let stored = service.approver().approval(&id, None).await.expect("read");
    assert_eq!(
        stored.approval_type,
        evidence.approval_type(),
        "the service now answers an approval of the packet's type"
    );
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_diff_shows_its_files_flags_and_diff() {
    let service = TestService::start().await;
    let id = pending_with(&service, &workflow_edit(), &workflow_diff()).await;
    let ana = service.person("ana", &ALL_ROLES).await;
    let ui = Ui::on(crate::SHELL, &service, "ana", &ana).await;
    let client = ui.client.clone();

    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{id}']");
    let file = text_of(&client, &format!("{detail} [data-testid=ev-file]")).await;
    assert!(
        file.contains(WORKFLOW) && file.contains("+2 −1"),
        "the file list names the file with its added and removed lines: {file}"
    );
    let flags = text_of(&client, &format!("{detail} [data-testid=ev-flags]")).await;
    assert_eq!(flags, "CI workflow changed", "the flag is a chip in words");
    let notes = text_of(&client, &format!("{detail} [data-testid=ev-notes]")).await;
    assert!(
        notes.contains("logo.png"),
        "what could not be shown is noted: {notes}"
    );
    let diff = text_of(&client, &format!("{detail} [data-testid=ev-diff-text]")).await;
    assert!(
        diff.contains("+    runs-on: self-hosted") && diff.contains("-    runs-on: ubuntu-22.04"),
        "the diff itself is shown: {diff}"
    );
    assert!(
        diff.contains("<img src=x onerror=alert(1)>"),
        "markup in the diff is shown as text: {diff}"
    );
    let added = client
        .find_all(Locator::Css(&format!(
            "{detail} [data-testid=ev-diff-text] .dl.add"
        )))
        .await
        .expect("find added lines");
    assert_eq!(added.len(), 2, "both + lines are styled as additions");
    let images = client
        .find_all(Locator::Css(&format!("{detail} [data-testid=ev-diff] img")))
        .await
        .expect("find images");
    assert!(
        images.is_empty(),
        "the diff's markup never becomes an element"
    );
    ui.screenshot("pending-diff.png");
    client.close().await.expect("end the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_pr_shows_where_it_goes_and_each_diff_approval_state() {
    let service = TestService::start().await;
    let request = shell_request(
        "run-pr",
        "gh pr create --title 'Fix the build'",
        "/work/shop",
    );
    let evidence = ApprovalEvidence {
        summary: "Publish PR · shop".to_owned(),
        cwd: "/work/shop".to_owned(),
        detail: EvidenceDetail::Pr(PrPacket {
            remote: Some("origin".to_owned()),
            branch: Some("fix-build".to_owned()),
            title: Some("Fix the build".to_owned()),
            base_sha: None,
            push: None,
            diff_approvals: vec![
                DiffApprovalRef {
                    approval_id: "d-current".to_owned(),
                    summary: "Review diff · shop: 1 file".to_owned(),
                    state: DiffApprovalState::Current,
                    reason: None,
                },
                DiffApprovalRef {
                    approval_id: "d-stale".to_owned(),
                    summary: "Review diff · shop: 2 files".to_owned(),
                    state: DiffApprovalState::Stale,
                    reason: Some("base commit changed abc123 → def456".to_owned()),
                },
            ],
        }),
        ..ApprovalEvidence::default()
    };
    let id = pending_with(&service, &request, &evidence).await;
    let ana = service.person("ana", &ALL_ROLES).await;
    let ui = Ui::on(crate::SHELL, &service, "ana", &ana).await;
    let client = ui.client.clone();

    click(
        &client,
        &format!("[data-testid=prompt][data-approval-id='{id}']"),
    )
    .await;
    let detail = format!("[data-testid=prompt-detail][data-approval-id='{id}']");
    let target = text_of(&client, &format!("{detail} [data-testid=ev-pr-target]")).await;
    assert_eq!(target, "origin/fix-build", "the PR's remote and branch");
    let title = text_of(&client, &format!("{detail} [data-testid=ev-pr-title]")).await;
    assert_eq!(title, "Fix the build", "the PR's title");
    let stale = text_of(
        &client,
        &format!("{detail} [data-testid=ev-pr-diffs] [data-state=stale]"),
    )
    .await;
    assert!(
        // The state is a badge, upper-cased by the style sheet.
        stale.to_lowercase().contains("stale")
            && stale.contains("base commit changed abc123 → def456"),
        "a stale diff approval says so and why: {stale}"
    );
    let current = text_of(
        &client,
        &format!("{detail} [data-testid=ev-pr-diffs] [data-state=current]"),
    )
    .await;
    assert!(
        current.to_lowercase().contains("approved, current") && current.contains("1 file"),
        "a current diff approval says it still counts: {current}"
    );
    client.close().await.expect("end the session");
}
