//! Which edits are diff approvals, through the one entry point.

use proptest::prelude::*;

use crate::evaluate::{evaluate, Environment, Evaluation};
use crate::evidence::{DiffFlag, EvidenceDetail, FileChange};
use crate::policy::Policy;
use crate::request::{Action, ActionContext, ActionRequest};
use crate::types::{ActionKind, ApprovalType, Decision, RequestedBy, Role, ScopeKind};

fn edit(kind: ActionKind, path: &str, diff: Option<&str>) -> ActionRequest {
    ActionRequest {
        run_id: "run-1".into(),
        task_id: "task-1".into(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind,
            command: None,
            argv: None,
            cwd: "/home/dev/shop".into(),
            paths: vec![path.into()],
            network: vec![],
            credential_scope: None,
            tool: Some("Edit".into()),
        },
        context: ActionContext {
            repo: Some("/home/dev/shop".into()),
            base_sha: Some("abc123".into()),
            diff: diff.map(str::to_owned),
            verification_status: Some("cargo test: 12 passed".into()),
            ..ActionContext::default()
        },
        reason: String::new(),
    }
}

fn eval_with(policy: &Policy, request: &ActionRequest) -> Evaluation {
    evaluate(policy, request, &Environment::new("/home/dev")).unwrap()
}

fn eval(request: &ActionRequest) -> Evaluation {
    eval_with(&Policy::default(), request)
}

