//! Grant lookup with 100,000 active grants.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "bench"
)]

use assent_core::{
    evaluate, Action, ActionContext, ActionKind, ActionRequest, ApprovalGrant, Environment,
    GrantConstraints, GrantIndex, Policy, RequestedBy, ScopeKind,
};
use chrono::{Duration, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};

const GRANTS: usize = 100_000;
/// The agent asking: the grants below are bound to it.
const AGENT: &str = "bench-agent";

fn request(run: &str, line: &str) -> ActionRequest {
    ActionRequest {
        run_id: run.into(),
        task_id: "task".into(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Shell,
            command: Some(line.into()),
            argv: None,
            cwd: "/home/dev/shop".into(),
            paths: vec![],
            network: vec![],
            credential_scope: None,
            tool: None,
        },
        context: ActionContext {
            repo: Some("/home/dev/shop".into()),
            ..ActionContext::default()
        },
        reason: String::new(),
    }
}

fn bench(c: &mut Criterion) {
    let policy = Policy::default();
    let env = Environment::new("/home/dev");
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let mut index = GrantIndex::new();
    for i in 0..GRANTS {
        let scope = [
            ScopeKind::Once,
            ScopeKind::Run,
            ScopeKind::CommandProfile,
            ScopeKind::Repo,
        ][i % 4];
        let constraints = match scope {
            ScopeKind::Once => GrantConstraints {
                action_hash: Some(format!("{i:064x}")),
                ..GrantConstraints::default()
            },
            ScopeKind::Run => GrantConstraints {
                run_id: Some(format!("run-{i}")),
                batch_key: Some(format!("bk-{i}")),
                ..GrantConstraints::default()
            },
            ScopeKind::CommandProfile => GrantConstraints {
                profile: Some(format!("profile-{}", i % 500)),
                repo: Some(format!("/repos/r{i}")),
                ..GrantConstraints::default()
            },
            _ => GrantConstraints {
                repo: Some(format!("/repos/r{i}")),
                ..GrantConstraints::default()
            },
        };
        index.insert(ApprovalGrant {
            grant_id: format!("g{i}"),
            approval_id: format!("a{i}"),
            run_id: format!("run-{i}"),
            scope_kind: scope,
            action_kinds: vec![ActionKind::Shell],
            constraints,
            created_at: now,
            expires_at: now + Duration::hours(8),
            max_uses: None,
            used_count: 0,
            created_by: "bench".into(),
            revocable: true,
            revoked_at: None,
            policy_version: policy.version().to_owned(),
            invalidated_at: None,
        });
    }
    let hit_req = request("run-hit", "mvn -B test");
    let hit_eval = evaluate(&policy, &hit_req, &env).unwrap();
    let c_hit =
        GrantConstraints::for_scope(ScopeKind::Run, &hit_req, &hit_eval, AGENT, None).unwrap();
    index.insert(ApprovalGrant {
        grant_id: "hit".into(),
        approval_id: "a-hit".into(),
        run_id: "run-hit".into(),
        scope_kind: ScopeKind::Run,
        action_kinds: vec![ActionKind::Shell],
        constraints: c_hit,
        created_at: now,
        expires_at: now + Duration::hours(8),
        max_uses: None,
        used_count: 0,
        created_by: "bench".into(),
        revocable: true,
        revoked_at: None,
        policy_version: policy.version().to_owned(),
        invalidated_at: None,
    });
    let later_req = request("run-hit", "mvn verify");
    let later_eval = evaluate(&policy, &later_req, &env).unwrap();
    let miss_req = request("run-miss", "git push");
    let miss_eval = evaluate(&policy, &miss_req, &env).unwrap();
    assert!(
        index.find(&later_req, &later_eval, AGENT, now).is_some(),
        "the run grant covers the later request"
    );
    assert!(
        index.find(&miss_req, &miss_eval, AGENT, now).is_none(),
        "nothing covers the miss"
    );
    let mut group = c.benchmark_group("grant_index_100k");
    group.bench_function("find_hit", |b| {
        b.iter(|| std::hint::black_box(index.find(&later_req, &later_eval, AGENT, now)))
    });
    group.bench_function("find_miss", |b| {
        b.iter(|| std::hint::black_box(index.find(&miss_req, &miss_eval, AGENT, now)))
    });
    group.finish();
    moved_by(c, &index, now);
}

/// What invalidation adds to an asked request, per live candidate: the common case (the grant
/// is at the request's base commit: two comparisons) and the worst (its own action at another
/// base commit: the batch key recomputed and the whole coverage check).
fn moved_by(c: &mut Criterion, index: &GrantIndex, now: chrono::DateTime<Utc>) {
    let (policy, env) = (Policy::default(), Environment::new("/home/dev"));
    let mut at_base = request("run-hit", "mvn -B test");
    at_base.context.base_sha = Some("a".repeat(40));
    let at_base_eval = evaluate(&policy, &at_base, &env).unwrap();
    let mut moved = at_base.clone();
    moved.context.base_sha = Some("b".repeat(40));
    let moved_eval = evaluate(&policy, &moved, &env).unwrap();
    let mut grant = index.get("hit").unwrap().clone();
    grant.constraints =
        GrantConstraints::for_scope(ScopeKind::Run, &at_base, &at_base_eval, AGENT, None).unwrap();
    assert!(
        grant.moved_by(&moved, &moved_eval, AGENT, now).is_some(),
        "the grant's own action at another base commit moved it"
    );
    let mut group = c.benchmark_group("moved_by");
    group.bench_function("same_base", |b| {
        b.iter(|| std::hint::black_box(grant.moved_by(&at_base, &at_base_eval, AGENT, now)))
    });
    group.bench_function("other_base", |b| {
        b.iter(|| std::hint::black_box(grant.moved_by(&moved, &moved_eval, AGENT, now)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
