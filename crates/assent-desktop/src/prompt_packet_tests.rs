//! The notification of diff and PR approvals, and the one masking of agent text across the
//! service's answer, its audit and the notification.
#![allow(clippy::expect_used, reason = "tests")]

use assent_client::Client;
use assent_core::{
    ActionKind, ApprovalEvidence, ApprovalType, DiffApprovalRef, DiffApprovalState, DiffFile,
    DiffFlag, DiffPacket, EvidenceDetail, FileChange, PrPacket, ScopeKind,
};
use assent_protocol::DecisionRequest;

use super::*;
use crate::fixtures::{approval, asked, owner, service};
use crate::text::mask_secrets;

/// A diff approval: one workflow file changed, as the service sends it.
fn diff_approval() -> Approval {
    let mut prompt = approval("d1");
    prompt.approval_type = ApprovalType::Diff;
    prompt.action_kind = ActionKind::FileWrite;
    prompt.facts.profile = None;
    prompt.facts.offered_scopes = vec![ScopeKind::Once];
    prompt.facts.risk = RiskLevel::High;
    prompt.facts.reasons = vec!["changes a CI workflow".to_owned()];
    prompt.evidence = ApprovalEvidence {
        summary: "Review diff · shop: 1 file, CI workflow changed".to_owned(),
        cwd: "/home/dev/shop".to_owned(),
        paths: vec![".github/workflows/build.yml".to_owned()],
        detail: EvidenceDetail::Diff(DiffPacket {
            files: vec![DiffFile {
                path: ".github/workflows/build.yml".to_owned(),
                change: FileChange::Modified,
                added: 3,
                removed: 1,
                binary: false,
            }],
            flags: vec![DiffFlag::WorkflowChanged, DiffFlag::LockfileChanged],
            lines_added: 3,
            lines_removed: 1,
            diff: "--- a/.github/workflows/build.yml\n+++ b/.github/workflows/build.yml\n"
                .to_owned(),
            ..DiffPacket::default()
        }),
        ..ApprovalEvidence::default()
    };
    prompt
}

#[test]
fn an_exception_notification_is_one_summary_line_then_the_command_and_why() {
    let mut prompt = approval("e1");
    prompt.approval_type = ApprovalType::Exception;
    prompt.facts.profile = None;
    prompt.facts.offered_scopes = vec![ScopeKind::Exception];
    prompt.facts.risk = RiskLevel::High;
    prompt.facts.reasons = vec!["network access beyond the baseline".to_owned()];
    prompt.evidence = ApprovalEvidence {
        summary: "Exception · shop: network access beyond the baseline for 30 d (ask.network)"
            .to_owned(),
        cwd: "/home/dev/shop".to_owned(),
        command_line: Some("curl -fsSL https://pkg.example.com/t.tgz".to_owned()),
        detail: EvidenceDetail::Exception(assent_core::ExceptionPacket {
            rule: "ask.network".to_owned(),
            finding: "network access beyond the baseline".to_owned(),
            rules: vec!["ask.network".to_owned()],
            lifetime_seconds: 30 * 24 * 3600,
            repo: "/home/dev/shop".to_owned(),
            reason: "only published there".to_owned(),
            covered_command: "curl -fsSL https://pkg.example.com/t.tgz".to_owned(),
            hosts: Vec::new(),
        }),
        ..ApprovalEvidence::default()
    };
    let notice = notice(&prompt, Some(&owner())).expect("a pending exception prompts");
    assert!(
        notice
            .summary
            .starts_with("Review: Make an exception to ask.network · "),
        "the question names the rule and offers no one-click allow: {}",
        notice.summary
    );
    assert_eq!(
        notice.body,
        "High risk · network access beyond the baseline\n\
         Exception · shop: network access beyond the baseline for 30 d (ask.network)\n\
         $ curl -fsSL https://pkg.example.com/t.tgz\n\
         why: only published there\n\
         High risk: no one-click approval — open Assent to review and confirm.",
        "the summary line, then the command and the agent's reason; high risk is decided in the window"
    );
}

#[test]
fn a_diff_notification_names_the_files_and_flags_in_words() {
    let notice = notice(&diff_approval(), Some(&owner())).expect("a pending diff prompts");
    assert_eq!(
        notice.summary, "Review: Accept the change to .github/workflows/build.yml · shop",
        "a diff approval asks about the change and its file, not a program; high risk gets no Allow"
    );
    assert_eq!(
        notice.body,
        "High risk · changes a CI workflow\n\
         Review diff · shop: 1 file, CI workflow changed\n\
         files: .github/workflows/build.yml +3 −1\n\
         flags: CI workflow changed, Lock file changed\n\
         High risk: no one-click approval — open Assent to review and confirm.",
        "the body says what changed, file by file with +/- counts, and its flags in words"
    );
    let mut medium = diff_approval();
    medium.facts.risk = RiskLevel::Medium;
    assert_eq!(
        super::notice(&medium, Some(&owner()))
            .expect("prompts")
            .summary,
        "Accept the change to .github/workflows/build.yml? · shop",
        "a medium diff keeps its one-click Allow once"
    );
}

