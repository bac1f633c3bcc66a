//! Grant scopes and coverage, scenario by scenario, with a fake clock.

use crate::common::*;
use assent_core::{
    ActionKind, ActionRequest, ApprovalGrant, GrantConstraints, GrantIndex, NotCovered, Policy,
    ScopeError, ScopeKind,
};
use chrono::{DateTime, Duration, Utc};

fn covers(g: &ApprovalGrant, req: &ActionRequest, at: DateTime<Utc>) -> Result<(), NotCovered> {
    g.covers(req, &eval_default(req), at)
}

#[test]
fn once_binds_the_exact_action() {
    let g = grant_for(ScopeKind::Once, &shell("rm -rf ./build"), None);
    assert!(
        covers(&g, &shell("rm  -rf  './build'"), t0()).is_ok(),
        "the same action spelled differently is covered"
    );
    assert!(
        covers(&g, &shell("rm -rf ./dist"), t0()).is_err(),
        "approving A never lets B run"
    );
    assert_eq!(
        covers(&g, &shell("rm -rf ./build /"), t0()),
        Err(NotCovered::Blocked),
        "a block is never covered"
    );
}

#[test]
fn run_grant_batches_a_profile_for_one_run() {
    let g = grant_for(ScopeKind::Run, &shell("mvn -B test"), None);
    assert!(
        covers(&g, &shell("mvn test"), t0()).is_ok(),
        "drill 3: repeated maven-test runs need no new prompt"
    );
    assert!(
        covers(&g, &shell("mvn -B verify"), t0()).is_ok(),
        "the whole maven-test profile is covered for the run"
    );
    let mut other_run = shell("mvn test");
    other_run.run_id = "run-2".into();
    assert!(
        covers(&g, &other_run, t0()).is_err(),
        "a run grant ends with its run"
    );
    assert!(
        covers(&g, &shell("mvn test && curl https://x.example"), t0()).is_err(),
        "a compound with a non-profile part is not covered"
    );
    assert_eq!(
        covers(&g, &shell("mvn test"), t0() + Duration::hours(1)),
        Err(NotCovered::Expired),
        "covers only while now < expires_at"
    );
}

#[test]
fn grant_life_revocation_uses_and_policy_version() {
    let req = shell("cargo test");
    let mut g = grant_for(ScopeKind::CommandProfile, &req, None);
    g.max_uses = Some(2);
    g.used_count = 2;
    assert_eq!(
        covers(&g, &req, t0()),
        Err(NotCovered::Exhausted),
        "no uses left"
    );
    g.used_count = 1;
    assert!(covers(&g, &req, t0()).is_ok(), "one use left");
    g.revoked_at = Some(t0());
    assert_eq!(
        covers(&g, &req, t0()),
        Err(NotCovered::Revoked),
        "a revoked grant must not cover the next request"
    );
    g.revoked_at = None;
    let changed = Policy::from_toml("block_patterns = [\"shutdown *\"]").unwrap();
    let e = eval(&changed, &req);
    assert_eq!(
        g.covers(&req, &e, t0()),
        Err(NotCovered::PolicyChanged),
        "a change of policy invalidates grants"
    );
}

#[test]
fn bound_context_changes_invalidate() {
    let mut req = shell("cargo test");
    req.context.base_sha = Some("aaa".into());
    let g = grant_for(ScopeKind::CommandProfile, &req, None);
    req.context.base_sha = Some("bbb".into());
    assert!(
        covers(&g, &req, t0()).is_err(),
        "a new base SHA invalidates the grant"
    );
    let mut edit = file(
        ActionKind::FileWrite,
        "/home/dev/shop/.github/workflows/ci.yml",
    );
    edit.context.diff_fingerprint = Some("diff-1".into());
    let once = grant_for(ScopeKind::Once, &edit, None);
    edit.context.diff_fingerprint = Some("diff-2".into());
    assert!(
        covers(&once, &edit, t0()).is_err(),
        "drill 4: the approval is invalidated when the diff changes"
    );
}

