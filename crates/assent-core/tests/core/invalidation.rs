//! Which grants a request invalidates (`ApprovalGrant::moved_by`): the grant's own action
//! after its base commit or diff moved, never an unrelated request that simply does not match.

use crate::common::*;
use assent_core::{
    ActionKind, ActionRequest, ApprovalGrant, GrantIndex, GrantStatus, NotCovered, Policy,
    ScopeKind,
};
use chrono::Duration;

const BASE_A: &str = "abc1234000000000000000000000000000000000";
const BASE_B: &str = "def5678000000000000000000000000000000000";
const DIFF_A: &str = "a1b2c3d4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DIFF_B: &str = "e5f6a7b8bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn at(mut req: ActionRequest, base: Option<&str>, diff: Option<&str>) -> ActionRequest {
    req.context.base_sha = base.map(str::to_owned);
    req.context.diff_fingerprint = diff.map(str::to_owned);
    req
}

fn edit(path: &str) -> ActionRequest {
    file(ActionKind::FileWrite, path)
}

/// A delete in the repo is asked as a tool approval, which offers a path-pattern grant (an
/// edit of a manifest is a diff approval: once or run only).
fn delete(path: &str) -> ActionRequest {
    file(ActionKind::FileDelete, path)
}

fn moved(g: &ApprovalGrant, req: &ActionRequest) -> Option<String> {
    g.moved_by(req, &eval_default(req), AGENT, t0())
        .map(|m| m.reason())
}

/// One scenario: a grant of `scope` made for `made_for`, then `request` arrives.
struct Row {
    name: &'static str,
    scope: ScopeKind,
    patterns: Option<&'static [&'static str]>,
    made_for: ActionRequest,
    request: ActionRequest,
    invalidated: Option<&'static str>,
}

fn rows() -> Vec<Row> {
    let maven = || shell("mvn -B test");
    let mut other_repo = at(maven(), Some(BASE_B), None);
    other_repo.context.repo = Some("/home/dev/other".into());
    other_repo.action.cwd = "/home/dev/other".into();
    let mut other_run = at(maven(), Some(BASE_B), None);
    other_run.run_id = "run-2".into();
    vec![
        Row {
            name: "a run grant's profile at a new base commit",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: at(shell("mvn test"), Some(BASE_B), None),
            invalidated: Some("base commit changed abc1234 → def5678"),
        },
        Row {
            name: "the same base commit: covered, nothing moved",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: at(maven(), Some(BASE_A), None),
            invalidated: None,
        },
        Row {
            name: "another repository at another commit is not this grant's",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: other_repo,
            invalidated: None,
        },
        Row {
            name: "another run at another commit is not this run grant's",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: other_run,
            invalidated: None,
        },
        Row {
            name: "another command at another commit is not this grant's",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: at(shell("cargo test"), Some(BASE_B), None),
            invalidated: None,
        },
        Row {
            name: "a request that does not say its base commit moves nothing",
            scope: ScopeKind::Run,
            patterns: None,
            made_for: at(maven(), Some(BASE_A), None),
            request: at(maven(), None, None),
            invalidated: None,
        },
        Row {
            name: "a command-profile grant of the repo at a new base commit",
            scope: ScopeKind::CommandProfile,
            patterns: None,
            made_for: at(shell("cargo test"), Some(BASE_A), None),
            request: at(shell("cargo test --workspace"), Some(BASE_B), None),
            invalidated: Some("base commit changed abc1234 → def5678"),
        },
        Row {
            name: "a once grant's edit with other content",
            scope: ScopeKind::Once,
            patterns: None,
            made_for: at(edit("Cargo.toml"), Some(BASE_A), Some(DIFF_A)),
            request: at(edit("Cargo.toml"), Some(BASE_A), Some(DIFF_B)),
            invalidated: Some("diff changed (a1b2c3d4 → e5f6a7b8)"),
        },
        Row {
            name: "a once grant's edit with other content at a new base commit",
            scope: ScopeKind::Once,
            patterns: None,
            made_for: at(edit("Cargo.toml"), Some(BASE_A), Some(DIFF_A)),
            request: at(edit("Cargo.toml"), Some(BASE_B), Some(DIFF_B)),
            invalidated: Some(
                "base commit changed abc1234 → def5678; diff changed (a1b2c3d4 → e5f6a7b8)",
            ),
        },
        Row {
            name: "an edit of another file is not the once grant's edit",
            scope: ScopeKind::Once,
            patterns: None,
            made_for: at(edit("Cargo.toml"), Some(BASE_A), Some(DIFF_A)),
            request: at(edit("web/package.json"), Some(BASE_A), Some(DIFF_B)),
            invalidated: None,
        },
        Row {
            name: "a path grant's delete under its patterns at a new base commit",
            scope: ScopeKind::PathPattern,
            patterns: Some(&["crates/*/src/old.rs"]),
            made_for: at(delete("crates/core/src/old.rs"), Some(BASE_A), None),
            request: at(delete("crates/cli/src/old.rs"), Some(BASE_B), None),
            invalidated: Some("base commit changed abc1234 → def5678"),
        },
        Row {
            name: "a delete outside a path grant's patterns is not the grant's",
            scope: ScopeKind::PathPattern,
            patterns: Some(&["crates/*/src/old.rs"]),
            made_for: at(delete("crates/core/src/old.rs"), Some(BASE_A), None),
            request: at(delete("web/old.js"), Some(BASE_B), None),
            invalidated: None,
        },
    ]
}

