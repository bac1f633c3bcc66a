//! Wakes an agent long-polling an approval only when something happened to that approval.
//!
//! A waiting gate used to re-read its approval (three queries) on every committed event of any
//! approval: with many gates waiting, one decision cost every gate a read. Here one follower
//! per replica reads each new page of the event log once and wakes only the subscriptions of
//! the approvals it names; an event that may move a prompt without naming it (a run ended or
//! paused) wakes them all, as does a log the follower cannot read — a wake costs one re-read,
//! a missed one would hold an agent for its whole long poll.
//!
//! A wake carries the approval when what woke it settled it (an `approval.settled` event, or
//! this replica's own settlement told at once with [`ApprovalWatch::settled`]): the waiter
//! answers with that and reads nothing more; any other wake costs it one re-read.
//!
//! The follower starts with the first subscription and stops with the last one's replica state
//! (it holds a weak reference). It follows the same `watch` as the event streams, so it sees
//! every commit they see, on this replica and, through the store's bus, on the others.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use assent_core::ApprovalStatus;
use assent_protocol::{Approval, Event, Subject};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::store::Store;

/// Events read per query while catching up.
const PAGE: i64 = 200;

/// The approvals agents wait on, on this replica, each with a [`Wake`] that moves when an event
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
    wake: watch::Sender<Wake>,
}

/// What the waiters of one approval were told: how many times they were woken, and the
/// approval as last told settled (a wake that names no settlement leaves it: a settled
/// approval is never pending again, only settled anew — revoked).
#[derive(Debug, Clone, Default)]
struct Wake {
    count: u64,
    settled: Option<Arc<Approval>>,
}

/// A waiter's interest in one approval; woken by [`Subscription::changed`].
#[derive(Debug)]
pub struct Subscription {
    owner: Arc<ApprovalWatch>,
    approval_id: String,
    woken: watch::Receiver<Wake>,
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
                wake: watch::channel(Wake::default()).0,
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

    /// This replica settled `approval` and committed it: its waiters are woken now with it,
    /// before the follower reads the commit's events back (an approval still pending wakes
    /// them to read it again).
    pub fn settled(&self, approval: &Approval) {
        self.wake(&approval.approval_id, Some(approval));
    }

    fn wake(&self, approval_id: &str, settled: Option<&Approval>) {
        let settled = settled.filter(|a| a.status != ApprovalStatus::Requested);
        if let Some(slot) = self.state().slots.get(approval_id) {
            slot.wake.send_modify(|wake| {
                wake.count = wake.count.wrapping_add(1);
                if let Some(settled) = settled {
                    wake.settled = Some(Arc::new(settled.clone()));
                }
            });
        }
    }

