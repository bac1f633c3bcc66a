//! The storage contract every backend keeps, through the public `Store`/`Tx`/`EventBus`
//! traits over the backend the suite runs on (`ASSENT_TEST_BACKEND`): guards report lost
//! races instead of writing twice, a dropped transaction writes nothing, event ids come from
//! the database and the bus moves after the commit.

use std::sync::Arc;

use crate::common::{backend, shell, start_time};
use assent_core::{
    ApprovalGrant, ApprovalStatus, Environment, FallbackOnTimeout, GrantConstraints, Policy,
    ScopeKind,
};
use assent_protocol::{Event, Resolution, RunState, RunStatus};
use assent_server::records::{prompt_detail, Recording};
use assent_server::store::rows::{ApprovalRow, HoldRow, Pending, SettleRow};
use assent_server::store::{NewGrant, Submission};
use assent_server::{Store, StoreError};
use chrono::Duration;

async fn store() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = backend::open_store(dir.path()).await;
    (dir, store)
}

/// A pending prompt for `mvn -B test` in run `run`, opened at the start time for 10 minutes.
fn prompt(id: &str, run: &str) -> ApprovalRow {
    let request: assent_core::ActionRequest =
        serde_json::from_value(shell(run, "mvn -B test", "unknown", None)).unwrap();
    let eval = assent_core::evaluate(&Policy::default(), &request, &Environment::new("/home/dev"))
        .unwrap();
    let now = start_time();
    let s = Submission {
        action_id: format!("action-{id}"),
        requester: "default".to_owned(),
        body_hash: "hash".to_owned(),
        request: request.clone(),
        eval: eval.clone(),
        now,
        approval_expires_at: now + Duration::minutes(10),
        fallback_on_timeout: FallbackOnTimeout::Deny,
        required_approvals: 1,
        denials_since: None,
        screen: false,
        routed: false,
        reviewer_takes: false,
    };
    ApprovalRow {
        id: id.to_owned(),
        run_id: run.to_owned(),
        task_id: request.task_id.clone(),
        requester: "default".to_owned(),
        batch_key: eval.batch_key.clone(),
        action_kind: request.action.kind,
        risk: eval.decision.risk,
        requested_scope: eval.decision.offered_scopes.clone(),
        required_role: eval.decision.required_role,
        action_hash: eval.action_hash.clone(),
        first_request: request,
        detail: prompt_detail(&Recording::of(&s)),
        expires_at: s.approval_expires_at,
        created_at: now,
        asked: None,
    }
}

fn settle_row(id: &str) -> SettleRow<'_> {
    SettleRow {
        approval_id: id,
        status: ApprovalStatus::Denied,
        resolution: Resolution::Denied,
        decided_by: "owner",
        decided_role: None,
        reason: Some("no"),
        grant_id: None,
        now: start_time() + Duration::minutes(1),
    }
}

#[tokio::test]
async fn a_settlement_wins_once_and_a_dropped_transaction_writes_nothing() {
    let (_dir, store) = store().await;
    let mut tx = store.begin().await.unwrap();
    tx.insert_approval(&prompt("ap1", "r1")).await.unwrap();
    tx.commit().await.unwrap();

    let mut tx = store.begin().await.unwrap();
    let settled = tx.settle_approval(settle_row("ap1"), &[]).await.unwrap();
    assert_eq!(
        (
            settled.approval.approval_id.as_str(),
            settled.approval.status
        ),
        ("ap1", settle_row("ap1").status),
        "the settlement answers with the approval as it settled it, read with the update"
    );
    let again = tx.settle_approval(settle_row("ap1"), &[]).await;
    assert!(
        matches!(again, Err(StoreError::Conflict(_))),
        "a second settlement of one prompt is a conflict (409), never a second decision: {again:?}"
    );
    drop(tx);
    let record = store.approval("ap1").await.unwrap().unwrap();
    assert_eq!(
        record.approval.status,
        ApprovalStatus::Requested,
        "a transaction dropped uncommitted leaves the prompt pending"
    );

    let mut tx = store.begin().await.unwrap();
    assert_eq!(
        tx.join_approval("ap1", start_time()).await.unwrap(),
        Some(2),
        "joining a pending prompt makes the request its second member"
    );
    tx.settle_approval(settle_row("ap1"), &[]).await.unwrap();
    assert_eq!(
        tx.join_approval("ap1", start_time()).await.unwrap(),
        None,
        "a settled prompt cannot be joined"
    );
    tx.commit().await.unwrap();
    let record = store.approval("ap1").await.unwrap().unwrap();
    assert_eq!(
        (record.approval.status, record.approval.count),
        (ApprovalStatus::Denied, 2),
        "the committed settlement and join are read back"
    );
}

