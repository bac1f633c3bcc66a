//! Which approvals agents are waiting on right now (their gates long-poll them), and when the
//! last one stopped — so a desk can say "the agent stopped waiting at 19:12; approving covers
//! a retry" instead of showing a prompt nobody waits on as live.
//!
//! A gate long-polls in rounds: between two rounds nobody waits for a moment. A stop counts
//! only once nobody waited again for [`GRACE`]; only then is it announced. Changes are
//! announced on a broadcast channel the event stream forwards (`approval.waiting`): the first
//! waiter, a stop that held, and a waiter coming back after one. They are this replica's:
//! a gate waiting on another replica is counted there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::broadcast;

use crate::clock::Clock;

/// How long nobody must wait before a stop is announced: longer than the pause between two
/// long-poll rounds of a gate (a few milliseconds), short enough to tell a person soon.
pub const GRACE: Duration = Duration::from_secs(2);
/// Approvals remembered with nobody waiting; beyond it the oldest stops are forgotten.
const KEPT_STOPPED: usize = 4096;
/// Changes a slow event stream may fall behind by before it misses some.
const CHANGES_BUFFER: usize = 256;

/// One change of who waits on an approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitChange {
    pub approval_id: String,
    pub agents_waiting: u32,
    /// When the last agent stopped waiting, once the stop held for [`GRACE`].
    pub stopped_waiting_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Default, Clone)]
struct Entry {
    count: usize,
    /// When the count last fell to 0.
    left_at: Option<DateTime<Utc>>,
    /// Whether that stop was announced (it held for the grace).
    announced: bool,
}

/// How many agents wait on each approval. An approval "once" is that one execution: a waiting
/// gate runs it, so its grant is spent at once; when every gate gave up, the grant keeps its
/// one use for the agent's retry.
#[derive(Debug)]
pub struct Waiters {
    entries: Mutex<HashMap<String, Entry>>,
    clock: Arc<dyn Clock>,
    changes: broadcast::Sender<WaitChange>,
    grace: Duration,
}

impl Waiters {
    pub fn new(clock: Arc<dyn Clock>) -> Arc<Waiters> {
        Waiters::with_grace(clock, GRACE)
    }

    /// With another grace (tests).
    pub fn with_grace(clock: Arc<dyn Clock>, grace: Duration) -> Arc<Waiters> {
        Arc::new(Waiters {
            entries: Mutex::default(),
            clock,
            changes: broadcast::channel(CHANGES_BUFFER).0,
            grace,
        })
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding the lock leaves plain counters: still usable.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<WaitChange> {
        self.changes.subscribe()
    }

    /// Counts one waiter on `approval_id` until the returned guard drops.
    pub fn enter(self: &Arc<Self>, approval_id: &str) -> WaiterGuard {
        let announce = {
            let mut entries = self.entries();
            let first = !entries.contains_key(approval_id);
            let entry = entries.entry(approval_id.to_owned()).or_default();
            entry.count += 1;
            let back = entry.count == 1 && entry.announced;
            if entry.count == 1 {
                entry.left_at = None;
                entry.announced = false;
            }
            (first || back).then(|| change(approval_id, entry))
        };
        if let Some(change) = announce {
            let _ = self.changes.send(change);
        }
        WaiterGuard {
            waiters: self.clone(),
            approval_id: approval_id.to_owned(),
        }
    }

    /// Agents waiting on `approval_id` now.
    pub fn count(&self, approval_id: &str) -> usize {
        self.entries().get(approval_id).map_or(0, |e| e.count)
    }

    /// Agents waiting now, and when the last one stopped (once that held for the grace).
    pub fn state(&self, approval_id: &str) -> (u32, Option<DateTime<Utc>>) {
        self.entries()
            .get(approval_id)
            .map_or((0, None), |entry| (entry.waiting(), entry.stopped_at()))
    }

    fn leave(self: &Arc<Self>, approval_id: &str) {
        let left_at = self.clock.now();
        {
            let mut entries = self.entries();
            let Some(entry) = entries.get_mut(approval_id) else {
                return;
            };
            entry.count = entry.count.saturating_sub(1);
            if entry.count > 0 {
                return;
            }
            entry.left_at = Some(left_at);
            forget_oldest_stops(&mut entries);
        }
        // Announce the stop if nobody comes back within the grace (the next long-poll round
        // of the same gate comes back within milliseconds).
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let waiters = Arc::clone(self);
        let approval_id = approval_id.to_owned();
        runtime.spawn(async move {
            tokio::time::sleep(waiters.grace).await;
            let announce = {
                let mut entries = waiters.entries();
                entries
                    .get_mut(&approval_id)
                    .filter(|e| e.count == 0 && e.left_at == Some(left_at) && !e.announced)
                    .map(|entry| {
                        entry.announced = true;
                        change(&approval_id, entry)
                    })
            };
            if let Some(change) = announce {
                let _ = waiters.changes.send(change);
            }
        });
    }
}

impl Entry {
    fn waiting(&self) -> u32 {
        u32::try_from(self.count).unwrap_or(u32::MAX)
    }

