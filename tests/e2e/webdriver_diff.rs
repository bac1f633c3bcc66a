//! A pending diff approval in the window: its files with +/−, its flags in words, its notes
//! and the diff itself, agent text as text (never markup).
//!
//! Until the service classifies edits as diff approvals, the request is submitted over HTTP as
//! a file write and its stored evidence is then replaced by a diff packet (the fixture below);
//! the window reads it from the service like any pending approval.

use assent_core::{
    Action, ActionKind, ApprovalEvidence, ApprovalType, DiffFile, DiffFlag, DiffPacket,
    EvidenceDetail, FileChange, ALL_ROLES,
};
use fantoccini::Locator;

use super::common::driver::{click, session, start_driver, text_of};
use super::common::{screenshot, shell_request, submit_pending, Desk, TestService};

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

/// Submits an edit of the workflow over HTTP and stores `evidence` as its approval's.
async fn pending_diff(service: &TestService, evidence: &ApprovalEvidence) -> String {
    let mut request = shell_request("run-diff", "", "/work/shop");
    request.action = Action {
        kind: ActionKind::FileWrite,
        command: None,
        paths: vec![format!("/work/shop/{WORKFLOW}")],
        tool: Some("Edit".to_owned()),
        ..request.action
    };
    let id = submit_pending(&service.requester(), &request).await;
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
        ApprovalType::Diff,
        "the service now answers a diff approval"
    );
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_diff_shows_its_files_flags_and_diff() {
    let service = TestService::start().await;
    let id = pending_diff(&service, &workflow_diff()).await;
    let ana = service.person("ana", &ALL_ROLES).await;
    let desk = Desk::signed_in(&service.url(), &ana);
    let _driver = start_driver(&desk).await;
    let client = session().await;

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
    screenshot("pending-diff.png");
    client.close().await.expect("end the session");
}