fn one_file(path: &str, removed: &[&str], added: &[&str]) -> String {
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

fn flags(e: &Evaluation) -> Vec<DiffFlag> {
    match &e.evidence.detail {
        EvidenceDetail::Diff(p) => p.flags.clone(),
        _ => Vec::new(),
    }
}

#[test]
fn a_workflow_edit_is_a_diff_approval_for_a_repo_maintainer() {
    let diff = one_file(
        ".github/workflows/build.yml",
        &["on: [push]"],
        &["on: [push, pull_request]", "permissions: write-all"],
    );
    let e = eval(&edit(
        ActionKind::FileWrite,
        ".github/workflows/build.yml",
        Some(&diff),
    ));
    assert_eq!(
        e.approval_type(),
        ApprovalType::Diff,
        "a CI workflow edit needs a diff review"
    );
    assert_eq!(
        e.evidence.approval_type(),
        ApprovalType::Diff,
        "the evidence's type is the approval type"
    );
    assert_eq!(e.decision.decision, Decision::Ask, "it is asked");
    assert_eq!(
        e.decision.required_role,
        Some(Role::RepoMaintainer),
        "by a repo maintainer"
    );
    assert_eq!(
        e.decision.offered_scopes,
        vec![ScopeKind::Once, ScopeKind::Run],
        "a review covers this diff only, never a path pattern"
    );
    assert_eq!(
        e.evidence.summary,
        "Review diff · shop: 1 file, CI workflow changed, gives the workflow write permissions",
        "one line fit for a notification, naming the workflow's write-all as a risk of its own"
    );
    assert_eq!(
        e.evidence.verification_status.as_deref(),
        Some("cargo test: 12 passed"),
        "the agent's verification is shown"
    );
    let EvidenceDetail::Diff(p) = &e.evidence.detail else {
        panic!("a diff packet")
    };
    assert_eq!(
        p.flags,
        vec![DiffFlag::WorkflowChanged, DiffFlag::CiWritePermissions],
        "the flags name why: a workflow, given write-all"
    );
    assert_eq!((p.lines_added, p.lines_removed), (2, 1), "the +/- counts");
    assert_eq!(p.files.len(), 1, "one file");
    assert_eq!(
        p.files[0].path, ".github/workflows/build.yml",
        "named relative to the repo"
    );
    assert_eq!(
        p.base_sha.as_deref(),
        Some("abc123"),
        "bound to its base commit"
    );
    assert!(
        p.diff_fingerprint.as_deref().is_some_and(|f| f.len() == 64),
        "the diff's SHA-256 when the gate sent none"
    );
    assert!(
        p.diff.contains("+permissions: write-all"),
        "the diff itself is shown"
    );
}

#[test]
fn security_dependency_and_lock_files_raise_their_own_flags() {
    let cases = [
        (
            ".gitleaks.toml",
            DiffFlag::SecurityChanged,
            Role::SecurityReviewer,
        ),
        (
            "Cargo.toml",
            DiffFlag::DependencyChanged,
            Role::RepoMaintainer,
        ),
        (
            "Cargo.lock",
            DiffFlag::LockfileChanged,
            Role::RepoMaintainer,
        ),
        (
            "web/package-lock.json",
            DiffFlag::LockfileChanged,
            Role::RepoMaintainer,
        ),
    ];
    for (path, flag, role) in cases {
        let diff = one_file(path, &["a = 1"], &["a = 2"]);
        let e = eval(&edit(ActionKind::FileWrite, path, Some(&diff)));
        assert_eq!(
            flags(&e),
            vec![flag],
            "{path}: a lock file is told apart from a manifest"
        );
        assert_eq!(
            e.decision.required_role,
            Some(role),
            "{path}: the role its flag needs"
        );
    }
}

#[test]
fn an_ordinary_small_edit_stays_a_tool_action() {
    let diff = one_file("src/lib.rs", &["let x = 1;"], &["let x = 2;"]);
    let e = eval(&edit(ActionKind::FileWrite, "src/lib.rs", Some(&diff)));
    assert_eq!(
        e.approval_type(),
        ApprovalType::Tool,
        "a small source edit needs no diff review"
    );
    assert_eq!(
        e.decision.decision,
        Decision::Auto,
        "and stays auto as before"
    );
    let bare = eval(&edit(ActionKind::FileWrite, "src/lib.rs", None));
    assert_eq!(
        bare.approval_type(),
        ApprovalType::Tool,
        "an edit with no diff is judged by its paths"
    );
}

#[test]
fn deleting_or_weakening_tests_is_reviewed() {
    let deleted = "diff --git a/tests/pay_test.rs b/tests/pay_test.rs\ndeleted file mode 100644\n--- a/tests/pay_test.rs\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#[test]\n-fn pays() {}\n";
    let e = eval(&edit(
        ActionKind::FileWrite,
        "tests/pay_test.rs",
        Some(deleted),
    ));
    assert!(
        flags(&e).contains(&DiffFlag::TestsDeleted),
        "a deleted test file: {:?}",
        flags(&e)
    );
    let no_diff = eval(&edit(ActionKind::FileDelete, "tests/pay_test.rs", None));
    assert_eq!(
        flags(&no_diff),
        vec![DiffFlag::TestsDeleted],
        "a file_delete of a test file, even without a diff"
    );
    let weakenings: [(&str, &[&str], &[&str]); 5] = [
        (
            "src/lib.rs",
            &["    #[test]", "    fn adds() { assert_eq!(add(1, 1), 2); }"],
            &[],
        ),
        ("src/lib.rs", &[], &["    #[ignore]"]),
        ("web/cart.test.ts", &["  expect(total).toBe(3);"], &[]),
        (
            "tests/test_pay.py",
            &[],
            &["@pytest.mark.skip(reason='flaky')"],
        ),
        ("src/test/java/PayTest.java", &[], &["  @Disabled"]),
    ];
    for (path, removed, added) in weakenings {
        let e = eval(&edit(
            ActionKind::FileWrite,
            path,
            Some(&one_file(path, removed, added)),
        ));
        assert_eq!(
            e.approval_type(),
            ApprovalType::Diff,
            "{path}: removing or skipping tests is reviewed"
        );
        assert!(
            flags(&e).contains(&DiffFlag::TestsWeakened),
            "{path}: {:?}",
            flags(&e)
        );
        assert_eq!(
            e.decision.decision,
            Decision::Ask,
            "{path}: asked, not auto"
        );
    }
    let iter_skip = one_file("src/lib.rs", &[], &["let rest = items.iter().skip(1);"]);
    let e = eval(&edit(ActionKind::FileWrite, "src/lib.rs", Some(&iter_skip)));
    assert_eq!(
        e.approval_type(),
        ApprovalType::Tool,
        "`iter().skip(1)` is not a skipped test"
    );
}

#[test]
fn a_wide_diff_and_a_policy_path_are_reviewed_by_the_policy_thresholds() {
    let added: Vec<String> = (0..501).map(|i| format!("line {i}")).collect();
    let added: Vec<&str> = added.iter().map(String::as_str).collect();
    let wide = one_file("src/gen.rs", &[], &added);
    let e = eval(&edit(ActionKind::FileWrite, "src/gen.rs", Some(&wide)));
    assert_eq!(
        flags(&e),
        vec![DiffFlag::Wide],
        "more than the default 500 lines is wide"
    );
    assert!(
        e.evidence.summary.contains("wide change (+501 −0)"),
        "the summary says how wide: {}",
        e.evidence.summary
    );
    let policy =
        Policy::from_toml("[diff]\nmax_lines = 1000\nreview_paths = [\"src/billing/**\"]\n")
            .unwrap();
    assert_eq!(
        eval_with(
            &policy,
            &edit(ActionKind::FileWrite, "src/gen.rs", Some(&wide))
        )
        .approval_type(),
        ApprovalType::Tool,
        "the policy's threshold decides"
    );
    let billing = one_file("src/billing/tax.rs", &["a"], &["b"]);
    let e = eval_with(
        &policy,
        &edit(ActionKind::FileWrite, "src/billing/tax.rs", Some(&billing)),
    );
    assert_eq!(
        flags(&e),
        vec![DiffFlag::PolicyPath],
        "a path the policy lists is reviewed"
    );
    let many: String = (0..21)
        .map(|i| one_file(&format!("src/m{i}.rs"), &["a"], &["b"]))
        .collect();
    assert_eq!(
        flags(&eval(&edit(
            ActionKind::FileWrite,
            "src/m0.rs",
            Some(&many)
        ))),
        vec![DiffFlag::Wide],
        "more than 20 files is wide"
    );
    assert!(
        Policy::from_toml("[diff]\nmax_files = 0\n").is_err(),
        "a zero threshold is refused"
    );
    assert!(
        Policy::from_toml("[diff]\nmax_file = 3\n").is_err(),
        "an unknown key is refused"
    );
}

#[test]
fn equal_diffs_batch_and_different_diffs_never_join() {
    let path = ".github/workflows/build.yml";
    let a = eval(&edit(
        ActionKind::FileWrite,
        path,
        Some(&one_file(path, &["a"], &["b"])),
    ));
    let a2 = eval(&edit(
        ActionKind::FileWrite,
        path,
        Some(&one_file(path, &["a"], &["b"])),
    ));
    let b = eval(&edit(
        ActionKind::FileWrite,
        path,
        Some(&one_file(path, &["a"], &["c"])),
    ));
    assert_eq!(
        a.batch_key, a2.batch_key,
        "the same diff asked twice is one prompt"
    );
    assert_ne!(
        a.batch_key, b.batch_key,
        "a different diff of the same file is another prompt"
    );
    assert_ne!(
        a.action_hash, b.action_hash,
        "and another action: a once grant never covers it"
    );
    let mut moved = edit(
        ActionKind::FileWrite,
        path,
        Some(&one_file(path, &["a"], &["b"])),
    );
    moved.context.base_sha = Some("def456".into());
    assert_ne!(
        eval(&moved).batch_key,
        a.batch_key,
        "the same diff on another base commit is another prompt"
    );
}

#[test]
fn secrets_are_masked_the_diff_is_capped_and_oversized_diffs_refused() {
    let path = ".github/workflows/build.yml";
    let secret = one_file(path, &[], &["  TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"]);
    let e = eval(&edit(ActionKind::FileWrite, path, Some(&secret)));
    let EvidenceDetail::Diff(p) = &e.evidence.detail else {
        panic!("a diff packet")
    };
    assert!(
        !p.diff.contains("abcdefghijklmnop"),
        "a token in the diff is masked: {}",
        p.diff
    );
    let long: Vec<String> = (0..4000)
        .map(|i| format!("step {i}: run something long enough"))
        .collect();
    let long: Vec<&str> = long.iter().map(String::as_str).collect();
    let big = one_file(path, &[], &long);
    let e = eval(&edit(ActionKind::FileWrite, path, Some(&big)));
    let EvidenceDetail::Diff(p) = &e.evidence.detail else {
        panic!("a diff packet")
    };
    assert!(
        p.diff_truncated && p.diff.len() <= super::SHOWN_DIFF_BYTES,
        "a long diff is cut for display"
    );
    assert_eq!(p.lines_added, 4000, "but counted whole");
    assert!(
        p.notes.iter().any(|n| n.contains("cut at")),
        "and the cut is noted"
    );
    let huge = "x".repeat(crate::request::MAX_DIFF_BYTES + 1);
    let request = edit(ActionKind::FileWrite, path, Some(&huge));
    assert!(
        evaluate(&Policy::default(), &request, &Environment::new("/home/dev")).is_err(),
        "a diff past the limit is a clear error"
    );
}

#[test]
fn binary_files_and_gate_notes_are_noted_never_shown() {
    let path = ".github/workflows/logo.png";
    let diff = format!("diff --git a/{path} b/{path}\nBinary files a/{path} and b/{path} differ\n");
    let mut request = edit(ActionKind::FileWrite, path, Some(&diff));
    request.context.diff_notes = vec!["the file vanished before the hook read it".into()];
    let e = eval(&request);
    let EvidenceDetail::Diff(p) = &e.evidence.detail else {
        panic!("a diff packet")
    };
    assert!(p.files[0].binary, "marked binary");
    assert!(
        p.notes.iter().any(|n| n.contains("binary file")),
        "noted: {:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("vanished")),
        "the gate's notes are kept"
    );
    assert_eq!(p.files[0].change, FileChange::Modified, "both sides exist");
}

#[test]
fn a_secret_file_in_a_diff_stays_blocked() {
    let diff = one_file(".env", &["A=1"], &["A=2"]);
    let e = eval(&edit(ActionKind::FileWrite, ".env", Some(&diff)));
    assert_eq!(
        e.decision.decision,
        Decision::Block,
        "a review never turns a block into a prompt"
    );
}

proptest! {
    #[test]
    fn any_diff_text_evaluates_without_panic(diff in "(\\PC|\n){0,300}", path in "[a-z./]{1,20}") {
        let request = edit(ActionKind::FileWrite, &path, Some(&diff));
        if let Ok(e) = evaluate(&Policy::default(), &request, &Environment::new("/home/dev")) {
            prop_assert_eq!(e.approval_type(), e.evidence.approval_type(), "the type and the packet agree");
            if e.approval_type() == ApprovalType::Diff {
                prop_assert!(e.decision.decision != Decision::Auto, "a diff approval is never auto");
            }
        }
    }
}

#[test]
fn a_diff_reviews_grant_covers_that_diff_on_that_base_only() {
    use crate::grant::{ApprovalGrant, GrantConstraints};
    let path = ".github/workflows/build.yml";
    let asked = edit(
        ActionKind::FileWrite,
        path,
        Some(&one_file(path, &["a"], &["b"])),
    );
    let e = eval(&asked);
    let t0 = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 3, 1, 9, 0, 0).unwrap();
    for scope in [ScopeKind::Once, ScopeKind::Run] {
        let grant = ApprovalGrant {
            grant_id: "g".into(),
            approval_id: "ap".into(),
            run_id: asked.run_id.clone(),
            scope_kind: scope,
            action_kinds: vec![ActionKind::FileWrite],
            constraints: GrantConstraints::for_scope(scope, &asked, &e, "agent", None).unwrap(),
            created_at: t0,
            expires_at: t0 + chrono::Duration::hours(1),
            max_uses: None,
            used_count: 0,
            created_by: "maintainer".into(),
            revocable: true,
            revoked_at: None,
            invalidated_at: None,
            policy_version: e.policy_version.clone(),
        };
        let covers = |r: &ActionRequest| grant.covers(r, &eval(r), "agent", t0).is_ok();
        assert!(covers(&asked), "{scope:?}: the reviewed diff is covered");
        let other = edit(
            ActionKind::FileWrite,
            path,
            Some(&one_file(path, &["a"], &["c"])),
        );
        assert!(
            !covers(&other),
            "{scope:?}: a different diff of the same file is asked again"
        );
        let mut moved = asked.clone();
        moved.context.base_sha = Some("def456".into());
        assert!(
            !covers(&moved),
            "{scope:?}: the same diff on another base commit is asked again"
        );
    }
}