#[test]
fn a_grant_is_invalidated_by_its_own_action_moved_and_by_nothing_else() {
    for row in rows() {
        let patterns: Option<Vec<String>> = row
            .patterns
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect());
        let g = grant_for(row.scope, &row.made_for, patterns.as_deref());
        assert!(
            g.covers(&row.made_for, &eval_default(&row.made_for), AGENT, t0())
                .is_ok(),
            "{}: the grant covers what it was made for",
            row.name
        );
        assert_eq!(
            moved(&g, &row.request).as_deref(),
            row.invalidated,
            "{}: invalidated exactly when the request is the grant's action moved",
            row.name
        );
        if row.invalidated.is_some() {
            assert!(
                g.covers(&row.request, &eval_default(&row.request), AGENT, t0())
                    .is_err(),
                "{}: a moved action is not covered: it is asked again",
                row.name
            );
        }
    }
}

#[test]
fn an_invalidated_grant_never_covers_again_nor_moves_twice() {
    let made_for = at(shell("mvn -B test"), Some(BASE_A), None);
    let mut g = grant_for(ScopeKind::Run, &made_for, None);
    let back = at(shell("mvn -B test"), Some(BASE_A), None);
    g.invalidated_at = Some(t0());
    assert_eq!(
        g.status(t0()),
        GrantStatus::Invalidated,
        "the status says why it stopped"
    );
    assert_eq!(
        g.covers(&back, &eval_default(&back), AGENT, t0()),
        Err(NotCovered::Invalidated),
        "back at the old commit, the grant still does not count"
    );
    assert_eq!(
        moved(&g, &at(shell("mvn -B test"), Some(BASE_B), None)),
        None,
        "an invalidated grant is not invalidated again"
    );
    let mut index = GrantIndex::new();
    index.insert(g);
    assert!(
        index
            .find(&back, &eval_default(&back), AGENT, t0())
            .is_none(),
        "the index never finds an invalidated grant"
    );
}

#[test]
fn a_grant_that_already_stopped_counting_is_not_invalidated() {
    let made_for = at(shell("mvn -B test"), Some(BASE_A), None);
    let later = at(shell("mvn -B test"), Some(BASE_B), None);
    let g = grant_for(ScopeKind::Run, &made_for, None);
    let after_expiry = g.moved_by(
        &later,
        &eval_default(&later),
        AGENT,
        t0() + Duration::hours(2),
    );
    assert_eq!(
        after_expiry, None,
        "an expired grant has nothing left to invalidate"
    );
    let changed = Policy::from_toml("block_patterns = [\"shutdown *\"]").unwrap();
    assert_eq!(
        g.moved_by(&later, &eval(&changed, &later), AGENT, t0()),
        None,
        "under another policy version the grant stopped counting for that reason"
    );
    let mut revoked = g.clone();
    revoked.revoked_at = Some(t0());
    assert_eq!(
        moved(&revoked, &later),
        None,
        "a revoked grant stays revoked"
    );
}
