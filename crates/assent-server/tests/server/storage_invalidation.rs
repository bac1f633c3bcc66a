//! The store's side of grant invalidation, through the `Tx` contract on the suite's backend:
//! `invalidate_grant` is guarded (once, and only while the grant is live), and an invalidated
//! grant is never a candidate, never used, never swept as expired and never ended with its run.

use crate::common;
use std::sync::Arc;

use crate::common::{backend, start_time};
use assent_core::{ApprovalGrant, GrantConstraints, GrantStatus, ScopeKind};
use assent_server::store::NewGrant;
use assent_server::Store;
use chrono::{DateTime, Duration, Utc};

const REASON: &str = "base commit changed abc1234 → def5678";

fn run_grant(id: &str, now: DateTime<Utc>, lifetime: Duration) -> NewGrant {
    NewGrant {
        grant: ApprovalGrant {
            grant_id: id.to_owned(),
            approval_id: "ap1".to_owned(),
            run_id: "r1".to_owned(),
            scope_kind: ScopeKind::Run,
            action_kinds: vec![assent_core::ActionKind::Shell],
            constraints: GrantConstraints {
                run_id: Some("r1".to_owned()),
                ..GrantConstraints::default()
            },
            created_at: now,
            expires_at: now + lifetime,
            max_uses: None,
            used_count: 0,
            created_by: "owner".to_owned(),
            revocable: true,
            revoked_at: None,
            policy_version: "p".to_owned(),
            invalidated_at: None,
        },
        summary: "maven-test for run r1".to_owned(),
        created_by_role: None,
    }
}

/// A store with a prompt `ap1` and three grants of run r1: `live`, `revoked`, `expired`.
async fn store_with_grants() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = backend::open_store(dir.path()).await;
    let now = start_time();
    let mut tx = store.begin().await.unwrap();
    tx.insert_approval(&prompt()).await.unwrap();
    for (id, lifetime) in [("live", 60), ("revoked", 60), ("expired", -1)] {
        tx.insert_grant(&run_grant(id, now, Duration::minutes(lifetime)))
            .await
            .unwrap();
    }
    assert!(tx
        .revoke_grant("revoked", "owner", "no", now)
        .await
        .unwrap());
    tx.commit().await.unwrap();
    (dir, store)
}

fn prompt() -> assent_server::store::rows::ApprovalRow {
    let request: assent_core::ActionRequest = serde_json::from_value(common::maven("r1")).unwrap();
    let eval = assent_core::evaluate(
        &assent_core::Policy::default(),
        &request,
        &assent_core::Environment::new("/home/dev"),
    )
    .unwrap();
    let now = start_time();
    let s = assent_server::store::Submission {
        action_id: "action-1".to_owned(),
        requester: "default".to_owned(),
        body_hash: "hash".to_owned(),
        request: request.clone(),
        eval: eval.clone(),
        now,
        approval_expires_at: now + Duration::minutes(10),
        fallback_on_timeout: assent_core::FallbackOnTimeout::Deny,
        required_approvals: 1,
        denials_since: None,
        screen: false,
        routed: false,
        reviewer_takes: false,
    };
    assent_server::store::rows::ApprovalRow {
        id: "ap1".to_owned(),
        run_id: "r1".to_owned(),
        task_id: request.task_id.clone(),
        requester: "default".to_owned(),
        batch_key: eval.batch_key.clone(),
        action_kind: request.action.kind,
        risk: eval.decision.risk,
        requested_scope: eval.decision.offered_scopes.clone(),
        required_role: eval.decision.required_role,
        action_hash: eval.action_hash.clone(),
        first_request: request,
        detail: assent_server::records::prompt_detail(&assent_server::records::Recording::of(&s)),
        expires_at: s.approval_expires_at,
        created_at: now,
        asked: None,
    }
}

#[tokio::test]
async fn a_grant_is_invalidated_once_and_only_while_it_counts() {
    let (_dir, store) = store_with_grants().await;
    let now = start_time();
    let mut tx = store.begin().await.unwrap();
    assert!(
        !tx.invalidate_grant("revoked", REASON, now).await.unwrap(),
        "a revoked grant stays revoked"
    );
    assert!(
        !tx.invalidate_grant("expired", REASON, now).await.unwrap(),
        "an expired grant has nothing left to invalidate"
    );
    assert!(
        tx.invalidate_grant("live", REASON, now).await.unwrap(),
        "a live grant is invalidated"
    );
    assert!(
        !tx.invalidate_grant("live", REASON, now).await.unwrap(),
        "and only once"
    );
    let wire = tx.grant("live", now).await.unwrap().unwrap();
    assert_eq!(wire.status, GrantStatus::Invalidated, "its status says so");
    assert_eq!(
        wire.invalidated_reason.as_deref(),
        Some(REASON),
        "with the reason"
    );
    assert_eq!(wire.grant.invalidated_at, Some(now), "and when");
    assert!(
        tx.grant_candidates("r1", now).await.unwrap().is_empty(),
        "an invalidated grant is never a candidate"
    );
    assert!(!tx.use_grant("live", now).await.unwrap(), "nor used");
    assert_eq!(
        tx.end_run_grants("r1", None, now).await.unwrap(),
        0,
        "ending its run does not count it as ended by the run"
    );
    let later = now + Duration::hours(2);
    let due = tx.unannounced_expired_grants(later).await.unwrap();
    assert!(
        due.iter().all(|g| g.grant.grant_id != "live"),
        "its expiry is never announced: it had already stopped counting"
    );
    tx.commit().await.unwrap();
    let listed = store
        .grants(Some(GrantStatus::Invalidated), now)
        .await
        .unwrap();
    assert_eq!(
        listed.len(),
        1,
        "the list filtered by status shows the invalidated grant: {listed:?}"
    );
}

#[tokio::test]
async fn two_writers_invalidating_one_grant_invalidate_it_once() {
    let (_dir, store) = store_with_grants().await;
    let now = start_time();
    let mut first = store.begin().await.unwrap();
    assert!(
        first.invalidate_grant("live", REASON, now).await.unwrap(),
        "the first writer invalidates the grant"
    );
    let other = store.clone();
    // The second writer runs while the first still holds the row (PostgreSQL: it waits on
    // the row lock; SQLite: on the one writer) and finds the grant already invalidated.
    let second = tokio::spawn(async move {
        let mut tx = other.begin().await.unwrap();
        let won = tx
            .invalidate_grant("live", "another reason", now)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        won
    });
    tokio::task::yield_now().await;
    first.commit().await.unwrap();
    assert!(
        !second.await.unwrap(),
        "the second writer loses: the grant is invalidated exactly once"
    );
    let wire = store.grants(None, now).await.unwrap();
    let live = wire.iter().find(|g| g.grant.grant_id == "live").unwrap();
    assert_eq!(
        live.invalidated_reason.as_deref(),
        Some(REASON),
        "the first writer's reason stands"
    );
}