#[test]
fn a_diff_that_leaves_out_the_edited_file_does_not_hide_it() {
    let diff = one_file("src/lib.rs", &["a"], &["b"]);
    let e = eval(&edit(
        ActionKind::FileWrite,
        ".github/workflows/build.yml",
        Some(&diff),
    ));
    assert_eq!(
        flags(&e),
        vec![DiffFlag::WorkflowChanged],
        "the edited path counts, whatever the diff says"
    );
    let EvidenceDetail::Diff(p) = &e.evidence.detail else {
        panic!("a diff packet")
    };
    assert!(
        p.notes.iter().any(|n| n.contains("not in the diff")),
        "and the mismatch is noted: {:?}",
        p.notes
    );
}

fn shell(command: &str) -> ActionRequest {
    let mut request = edit(ActionKind::Shell, "", None);
    request.action.paths.clear();
    request.action.tool = None;
    request.action.command = Some(command.into());
    request
}

#[test]
fn a_shell_command_changing_a_reviewed_file_is_a_diff_review_of_the_files_it_names() {
    /// A command, the flags it raises, the files it changes.
    type Case = (
        &'static str,
        &'static [DiffFlag],
        &'static [(&'static str, FileChange)],
    );
    let cases: [Case; 5] = [
        (
            "sed -i s/17/21/ .github/workflows/ci.yml",
            &[DiffFlag::WorkflowChanged],
            &[(".github/workflows/ci.yml", FileChange::Modified)],
        ),
        (
            // mv changes both ends: the file leaves /tmp.
            "mv /tmp/new.lock Cargo.lock",
            &[DiffFlag::LockfileChanged],
            &[
                ("/tmp/new.lock", FileChange::Modified),
                ("Cargo.lock", FileChange::Modified),
            ],
        ),
        (
            "echo '<version>21</version>' >> pom.xml",
            &[DiffFlag::DependencyChanged],
            &[("pom.xml", FileChange::Modified)],
        ),
        (
            "rm tests/pay_test.rs",
            &[DiffFlag::TestsDeleted],
            &[("tests/pay_test.rs", FileChange::Deleted)],
        ),
        (
            // Only the files it changes: reading the workflow raises nothing.
            "cat .github/workflows/ci.yml > notes.txt && sed -i s/a/b/ .github/workflows/ci.yml",
            &[DiffFlag::WorkflowChanged],
            &[
                ("notes.txt", FileChange::Modified),
                (".github/workflows/ci.yml", FileChange::Modified),
            ],
        ),
    ];
    for (command, want_flags, want_files) in cases {
        let e = eval(&shell(command));
        assert_eq!(e.approval_type(), ApprovalType::Diff, "{command}: {e:?}");
        let EvidenceDetail::Diff(p) = &e.evidence.detail else {
            panic!("{command}: a diff packet: {:?}", e.evidence.detail);
        };
        assert_eq!(p.flags, want_flags, "{command}");
        let files: Vec<(&str, FileChange)> = p
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.change))
            .collect();
        assert_eq!(files, want_files, "{command}: the files it changes");
        assert_eq!(
            p.base_sha.as_deref(),
            Some("abc123"),
            "bound to the base commit like an edit"
        );
        assert!(
            p.diff.is_empty() && p.notes.iter().any(|n| n.contains("shell command")),
            "{command}: no diff exists before it runs, and the packet says so: {:?}",
            p.notes
        );
        assert_eq!(e.decision.decision, Decision::Ask, "{command}");
    }
    for command in [
        "cat .github/workflows/ci.yml",
        "sed -i s/a/b/ src/lib.rs",
        "cargo test",
    ] {
        let e = eval(&shell(command));
        assert_eq!(
            e.approval_type(),
            ApprovalType::Tool,
            "{command}: reading a reviewed file, or changing an ordinary one, is no review"
        );
    }
}