#[test]
fn path_patterns_stay_inside_what_they_name() {
    let patterns = vec!["src/*".to_owned()];
    // Granted from an asked delete in the repo: a tool approval (an edit of a manifest is a
    // diff review, once or run only; a write outside the repo can have no repo-relative grant).
    let g = grant_for(
        ScopeKind::PathPattern,
        &file(ActionKind::FileDelete, "/home/dev/shop/src/old.rs"),
        Some(&patterns),
    );
    let write = |p: &str| covers(&g, &file(ActionKind::FileDelete, p), t0());
    assert!(
        write("/home/dev/shop/src/main.rs").is_ok(),
        "src/* covers src/main.rs"
    );
    assert!(
        write("/home/dev/shop/src/.hidden.rs").is_err(),
        "src/* never covers a hidden file"
    );
    assert!(
        write("/home/dev/shop/src/.env").is_err(),
        "src/* never covers src/.env"
    );
    assert!(
        write("/home/dev/shop/src/../Cargo.toml").is_err(),
        "src/../x is resolved before matching"
    );
    assert!(
        write("/home/dev/shop/src/a/b.rs").is_err(),
        "* does not cross directories"
    );
    assert!(
        write("/home/dev/other/src/x.rs").is_err(),
        "other repositories are not covered"
    );
}

#[test]
fn scopes_that_cannot_be_granted() {
    let blocked = shell("cat ~/.ssh/id_rsa");
    let e = eval_default(&blocked);
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Once, &blocked, &e, None),
        Err(ScopeError::Blocked),
        "blocks are never approvable"
    );
    let auto = shell("ls");
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Once, &auto, &eval_default(&auto), None),
        Err(ScopeError::NotNeeded),
        "auto needs no grant"
    );
    let push = shell("git push");
    let e = eval_default(&push);
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Run, &push, &e, None),
        Err(ScopeError::NotOffered(ScopeKind::Run)),
        "run scope is for batchable profiles only"
    );
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Org, &push, &e, None),
        Err(ScopeError::Org),
        "org grants are policy-managed"
    );
    let w = file(ActionKind::FileDelete, "/home/dev/shop/src/old[1].rs");
    let e = eval_default(&w);
    for bad in ["/etc/*", "../x/*", "**", "src/[", "~/x"] {
        assert!(
            matches!(
                GrantConstraints::for_scope(
                    ScopeKind::PathPattern,
                    &w,
                    &e,
                    Some(&[bad.to_owned()])
                ),
                Err(ScopeError::BadPathPattern { .. })
            ),
            "{bad} is refused as a path pattern"
        );
    }
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::PathPattern, &w, &e, Some(&[])),
        Err(ScopeError::NoPathPatterns),
        "an empty pattern list is refused, not read as 'everything'"
    );
    let these = GrantConstraints::for_scope(ScopeKind::PathPattern, &w, &e, None)
        .expect("with no patterns named, the grant is for the action's own paths");
    assert_eq!(
        these.path_patterns,
        vec!["src/old[[]1[]].rs".to_owned()],
        "'allow these paths' is the action's path relative to the repo, its glob \
         characters taken literally"
    );
    let mut g = grant_for(ScopeKind::Once, &w, None);
    g.scope_kind = ScopeKind::PathPattern;
    g.constraints = these;
    assert!(
        g.covers(&w, &e, t0()).is_ok(),
        "the grant covers the path it was made for"
    );
    let sibling = file(ActionKind::FileDelete, "/home/dev/shop/src/old1.rs");
    assert!(
        g.covers(&sibling, &eval_default(&sibling), t0()).is_err(),
        "and not a path its brackets would match as a glob"
    );
    let outside = file(ActionKind::FileWrite, "/home/dev/notes.md");
    let e = eval_default(&outside);
    assert!(
        !e.decision.offered_scopes.contains(&ScopeKind::PathPattern),
        "a path outside the repo is never offered a path grant (patterns are repo-relative): {:?}",
        e.decision.offered_scopes
    );
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::PathPattern, &outside, &e, None),
        Err(ScopeError::NoPathPatterns),
        "and 'these paths' has no in-repo paths to name"
    );
}

#[test]
fn index_finds_the_narrowest_grant_and_forgets_removed_ones() {
    let req = shell("cargo test");
    let mut index = GrantIndex::new();
    index.insert(grant_for(ScopeKind::Repo, &req, None));
    index.insert(grant_for(ScopeKind::Run, &req, None));
    index.insert(grant_for(ScopeKind::Once, &req, None));
    let e = eval_default(&req);
    assert_eq!(
        index.find(&req, &e, t0()).map(|g| g.scope_kind),
        Some(ScopeKind::Once),
        "once is preferred"
    );
    index.remove("Once");
    assert_eq!(
        index.find(&req, &e, t0()).map(|g| g.scope_kind),
        Some(ScopeKind::Run),
        "then run"
    );
    index.remove("Run");
    index.remove("Repo");
    assert!(
        index.find(&req, &e, t0()).is_none() && index.is_empty(),
        "removed grants no longer cover"
    );
}