    /// When the last agent left, once that stop was announced.
    fn stopped_at(&self) -> Option<DateTime<Utc>> {
        self.left_at.filter(|_| self.announced && self.count == 0)
    }
}

fn change(approval_id: &str, entry: &Entry) -> WaitChange {
    WaitChange {
        approval_id: approval_id.to_owned(),
        agents_waiting: entry.waiting(),
        stopped_waiting_at: entry.stopped_at(),
    }
}

/// Keeps at most [`KEPT_STOPPED`] approvals nobody waits on: the oldest stops go first.
fn forget_oldest_stops(entries: &mut HashMap<String, Entry>) {
    let stopped = entries.values().filter(|e| e.count == 0).count();
    if stopped <= KEPT_STOPPED {
        return;
    }
    let mut by_age: Vec<(DateTime<Utc>, String)> = entries
        .iter()
        .filter(|(_, e)| e.count == 0)
        .map(|(id, e)| (e.left_at.unwrap_or_default(), id.clone()))
        .collect();
    by_age.sort();
    for (_, id) in by_age.into_iter().take(stopped - KEPT_STOPPED) {
        entries.remove(&id);
    }
}

/// One waiting gate; leaves the count when dropped.
#[derive(Debug)]
pub struct WaiterGuard {
    waiters: Arc<Waiters>,
    approval_id: String,
}

impl Drop for WaiterGuard {
    fn drop(&mut self) {
        self.waiters.leave(&self.approval_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;

    fn waiters() -> (Arc<Waiters>, Arc<FakeClock>) {
        let clock = Arc::new(FakeClock::new(
            DateTime::parse_from_rfc3339("2026-12-01T19:12:00Z")
                .expect("time")
                .with_timezone(&Utc),
        ));
        (Waiters::new(clock.clone()), clock)
    }

    #[tokio::test(start_paused = true)]
    async fn a_gate_between_two_rounds_is_not_a_stop_but_giving_up_is() {
        let (waiters, clock) = waiters();
        let mut changes = waiters.subscribe();
        let round = waiters.enter("a1");
        assert_eq!(
            changes.try_recv().ok().map(|c| c.agents_waiting),
            Some(1),
            "the first waiter is announced, so a desk learns an agent waits"
        );
        drop(round);
        let next_round = waiters.enter("a1");
        tokio::time::sleep(GRACE * 2).await;
        assert!(
            changes.try_recv().is_err(),
            "the pause between two long-poll rounds of one gate announces nothing"
        );
        assert_eq!(waiters.state("a1"), (1, None), "still one waiting");

        drop(next_round);
        let gave_up = clock.now();
        clock.advance(chrono::TimeDelta::seconds(30));
        assert_eq!(
            waiters.state("a1"),
            (0, None),
            "a stop is not reported before it held for the grace"
        );
        tokio::time::sleep(GRACE + Duration::from_millis(10)).await;
        let stop = changes
            .try_recv()
            .expect("the stop is announced once it held");
        assert_eq!(
            (stop.agents_waiting, stop.stopped_waiting_at),
            (0, Some(gave_up)),
            "the stop names when the last agent left, on the service's clock"
        );
        assert_eq!(
            waiters.state("a1"),
            (0, Some(gave_up)),
            "and the list says so"
        );

        let _retry = waiters.enter("a1");
        assert_eq!(
            changes
                .try_recv()
                .ok()
                .map(|c| (c.agents_waiting, c.stopped_waiting_at)),
            Some((1, None)),
            "an agent coming back after a stop is announced: the prompt is live again"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn two_gates_on_one_batch_stop_only_when_both_left() {
        let (waiters, _clock) = waiters();
        let first = waiters.enter("b");
        let second = waiters.enter("b");
        drop(first);
        tokio::time::sleep(GRACE * 2).await;
        assert_eq!(waiters.state("b"), (1, None), "one gate still waits");
        drop(second);
        tokio::time::sleep(GRACE * 2).await;
        assert!(
            waiters.state("b").1.is_some(),
            "once both left, the stop holds and is reported"
        );
    }
}