#[tokio::test]
async fn due_prompts_and_deadlines_follow_expiry() {
    let (_dir, store) = store().await;
    assert_eq!(
        store.next_deadline().await.unwrap(),
        None,
        "nothing pending, nothing due"
    );
    let mut tx = store.begin().await.unwrap();
    tx.insert_approval(&prompt("ap1", "r1")).await.unwrap();
    tx.insert_approval(&prompt("ap2", "r2")).await.unwrap();
    tx.commit().await.unwrap();
    let expires = start_time() + Duration::minutes(10);
    assert_eq!(
        store.next_deadline().await.unwrap(),
        Some(expires),
        "the next deadline is the earliest pending expiry"
    );
    let mut tx = store.begin().await.unwrap();
    let before = tx
        .pending_approvals(Pending::DueAt(expires - Duration::seconds(1)))
        .await;
    assert_eq!(
        before.unwrap(),
        Vec::<String>::new(),
        "nothing is due before its time"
    );
    let mut due = tx.pending_approvals(Pending::DueAt(expires)).await.unwrap();
    due.sort();
    assert_eq!(
        due,
        vec!["ap1", "ap2"],
        "both prompts are due at their expiry"
    );
    let of_run = tx.pending_approvals(Pending::OfRun("r2")).await.unwrap();
    assert_eq!(of_run, vec!["ap2"], "a run's pending prompts are its own");
}

#[tokio::test]
async fn grant_guards_count_uses_revocations_and_announcements_once() {
    let (_dir, store) = store().await;
    let now = start_time();
    let grant = ApprovalGrant {
        grant_id: "g1".to_owned(),
        approval_id: "ap1".to_owned(),
        run_id: "r1".to_owned(),
        scope_kind: ScopeKind::Once,
        action_kinds: vec![assent_core::ActionKind::Shell],
        constraints: GrantConstraints::default(),
        created_at: now,
        expires_at: now + Duration::minutes(5),
        max_uses: Some(1),
        used_count: 0,
        created_by: "owner".to_owned(),
        revocable: true,
        revoked_at: None,
        policy_version: "p".to_owned(),
        invalidated_at: None,
    };
    let mut tx = store.begin().await.unwrap();
    tx.insert_approval(&prompt("ap1", "r1")).await.unwrap();
    tx.insert_grant(&NewGrant {
        grant,
        summary: "mvn once".to_owned(),
        created_by_role: None,
    })
    .await
    .unwrap();
    assert_eq!(
        tx.deadline_and_holds(&[]).await.unwrap().0,
        Some(now + Duration::minutes(5)),
        "the next deadline is the earlier of the pending prompt's (10 min) and the grant's (5 min)"
    );
    let candidates = tx.grant_candidates("r1", now).await.unwrap();
    assert_eq!(
        candidates.len(),
        1,
        "a live grant of the run is a candidate"
    );
    let other_run = tx.grant_candidates("r2", now).await.unwrap();
    assert!(other_run.is_empty(), "a once grant is bound to its run");
    assert!(
        tx.use_grant("g1", now).await.unwrap(),
        "the one use is consumed"
    );
    assert!(
        !tx.use_grant("g1", now).await.unwrap(),
        "a spent grant is not used twice"
    );

    let later = now + Duration::minutes(6);
    let expired = tx.unannounced_expired_grants(later).await.unwrap();
    assert_eq!(
        expired.len(),
        1,
        "a grant past its time awaits its announcement"
    );
    assert!(
        tx.mark_grant_announced("g1").await.unwrap(),
        "the first sweep announces it"
    );
    assert!(
        !tx.mark_grant_announced("g1").await.unwrap(),
        "a second sweep does not"
    );
    assert_eq!(
        tx.deadline_and_holds(&[]).await.unwrap().0,
        Some(now + Duration::minutes(10)),
        "an announced grant's expiry is past: the prompt's is the next deadline"
    );
    assert!(
        tx.revoke_grant("g1", "owner", "done", now).await.unwrap(),
        "a grant is revoked once"
    );
    assert!(
        !tx.revoke_grant("g1", "owner", "again", now).await.unwrap(),
        "revoking it again reports it was already revoked"
    );
    tx.commit().await.unwrap();
}

