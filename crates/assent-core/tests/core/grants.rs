//! Grant scopes and coverage, scenario by scenario, with a fake clock.

use crate::common::*;
use assent_core::{
    ActionKind, ActionRequest, ApprovalGrant, GrantConstraints, GrantIndex, NotCovered, Policy,
    ScopeError, ScopeKind,
};
use chrono::{DateTime, Duration, Utc};

fn covers(g: &ApprovalGrant, req: &ActionRequest, at: DateTime<Utc>) -> Result<(), NotCovered> {
    g.covers(req, &eval_default(req), AGENT, at)
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
        g.covers(&req, &e, AGENT, t0()),
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
        GrantConstraints::for_scope(ScopeKind::Once, &blocked, &e, AGENT, None),
        Err(ScopeError::Blocked),
        "blocks are never approvable"
    );
    let auto = shell("ls");
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Once, &auto, &eval_default(&auto), AGENT, None),
        Err(ScopeError::NotNeeded),
        "auto needs no grant"
    );
    let push = shell("git push");
    let e = eval_default(&push);
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Run, &push, &e, AGENT, None),
        Err(ScopeError::NotOffered(ScopeKind::Run)),
        "run scope is for batchable profiles only"
    );
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::Org, &push, &e, AGENT, None),
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
                    AGENT,
                    Some(&[bad.to_owned()])
                ),
                Err(ScopeError::BadPathPattern { .. })
            ),
            "{bad} is refused as a path pattern"
        );
    }
    assert_eq!(
        GrantConstraints::for_scope(ScopeKind::PathPattern, &w, &e, AGENT, Some(&[])),
        Err(ScopeError::NoPathPatterns),
        "an empty pattern list is refused, not read as 'everything'"
    );
    let these = GrantConstraints::for_scope(ScopeKind::PathPattern, &w, &e, AGENT, None)
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
        g.covers(&w, &e, AGENT, t0()).is_ok(),
        "the grant covers the path it was made for"
    );
    let sibling = file(ActionKind::FileDelete, "/home/dev/shop/src/old1.rs");
    assert!(
        g.covers(&sibling, &eval_default(&sibling), AGENT, t0())
            .is_err(),
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
        GrantConstraints::for_scope(ScopeKind::PathPattern, &outside, &e, AGENT, None),
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
        index.find(&req, &e, AGENT, t0()).map(|g| g.scope_kind),
        Some(ScopeKind::Once),
        "once is preferred"
    );
    index.remove("Once");
    assert_eq!(
        index.find(&req, &e, AGENT, t0()).map(|g| g.scope_kind),
        Some(ScopeKind::Run),
        "then run"
    );
    index.remove("Run");
    index.remove("Repo");
    assert!(
        index.find(&req, &e, AGENT, t0()).is_none() && index.is_empty(),
        "removed grants no longer cover"
    );
}

/// A delete the default policy asks for (`ask.delete`, medium, no role, a tool approval).
fn delete(path: &str) -> ActionRequest {
    file(ActionKind::FileDelete, path)
}

#[test]
fn a_grant_covers_nothing_that_asks_for_more_than_was_approved() {
    let docs = grant_for(
        ScopeKind::PathPattern,
        &delete("docs/a.md"),
        Some(&["docs/**".to_owned()]),
    );
    // (scenario, request, covered): every refusal asks the person for more than a plain
    // delete did — another rule, a required role, a diff review.
    let table = [
        (
            "another plain delete under docs/",
            delete("docs/b.md"),
            true,
        ),
        (
            "a Makefile needs a maintainer's diff review",
            delete("docs/Makefile"),
            false,
        ),
        (
            "a lock file needs a maintainer's diff review",
            delete("docs/Cargo.lock"),
            false,
        ),
        (
            "a manifest needs a maintainer's diff review",
            delete("docs/package.json"),
            false,
        ),
    ];
    for (scenario, req, covered) in table {
        let got = covers(&docs, &req, t0());
        assert_eq!(
            got.is_ok(),
            covered,
            "{scenario}: a docs/** grant approved for a plain delete ({got:?})"
        );
    }
    let cargo = grant_for(ScopeKind::CommandProfile, &shell("cargo test"), None);
    let riskier = shell("cargo test");
    let mut e = eval_default(&riskier);
    e.decision.risk = assent_core::RiskLevel::High;
    assert_eq!(
        cargo.covers(&riskier, &e, AGENT, t0()),
        Err(NotCovered::Mismatch(
            "an action of higher risk than the one approved"
        )),
        "the same profile at a higher risk would need a step-up the person never gave"
    );
    let mut e = eval_default(&riskier);
    e.decision.required_role = Some(assent_core::Role::SecurityReviewer);
    assert_eq!(
        cargo.covers(&riskier, &e, AGENT, t0()),
        Err(NotCovered::Mismatch(
            "an action that needs another role's approval"
        )),
        "an action needing a role the approval did not need is that role's to decide"
    );
    let mut e = eval_default(&riskier);
    as_type(&mut e, assent_core::ApprovalType::Diff);
    assert_eq!(
        cargo.covers(&riskier, &e, AGENT, t0()),
        Err(NotCovered::Mismatch(
            "an action of another approval type than the one approved"
        )),
        "a diff review is not a tool approval"
    );
}

