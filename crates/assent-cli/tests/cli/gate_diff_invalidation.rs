//! Issue 13's invalidation through the Claude Code gate in a real git repository: a grant
//! for an edit stops covering when the base commit moves (`git commit`) or the diff changes,
//! and the agent is asked again. Real gate, real `assent serve`, approvals as the desk gives
//! them (`POST /v1/approvals/{id}/decision` with the approver token).

use crate::gate_support::git::GitRepo;
use crate::gate_support::*;
use assent_core::ScopeKind;
use assent_protocol::DecisionRequest;
use serde_json::{json, Value};

/// `src/lib.rs` is a policy-listed path, so editing it asks a person.
const POLICY: &str = "dependency_paths = [\"src/lib.rs\"]\n";

fn edit(repo: &GitRepo, old: &str, new: &str) -> Value {
    json!({
        "file_path": repo.root.join("src/lib.rs"),
        "old_string": old,
        "new_string": new,
    })
}

fn pre(repo: &GitRepo, session: &str, id: &str, input: Value) -> Value {
    payload("PreToolUse", session, id, "Edit", input, &repo.root)
}

fn approve_as(
    service: &Service,
    approval_id: &str,
    scope: ScopeKind,
    patterns: Option<Vec<String>>,
) {
    let decision = DecisionRequest::Approve {
        scope,
        expires_in_seconds: 600,
        max_uses: None,
        reason: Some("reviewed the diff".into()),
        path_patterns: patterns,
    };
    runtime()
        .block_on(service.approver_client().decide(approval_id, &decision))
        .unwrap();
}

/// Runs the gate until a prompt is open, decides it with `decide`, and returns the prompt and
/// the gate's answer.
fn asked(
    service: &Service,
    payload: &Value,
    decide: impl FnOnce(&assent_protocol::Approval),
) -> (assent_protocol::Approval, Ran) {
    let child = spawn_gate(&service.url, &service.requester, &["--wait", "30"], payload);
    let prompt = wait_pending(service, 1).remove(0);
    decide(&prompt);
    (prompt, finish(child))
}

fn grants(service: &Service) -> Vec<assent_protocol::Grant> {
    runtime()
        .block_on(service.approver_client().grants(false))
        .unwrap()
}

#[test]
fn a_new_commit_asks_again_for_an_edit_approved_beyond_once() {
    let service = Service::start_with_policy(Some(POLICY));
    let repo = GitRepo::new();
    let before = repo.head();
    let change = edit(&repo, "a - b", "b - a");

    let (first, ran) = asked(
        &service,
        &pre(&repo, "sess-inv", "t1", change.clone()),
        |p| {
            // A grant that outlives one use, as the policy offers it for this edit: "for this
            // run" (a diff approval) or a path pattern (a tool approval of a listed file).
            let scope = [ScopeKind::Run, ScopeKind::PathPattern]
                .into_iter()
                .find(|s| p.facts.offered_scopes.contains(s))
                .unwrap_or_else(|| {
                    panic!("a reusable grant is offered: {:?}", p.facts.offered_scopes)
                });
            let patterns = (scope == ScopeKind::PathPattern).then(|| vec!["src/lib.rs".to_owned()]);
            approve_as(&service, &p.approval_id, scope, patterns);
        },
    );
    assert_eq!(
        ran.decision(),
        "allow",
        "the person's approval lets it run: {}",
        ran.reason()
    );
    let grant = grants(&service).remove(0);
    assert_eq!(
        grant.grant.constraints.base_sha.as_deref(),
        Some(before.as_str()),
        "the grant is bound to the commit the edit was made on"
    );

    let again = gate(
        &service.url,
        &service.requester,
        &["--wait", "30"],
        &pre(&repo, "sess-inv", "t2", change.clone()),
    );
    assert_eq!(
        again.decision(),
        "allow",
        "the same edit on the same commit is covered"
    );
    assert!(
        again.reason().contains("covered by grant"),
        "by the grant, without a person: {}",
        again.reason()
    );

    repo.write("README.md", "moved on\n");
    let after = repo.commit("another change");
    assert_ne!(before, after, "HEAD moved");
    let (second, ran) = asked(&service, &pre(&repo, "sess-inv", "t3", change), |p| {
        deny(&service, &p.approval_id, "look again");
    });
    assert_ne!(
        second.approval_id, first.approval_id,
        "after the commit the same edit is a new prompt: the grant no longer covers"
    );
    assert_eq!(
        ran.decision(),
        "deny",
        "and the person's new answer is what counts"
    );
}

#[test]
fn a_different_diff_of_the_same_file_asks_again_under_a_once_grant() {
    let service = Service::start_with_policy(Some(POLICY));
    let repo = GitRepo::new();
    let (first, ran) = asked(
        &service,
        &pre(&repo, "sess-once", "o1", edit(&repo, "a - b", "b - a")),
        |p| approve_as(&service, &p.approval_id, ScopeKind::Once, None),
    );
    assert_eq!(ran.decision(), "allow", "approved once: {}", ran.reason());
    let grant = grants(&service).remove(0);
    assert!(
        grant.grant.constraints.diff_fingerprint.is_some(),
        "a once grant binds to the diff's fingerprint"
    );

    let (second, ran) = asked(
        &service,
        &pre(
            &repo,
            "sess-once",
            "o2",
            edit(&repo, "a - b", "a.wrapping_sub(b)"),
        ),
        |p| {
            deny(&service, &p.approval_id, "not this one");
        },
    );
    assert_ne!(
        second.approval_id, first.approval_id,
        "another diff of the same file is asked again"
    );
    assert_eq!(ran.decision(), "deny", "and answered on its own");
}