/// `run_id` held as `status` by prompt `ap1` at `now`.
fn hold(run_id: &str, status: RunStatus, now: chrono::DateTime<chrono::Utc>) -> HoldRow<'_> {
    HoldRow {
        run_id,
        status,
        reason: "held",
        approval_id: "ap1",
        now,
        campaign: None,
    }
}

#[tokio::test]
async fn run_holds_and_resumes_keep_their_order() {
    let (_dir, store) = store().await;
    let now = start_time();
    let mut tx = store.begin().await.unwrap();
    tx.insert_approval(&prompt("ap1", "r1")).await.unwrap();
    let paused = tx
        .hold_run(hold("r1", RunStatus::Paused, now))
        .await
        .unwrap();
    assert_eq!(paused.status, RunStatus::Paused, "a timeout pauses the run");
    let resumed = tx.resume_run("r1", now).await.unwrap();
    assert_eq!(resumed.status, RunStatus::Running, "a paused run resumes");
    let again = tx.resume_run("r1", now).await;
    assert!(
        matches!(again, Err(StoreError::Conflict(_))),
        "a running run cannot be resumed: {again:?}"
    );
    tx.hold_run(hold("r2", RunStatus::Cancelled, now))
        .await
        .unwrap();
    let still = tx
        .hold_run(hold("r2", RunStatus::Paused, now))
        .await
        .unwrap();
    assert_eq!(
        still.status,
        RunStatus::Cancelled,
        "a cancelled run stays cancelled"
    );
    let holds = tx.run_holds(&["r1", "r2", "r3"]).await.unwrap();
    assert_eq!(
        holds.keys().map(String::as_str).collect::<Vec<_>>(),
        vec!["r2"],
        "only held runs are returned (r1 runs again, r3 was never held)"
    );
}

/// The holds read with the deadline, checked against `run_holds` read alone; the deadline.
async fn deadline_checking_holds(
    tx: &mut dyn assent_server::store::Tx,
    runs: &[&str],
) -> (
    Option<chrono::DateTime<chrono::Utc>>,
    std::collections::HashMap<String, RunState>,
) {
    let (deadline, holds) = tx.deadline_and_holds(runs).await.unwrap();
    assert_eq!(
        holds,
        tx.run_holds(runs).await.unwrap(),
        "the holds read with the deadline are run_holds' for {runs:?}"
    );
    (deadline, holds)
}

/// What a batch of submissions reads first, the deadline and its runs' holds, is one
/// statement (one round trip); it must answer as the reads of each do, with and without a
/// deadline, with and without a held run among those asked about.
#[tokio::test]
async fn deadline_and_holds_answer_as_the_two_reads_do() {
    let (_dir, store) = store().await;
    let now = start_time();
    let mut tx = store.begin().await.unwrap();
    let together = deadline_checking_holds(tx.as_mut(), &["r1"]).await;
    assert_eq!(
        together,
        (None, Default::default()),
        "an empty store: nothing expires, nothing is held"
    );

    tx.insert_approval(&prompt("ap1", "r1")).await.unwrap();
    tx.hold_run(hold("r2", RunStatus::Paused, now))
        .await
        .unwrap();
    tx.hold_run(hold("r3", RunStatus::Cancelled, now))
        .await
        .unwrap();
    let prompt_expiry = Some(now + Duration::minutes(10));
    let together = deadline_checking_holds(tx.as_mut(), &["r1", "r2", "r3", "r4"]).await;
    assert_eq!(
        together.0, prompt_expiry,
        "a deadline and two held runs among four: the pending prompt's expiry is the deadline"
    );
    let mut held: Vec<_> = together.1.keys().map(String::as_str).collect();
    held.sort_unstable();
    assert_eq!(
        held,
        vec!["r2", "r3"],
        "each held run once, the running ones not at all"
    );

    let together = deadline_checking_holds(tx.as_mut(), &["r1", "r4"]).await;
    assert_eq!(
        together.0, prompt_expiry,
        "a deadline, no held run among those asked about"
    );
    assert!(together.1.is_empty(), "r2 and r3 were not asked about");
    let together = deadline_checking_holds(tx.as_mut(), &[]).await;
    assert_eq!(
        together.0, prompt_expiry,
        "no run asked about: the deadline alone, which does not depend on the runs asked about"
    );
}