#[test]
fn a_wide_diff_lists_three_files_and_a_count_escaped() {
    let mut prompt = diff_approval();
    if let EvidenceDetail::Diff(packet) = &mut prompt.evidence.detail {
        packet.files = (1..=5)
            .map(|n| DiffFile {
                path: format!("src/<b>{n}</b>.rs"),
                change: FileChange::Added,
                added: n,
                removed: 0,
                binary: n == 5,
            })
            .collect();
        packet.flags = vec![DiffFlag::Wide];
    }
    let body = notice(&prompt, Some(&owner())).expect("prompts").body;
    let files = body
        .lines()
        .find(|line| line.starts_with("files: "))
        .expect("a files line");
    assert_eq!(
        files,
        "files: src/&lt;b&gt;1&lt;/b&gt;.rs +1 −0, src/&lt;b&gt;2&lt;/b&gt;.rs +2 −0, \
         src/&lt;b&gt;3&lt;/b&gt;.rs +3 −0 (+2 more)",
        "at most three files, then a count; file names are agent text and escaped"
    );
    assert!(
        body.lines().any(|line| line == "flags: Wide change"),
        "the flag is in words: {body}"
    );
}

#[test]
fn a_pr_notification_shows_where_it_goes_and_each_diff_approval_state() {
    let mut prompt = approval("p1");
    prompt.approval_type = ApprovalType::Pr;
    prompt.action_kind = ActionKind::Pr;
    prompt.facts.profile = None;
    prompt.evidence = ApprovalEvidence {
        summary: "Publish PR · shop".to_owned(),
        command_line: Some("gh pr create --title 'Fix the build'".to_owned()),
        cwd: "/home/dev/shop".to_owned(),
        detail: EvidenceDetail::Pr(PrPacket {
            remote: Some("origin".to_owned()),
            branch: Some("fix-build".to_owned()),
            title: Some("Fix the build".to_owned()),
            base_sha: None,
            push: None,
            diff_approvals: vec![
                DiffApprovalRef {
                    approval_id: "d1".to_owned(),
                    summary: "Review diff · shop: 1 file".to_owned(),
                    state: DiffApprovalState::Current,
                    reason: None,
                },
                DiffApprovalRef {
                    approval_id: "d2".to_owned(),
                    summary: "Review diff · shop: 2 files".to_owned(),
                    state: DiffApprovalState::Stale,
                    reason: Some("base commit changed abc123 → def456".to_owned()),
                },
            ],
        }),
        ..ApprovalEvidence::default()
    };
    let notice = notice(&prompt, Some(&owner())).expect("a pending PR prompts");
    assert_eq!(
        notice.summary, "Publish the pull request “Fix the build”? · shop",
        "a PR approval asks to publish the PR, by its title"
    );
    assert_eq!(
        notice.body,
        "Medium risk · runs the build tool · writes target/**\n\
         Publish PR · shop\n\
         to origin/fix-build: Fix the build\n\
         current: Review diff · shop: 1 file\n\
         stale: Review diff · shop: 2 files — base commit changed abc123 → def456",
        "the body says where the PR goes and how each diff approval it depends on stands"
    );
}

#[tokio::test]
async fn the_answer_the_audit_and_the_notification_show_the_same_masked_line() {
    let running = service().await;
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    let person = Client::new(&running.url, &running.tokens.approver).expect("client");
    let line = "git clone https://me:s3cretpassw0rd@git.example.com/o/r.git";
    let mut request = asked("run-m");
    request.action.command = Some(line.to_owned());
    let id = agent
        .submit(&request)
        .await
        .expect("submit")
        .approval_id
        .expect("a clone from an unknown host asks a person");
    let masked = mask_secrets(line);
    assert_ne!(masked, line, "the line carries a secret to mask");

    let pending = person.approval(&id, None).await.expect("the approval");
    assert_eq!(
        pending.evidence.command_line.as_deref(),
        Some(masked.as_str()),
        "the service sends the command line already masked"
    );
    assert!(
        !serde_json::to_string(&pending)
            .expect("json")
            .contains("s3cretpassw0rd"),
        "no part of the approval over HTTP carries the secret"
    );
    let body = notice(&pending, Some(&owner())).expect("prompts").body;
    assert!(
        body.contains(&format!("$ {masked}")),
        "the notification shows the same masked line: {body}"
    );

    let deny = DecisionRequest::Deny {
        reason: "no".to_owned(),
    };
    person.decide(&id, &deny).await.expect("deny");
    let audit = person.audit(None, Some("run-m")).await.expect("audit");
    let settled = audit
        .iter()
        .find(|event| event.approval_id.as_deref() == Some(id.as_str()))
        .expect("the denial is audited");
    assert_eq!(
        settled.subject.as_deref(),
        Some(masked.as_str()),
        "the audit names the same masked line"
    );
    assert!(
        !serde_json::to_string(&audit)
            .expect("json")
            .contains("s3cretpassw0rd"),
        "no audit record carries the secret"
    );
}

/// The words the window shows come on the wire, made by the service with the one function the
/// notification uses: the window and the notification cannot say a prompt differently.
#[tokio::test]
async fn the_service_sends_the_words_the_notification_asks() {
    let running = service().await;
    let agent = Client::new(&running.url, &running.tokens.requester).expect("client");
    let person = Client::new(&running.url, &running.tokens.approver).expect("client");
    let mut request = asked("run-w");
    request.action.command = Some("npm install left-pad".to_owned());
    let id = agent
        .submit(&request)
        .await
        .expect("submit")
        .approval_id
        .expect("an install asks a person");

    let listed = person.pending().await.expect("the pending list");
    let pending = listed
        .iter()
        .find(|approval| approval.approval_id == id)
        .expect("the prompt is listed");
    assert_eq!(
        pending.words,
        assent_protocol::words::prompt_words(pending),
        "the list carries the prompt's words as the one function makes them"
    );
    assert_eq!(
        pending.words.headline, "Install left-pad with npm",
        "the headline says the action"
    );
    let shown = notice(pending, Some(&owner())).expect("prompts");
    assert!(
        shown.summary.contains(&pending.words.headline),
        "the notification asks the same words the window gets: {}",
        shown.summary
    );
}
