//! Who is present: a person whose desk (the tray app or a web desk) holds `/v1/events` open
//! on some replica, or whose web desk session was used recently
//! ([`crate::workflow::ask_steps::SESSION_RECENT`]).
//!
//! Each replica counts the streams open on it, in memory, and keeps one row per person in the
//! store (`desk_presence`: person, replica, seen_at) while that person has a stream open on
//! it: written when the first one opens, touched every [`TOUCH_EVERY`] (and whenever a fake
//! clock moves), removed when the last one closes. So every replica of a team's service
//! answers "who is present" alike, from the store, in the transaction that opens a prompt; a
//! crashed replica's rows stop counting after [`crate::workflow::ask_steps::STREAM_STALE`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::clock::Clock;
use crate::store::Store;

/// How often a replica touches the presence rows of the people with a stream open on it.
pub const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// The desk streams open on this replica, per person.
#[derive(Debug)]
pub struct Presence {
    /// This replica's name in `desk_presence` (random per process).
    replica: String,
    open: Mutex<HashMap<String, usize>>,
}

impl Default for Presence {
    fn default() -> Self {
        Presence {
            replica: crate::records::new_id(),
            open: Mutex::default(),
        }
    }
}

impl Presence {
    /// A desk stream of `person` opened on this replica: they are present (in the store too,
    /// before this returns, so a prompt opened next sees it) until the guard drops.
    pub async fn connect(
        self: &Arc<Self>,
        store: &Arc<dyn Store>,
        person: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> PresenceGuard {
        *self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(person.to_owned())
            .or_default() += 1;
        let people = [person.to_owned()];
        if let Err(err) = store.presence_touch(&people, &self.replica, now).await {
            tracing::warn!(%err, person, "cannot record a desk's presence");
        }
        PresenceGuard {
            presence: self.clone(),
            store: store.clone(),
            person: person.to_owned(),
        }
    }

    /// The people with a desk stream open on this replica.
    pub fn people(&self) -> Vec<String> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// One stream of `person` closed; true when it was their last on this replica.
    fn close(&self, person: &str) -> bool {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(count) = open.get_mut(person) else {
            return false;
        };
        *count = count.saturating_sub(1);
        if *count == 0 {
            open.remove(person);
            true
        } else {
            false
        }
    }
}

/// A person's desk stream, open while this lives.
#[derive(Debug)]
pub struct PresenceGuard {
    presence: Arc<Presence>,
    store: Arc<dyn Store>,
    person: String,
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        if !self.presence.close(&self.person) {
            return;
        }
        let (store, person) = (self.store.clone(), std::mem::take(&mut self.person));
        let replica = self.presence.replica.clone();
        // The stream ended with its task; the row goes in one of its own (a runtime that is
        // shutting down leaves it to go stale).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = store.presence_drop(&person, &replica).await {
                    tracing::warn!(%err, person, "cannot clear a desk's presence");
                }
            });
        }
    }
}

/// Touches the presence rows of the people with a stream open here (`presence`) in `store`
/// every [`TOUCH_EVERY`] and whenever a hand-moved `clock` moves, until aborted.
pub async fn keep(presence: Arc<Presence>, store: Arc<dyn Store>, clock: Arc<dyn Clock>) {
    let mut moves = clock.moves();
    loop {
        let moved = async {
            match moves.as_mut() {
                Some(receiver) => {
                    if receiver.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = tokio::time::sleep(TOUCH_EVERY) => {}
            () = moved => {}
        }
        let people = presence.people();
        if people.is_empty() {
            continue;
        }
        let now = clock.now();
        if let Err(err) = store.presence_touch(&people, &presence.replica, now).await {
            tracing::warn!(%err, "cannot touch the desks' presence");
        }
    }
}