#[tokio::test]
async fn a_run_keeps_its_campaign_through_later_holds() {
    let (_dir, store) = store().await;
    let now = start_time();
    let mut tx = store.begin().await.unwrap();
    let started = HoldRow {
        run_id: "r-a",
        status: RunStatus::Running,
        reason: "svc-a is in approved stage 1 of campaign java21",
        approval_id: "ap-def",
        now,
        campaign: Some("java21"),
    };
    let run = tx.hold_run(started).await.unwrap();
    assert_eq!(run.campaign.as_deref(), Some("java21"), "{run:?}");
    let other = HoldRow {
        run_id: "r-x",
        campaign: Some("other"),
        ..started
    };
    tx.hold_run(other).await.unwrap();
    // A timeout's hold names no campaign: the run must stay the campaign's, or a later
    // stop of the campaign would miss it.
    let timed_out = HoldRow {
        status: RunStatus::Paused,
        reason: "a prompt went unanswered",
        approval_id: "ap-prompt",
        campaign: None,
        ..started
    };
    let run = tx.hold_run(timed_out).await.unwrap();
    assert_eq!(
        run.campaign.as_deref(),
        Some("java21"),
        "a hold without a campaign keeps the run's: {run:?}"
    );
    let ids = |runs: Vec<RunState>| runs.into_iter().map(|r| r.run_id).collect::<Vec<_>>();
    assert_eq!(
        ids(tx.campaign_runs("java21", RunStatus::Paused).await.unwrap()),
        vec!["r-a"],
        "the campaign's paused runs, not another campaign's"
    );
    assert!(
        tx.campaign_runs("java21", RunStatus::Running)
            .await
            .unwrap()
            .is_empty(),
        "r-a is no longer running"
    );
    assert_eq!(
        ids(tx.campaign_runs("other", RunStatus::Running).await.unwrap()),
        vec!["r-x"],
        "each campaign finds its own"
    );
}

#[tokio::test]
async fn event_ids_come_from_the_database_and_the_bus_moves_after_commit() {
    let (_dir, store) = store().await;
    let bus = store.events();
    let mut watch = bus.watch();
    let start = *watch.borrow_and_update();
    let ended = |run: &str| Event::RunEnded {
        run_id: run.to_owned(),
        requester: None,
    };

    let mut tx = store.begin().await.unwrap();
    tx.insert_event(start_time(), &ended("dropped"))
        .await
        .unwrap();
    drop(tx);
    assert!(
        !watch.has_changed().unwrap(),
        "an uncommitted event is never announced"
    );

    let mut tx = store.begin().await.unwrap();
    tx.insert_event(start_time(), &ended("a")).await.unwrap();
    tx.insert_event(start_time(), &ended("b")).await.unwrap();
    assert!(
        !watch.has_changed().unwrap(),
        "nothing is announced before the commit"
    );
    tx.commit().await.unwrap();
    let newest = *watch.borrow_and_update();
    assert!(newest > start, "the watch only moves forward");
    let events = bus.after(start, 10).await.unwrap();
    let runs: Vec<_> = events
        .iter()
        .map(|e| match &e.event {
            Event::RunEnded { run_id, .. } => run_id.as_str(),
            _ => "another event",
        })
        .collect();
    assert_eq!(
        runs,
        ["a", "b"],
        "the log holds exactly the committed events, oldest first"
    );
    let ids: Vec<i64> = events.iter().map(|e| e.id).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]) && ids.last() == Some(&newest),
        "ids increase within a transaction, and after the commit the bus names the newest \
         event: {ids:?} against {newest}"
    );
    assert_eq!(
        bus.bounds().await.unwrap().1,
        newest,
        "the newest stored id is the last committed"
    );
}