    fn wake_all(&self) {
        for slot in self.state().slots.values() {
            slot.wake
                .send_modify(|wake| wake.count = wake.count.wrapping_add(1));
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

    /// The approval as settled, when a wake said so: the waiter's answer, with no re-read.
    pub fn settled(&self) -> Option<Approval> {
        self.woken.borrow().settled.as_deref().cloned()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.owner.unsubscribe(&self.approval_id);
    }
}

/// Whom an event may concern among the waiters.
#[derive(Debug, PartialEq, Eq)]
enum Wakes<'a> {
    /// The waiters of this approval (it settled it: their answer).
    One(&'a str, Option<&'a Approval>),
    /// Every waiter: the event may move prompts it does not name.
    All,
    /// Nobody: it moves no prompt.
    Nobody,
}

fn wakes(event: &Event) -> Wakes<'_> {
    let subject = event.subject();
    match subject {
        Subject::Approval { approval, settled } => {
            Wakes::One(&approval.approval_id, settled.then_some(approval))
        }
        _ if subject.moves_unnamed_prompts() => Wakes::All,
        _ => Wakes::Nobody,
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
                            Wakes::One(id, settled) => owner.wake(id, settled),
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
    use assent_protocol::fixtures::{self, one_of_each};
    use chrono::Utc;

    use super::*;
    use crate::store::SqliteStore;

    /// A watch over a fresh SQLite file, and its store; the directory lives as long as the test
    /// holds it.
    async fn watched() -> (tempfile::TempDir, Arc<dyn Store>, Arc<ApprovalWatch>) {
        let (dir, store) = SqliteStore::temporary().await;
        let store: Arc<dyn Store> = Arc::new(store);
        let watch = ApprovalWatch::new(store.clone());
        (dir, store, watch)
    }

    fn settled(approval_id: &str) -> Event {
        Event::ApprovalSettled {
            approval: approval(approval_id, ApprovalStatus::ApprovedOnce),
        }
    }

    fn approval(approval_id: &str, status: ApprovalStatus) -> Approval {
        Approval {
            status,
            ..fixtures::approval(approval_id)
        }
    }

    /// Each row: an event of the log → whose waiters it wakes. The approval's name it and a
    /// settlement carries its answer; a run's may move prompts they do not name.
    #[test]
    fn every_event_wakes_its_approvals_waiters_all_or_none() {
        let events = one_of_each();
        let approval = |i: usize| fixtures::approval_in(&events, i);
        let rows: [Wakes<'_>; 17] = [
            Wakes::One("apr-1", None),
            Wakes::One("apr-1", None),
            Wakes::One("apr-1", Some(approval(2))),
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::All,
            Wakes::All,
            Wakes::All,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::Nobody,
            Wakes::All,
        ];
        assert_eq!(events.len(), rows.len(), "a row for every kind of event");
        for (event, want) in events.iter().zip(rows) {
            assert_eq!(wakes(event), want, "{}: whose waiters wake", event.name());
        }
        let ended = Event::RunEnded {
            run_id: "run-2".to_owned(),
            requester: None,
        };
        assert_eq!(
            wakes(&ended),
            Wakes::All,
            "a whole run's end names no approval and may settle any of its prompts"
        );
    }

    async fn emit(store: &Arc<dyn Store>, event: &Event) {
        let mut tx = store.begin().await.unwrap();
        tx.insert_event(Utc::now(), event).await.unwrap();
        tx.commit().await.unwrap();
    }

    #[tokio::test]
    async fn a_waiter_wakes_for_its_own_approval_and_a_runs_end_only() {
        let (_dir, store, watch) = watched().await;
        let mut a = watch.subscribe("apr-a");
        let mut b = watch.subscribe("apr-b");

        emit(&store, &settled("apr-b")).await;
        assert!(b.changed().await, "b's settlement wakes b");
        emit(&store, &settled("apr-a")).await;
        assert!(a.changed().await, "a's settlement wakes a");
        assert_eq!(
            a.woken.borrow().count,
            1,
            "a was woken once, by its own event: the follower handles events in order, so b's \
             came before and did not wake a"
        );
        assert!(
            !b.woken.has_changed().unwrap(),
            "a's settlement does not wake b (it would re-read its approval for nothing)"
        );
        assert_eq!(
            a.settled().map(|s| (s.approval_id, s.status)),
            Some(("apr-a".to_owned(), ApprovalStatus::ApprovedOnce)),
            "a's wake carries a's settled approval: its waiter answers without reading it again"
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

    #[tokio::test]
    async fn a_settlement_told_directly_wakes_its_waiters_with_it_and_is_kept() {
        let (_dir, store, watch) = watched().await;
        let mut a = watch.subscribe("apr-a");
        let mut b = watch.subscribe("apr-b");

        watch.settled(&approval("apr-a", ApprovalStatus::Requested));
        assert!(a.changed().await, "a pending approval told still wakes a");
        assert!(
            a.settled().is_none(),
            "a pending approval is no answer: the waiter reads it again"
        );

        watch.settled(&approval("apr-a", ApprovalStatus::ApprovedForRun));
        assert!(
            a.changed().await,
            "the settlement wakes a at once, with nothing committed or read from the log"
        );
        let told = a.settled().map(|s| s.status);
        assert_eq!(
            told,
            Some(ApprovalStatus::ApprovedForRun),
            "the wake carries the settled approval"
        );
        emit(
            &store,
            &Event::ApprovalUpdated {
                approval: approval("apr-a", ApprovalStatus::Requested),
            },
        )
        .await;
        assert!(
            a.changed().await,
            "an older event of a read from the log wakes a"
        );
        assert_eq!(
            a.settled().map(|s| s.status),
            told,
            "a wake that names no settlement leaves the one told: a settled approval is never \
             pending again"
        );
        watch.settled(&approval("apr-a", ApprovalStatus::Revoked));
        assert!(a.changed().await, "a later settlement wakes a again");
        assert_eq!(
            a.settled().map(|s| s.status),
            Some(ApprovalStatus::Revoked),
            "the latest settlement told is the answer"
        );
        assert!(
            !b.woken.has_changed().unwrap(),
            "a's settlement does not wake b"
        );
        let ended = Event::RunEnded {
            run_id: "run-1".into(),
            requester: None,
        };
        emit(&store, &ended).await;
        assert!(b.changed().await, "a run's end wakes b");
        assert!(
            b.settled().is_none(),
            "a run's end names no approval: b's waiter reads its approval again"
        );
        drop((a, b));
        store.close().await;
    }
}
