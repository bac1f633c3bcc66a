//! Wakes an agent long-polling an approval only when something happened to that approval.
//!
//! A waiting gate used to re-read its approval (three queries) on every committed event of any
//! approval: with many gates waiting, one decision cost every gate a read. Here one follower
//! per replica reads each new page of the event log once and wakes only the subscriptions of
//! the approvals it names; an event that may move a prompt without naming it (a run ended or
//! paused) wakes them all, as does a log the follower cannot read — a wake costs one re-read,
//! a missed one would hold an agent for its whole long poll.
//!
//! The follower starts with the first subscription and stops with the last one's replica state
//! (it holds a weak reference). It follows the same `watch` as the event streams, so it sees
//! every commit they see, on this replica and, through the store's bus, on the others.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use assent_protocol::Event;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::store::Store;

/// Events read per query while catching up.
const PAGE: i64 = 200;

/// The approvals agents wait on, on this replica, each with a counter that moves when an event
/// names it.
#[derive(Debug)]
pub struct ApprovalWatch {
    store: Arc<dyn Store>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    slots: HashMap<String, Slot>,
    follower: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Slot {
    subscribers: usize,
    wake: watch::Sender<u64>,
}

/// A waiter's interest in one approval; woken by [`Subscription::changed`].
#[derive(Debug)]
pub struct Subscription {
    owner: Arc<ApprovalWatch>,
    approval_id: String,
    woken: watch::Receiver<u64>,
}

impl ApprovalWatch {
    pub fn new(store: Arc<dyn Store>) -> Arc<ApprovalWatch> {
        Arc::new(ApprovalWatch {
            store,
            state: Mutex::default(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Plain maps and counters: usable after a panic elsewhere.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Interest in `approval_id` from now on: subscribe before reading the approval, so an
    /// event committed after the read wakes the subscription.
    pub fn subscribe(self: &Arc<Self>, approval_id: &str) -> Subscription {
        let mut state = self.state();
        if state.follower.as_ref().is_none_or(JoinHandle::is_finished) {
            let newest = self.store.events().watch();
            state.follower = Some(tokio::spawn(follow(Arc::downgrade(self), newest)));
        }
        let slot = state
            .slots
            .entry(approval_id.to_owned())
            .or_insert_with(|| Slot {
                subscribers: 0,
                wake: watch::channel(0).0,
            });
        slot.subscribers += 1;
        let mut woken = slot.wake.subscribe();
        woken.borrow_and_update();
        Subscription {
            owner: Arc::clone(self),
            approval_id: approval_id.to_owned(),
            woken,
        }
    }

    fn idle(&self) -> bool {
        self.state().slots.is_empty()
    }

    fn wake(&self, approval_id: &str) {
        if let Some(slot) = self.state().slots.get(approval_id) {
            slot.wake.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    fn wake_all(&self) {
        for slot in self.state().slots.values() {
            slot.wake.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    fn unsubscribe(&self, approval_id: &str) {
        let mut state = self.state();
        let Some(slot) = state.slots.get_mut(approval_id) else {
            return;
        };
        slot.subscribers = slot.subscribers.saturating_sub(1);
        if slot.subscribers == 0 {
            state.slots.remove(approval_id);
        }
    }
}

impl Drop for ApprovalWatch {
    fn drop(&mut self) {
        if let Some(follower) = self.state().follower.take() {
            follower.abort();
        }
    }
}

impl Subscription {
    /// Waits until an event may have changed the approval. `false` when no more wakes can
    /// come (the follower ended): the caller then re-reads and returns what it has.
    pub async fn changed(&mut self) -> bool {
        self.woken.changed().await.is_ok()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.owner.unsubscribe(&self.approval_id);
    }
}

/// Whom an event may concern among the waiters.
enum Wakes<'a> {
    /// The waiters of this approval.
    One(&'a str),
    /// Every waiter: the event may move prompts it does not name.
    All,
    /// Nobody: it moves no prompt.
    Nobody,
}

fn wakes(event: &Event) -> Wakes<'_> {
    match event {
        Event::ApprovalRequested { approval }
        | Event::ApprovalUpdated { approval }
        | Event::ApprovalSettled { approval } => Wakes::One(&approval.approval_id),
        Event::RunEnded { .. }
        | Event::RunPaused { .. }
        | Event::RunResumed { .. }
        | Event::Reset {} => Wakes::All,
        Event::ApprovalWaiting { .. }
        | Event::GrantCreated { .. }
        | Event::GrantUsed { .. }
        | Event::GrantRevoked { .. }
        | Event::GrantExpired { .. }
        | Event::GrantInvalidated { .. }
        | Event::PolicyChanged { .. }
        | Event::CredentialReleased { .. }
        | Event::CampaignUpdated { .. }
        | Event::CampaignStopped { .. } => Wakes::Nobody,
    }
}

/// Reads each new page of the log once and wakes the subscriptions it names, until the watch
/// is gone.
async fn follow(owner: Weak<ApprovalWatch>, mut newest: watch::Receiver<i64>) {
    let mut seen = *newest.borrow_and_update();
    loop {
        if newest.changed().await.is_err() {
            if let Some(owner) = owner.upgrade() {
                owner.wake_all();
            }
            return;
        }
        let Some(owner) = owner.upgrade() else {
            return;
        };
        let top = *newest.borrow_and_update();
        if owner.idle() {
            // Nobody waits: a subscription made from now on reads its approval itself.
            seen = seen.max(top);
            continue;
        }
        while seen < top {
            match owner.store.events().after(seen, PAGE).await {
                Ok(events) if events.is_empty() => break,
                Ok(events) => {
                    for envelope in &events {
                        seen = seen.max(envelope.id);
                        match wakes(&envelope.event) {
                            Wakes::One(id) => owner.wake(id),
                            Wakes::All => owner.wake_all(),
                            Wakes::Nobody => {}
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!(%err, "approval watch cannot read the event log; waking every waiter");
                    owner.wake_all();
                    seen = top;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SqliteStore;
    use assent_protocol::Approval;
    use chrono::Utc;

    fn settled(approval_id: &str) -> Event {
        let approval: Approval = serde_json::from_value(serde_json::json!({
            "approval_id": approval_id, "run_id": "run-1", "task_id": "task-1",
            "requested_by": "agent", "action_kind": "shell", "status": "approved_once",
            "decision": "ask", "risk": "medium", "reasons": ["r"], "rule": "ask.default",
            "recommendation": {"decision": "approve", "text": "Allow once"},
            "evidence": {"summary": "s", "cwd": "/"}, "offered_scopes": ["once"],
            "batch_key": "bk", "count": 1, "members": [], "reason": "",
            "created_at": "2026-12-07T12:00:00Z", "updated_at": "2026-12-07T12:00:00Z",
            "expires_at": "2026-12-07T12:10:00Z", "fallback_on_timeout": "deny",
        }))
        .unwrap();
        Event::ApprovalSettled { approval }
    }

    async fn emit(store: &Arc<dyn Store>, event: &Event) {
        let mut tx = store.begin().await.unwrap();
        tx.insert_event(Utc::now(), event).await.unwrap();
        tx.commit().await.unwrap();
    }

    #[tokio::test]
    async fn a_waiter_wakes_for_its_own_approval_and_a_runs_end_only() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(
            SqliteStore::open(&dir.path().join("assent.db"))
                .await
                .unwrap(),
        );
        let watch = ApprovalWatch::new(store.clone());
        let mut a = watch.subscribe("apr-a");
        let mut b = watch.subscribe("apr-b");

        emit(&store, &settled("apr-b")).await;
        assert!(b.changed().await, "b's settlement wakes b");
        emit(&store, &settled("apr-a")).await;
        assert!(a.changed().await, "a's settlement wakes a");
        assert_eq!(
            *a.woken.borrow(),
            1,
            "a was woken once, by its own event: the follower handles events in order, so b's \
             came before and did not wake a"
        );
        assert!(
            !b.woken.has_changed().unwrap(),
            "a's settlement does not wake b (it would re-read its approval for nothing)"
        );

        let ended = Event::RunEnded {
            run_id: "run-1".into(),
            requester: None,
        };
        emit(&store, &ended).await;
        assert!(
            a.changed().await,
            "a run's end may settle prompts it does not name: a wakes"
        );
        assert!(b.changed().await, "and so does b");

        drop(a);
        assert!(!watch.idle(), "b still waits");
        drop(b);
        assert!(
            watch.idle(),
            "an approval nobody waits on any more is forgotten"
        );
        store.close().await;
    }
}