#[test]
fn path_patterns_must_cover_the_approved_action() {
    let notes = delete("notes/n.md");
    let e = eval_default(&notes);
    assert_eq!(
        GrantConstraints::for_scope(
            ScopeKind::PathPattern,
            &notes,
            &e,
            AGENT,
            Some(&[".github/workflows/*".to_owned()]),
        ),
        Err(ScopeError::PatternsMissAction),
        "approving notes/n.md cannot hand out .github/workflows/*: patterns the person never \
         saw the action under are refused"
    );
    assert!(
        GrantConstraints::for_scope(
            ScopeKind::PathPattern,
            &notes,
            &e,
            AGENT,
            Some(&["notes/**".to_owned()]),
        )
        .is_ok(),
        "a pattern covering the approved path is granted"
    );
    let ci = grant_for(
        ScopeKind::PathPattern,
        &notes,
        Some(&["notes/**".to_owned()]),
    );
    assert!(
        covers(&ci, &delete(".github/workflows/release.yml"), t0()).is_err(),
        "and it never reaches outside its patterns"
    );
}

#[test]
fn grants_made_before_they_recorded_the_approval_fail_closed() {
    let req = delete("docs/a.md");
    let mut path = grant_for(ScopeKind::PathPattern, &req, Some(&["docs/**".to_owned()]));
    path.constraints.approved = None;
    assert_eq!(
        covers(&path, &delete("docs/b.md"), t0()),
        Err(NotCovered::Mismatch(
            "anything: it was made before grants recorded what was approved"
        )),
        "an old path grant could reach actions needing more, so it no longer covers"
    );
    let mut once = grant_for(ScopeKind::Once, &req, None);
    once.constraints.approved = None;
    once.constraints.requester = None;
    assert!(
        covers(&once, &req, t0()).is_ok(),
        "an old once grant is bound to the exact action's hash and still covers it"
    );
}

/// A delete of `path` in `cwd`, outside any repository.
fn delete_in(cwd: &str, path: &str) -> ActionRequest {
    let mut req = delete(path);
    req.action.cwd = cwd.to_owned();
    req.context.repo = None;
    req
}

#[test]
fn outside_a_repository_path_patterns_keep_the_approved_root() {
    let approved = delete_in("/tmp/x/scratchA", "src/a.txt");
    let g = grant_for(
        ScopeKind::PathPattern,
        &approved,
        Some(&["src/**".to_owned()]),
    );
    assert_eq!(
        g.constraints.root.as_deref(),
        Some("/tmp/x/scratchA"),
        "the grant records the directory its patterns are relative to"
    );
    let table = [
        (
            "src/ of another directory",
            delete_in("/tmp/x/scratchB", "src/b.txt"),
            false,
        ),
        (
            "src/ of the home directory",
            delete_in(HOME, "/home/dev/src/x.py"),
            false,
        ),
        (
            "src/ of the approved directory",
            delete_in("/tmp/x/scratchA", "src/c.txt"),
            true,
        ),
        (
            "the same file by absolute path from elsewhere",
            delete_in("/tmp", "/tmp/x/scratchA/src/d.txt"),
            true,
        ),
    ];
    for (scenario, req, covered) in table {
        let got = covers(&g, &req, t0());
        assert_eq!(
            got.is_ok(),
            covered,
            "{scenario}: src/** means the approved directory's src/, whatever the request's \
             cwd ({got:?})"
        );
    }
}

#[test]
fn grants_cover_only_the_agent_that_asked() {
    let mut in_run = shell("cargo test --release");
    in_run.run_id = "sess-A".into();
    let mut asked = shell("cargo test");
    asked.run_id = "sess-A".into();
    for scope in [ScopeKind::Once, ScopeKind::Run, ScopeKind::CommandProfile] {
        let g = grant_for(scope, &asked, None);
        let probe = if scope == ScopeKind::Once {
            &asked
        } else {
            &in_run
        };
        let e = eval_default(probe);
        assert!(
            g.covers(probe, &e, AGENT, t0()).is_ok(),
            "{scope:?}: the agent that asked is covered"
        );
        assert_eq!(
            g.covers(probe, &e, "bot2", t0()),
            Err(NotCovered::Mismatch("requests of another agent")),
            "{scope:?}: run ids are the agent's own words; another agent naming the run is \
             not the agent the person approved"
        );
        assert!(
            g.moved_by(probe, &e, "bot2", t0()).is_none(),
            "{scope:?}: another agent's request does not move (invalidate) the grant"
        );
    }
    let mut index = GrantIndex::new();
    index.insert(grant_for(ScopeKind::Run, &asked, None));
    let e = eval_default(&in_run);
    assert!(
        index.find(&in_run, &e, "bot2", t0()).is_none(),
        "the index finds no grant for another agent"
    );
}
