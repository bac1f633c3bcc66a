//! What the expiry sweeper plans to sleep until, and how the rest of the service wakes it
//! sooner; the state holds it, the sweeper ([`crate::expiry`]) reads it.

use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use tokio::sync::Notify;

/// What the sweeper plans to sleep until, and how to wake it sooner.
#[derive(Debug, Default)]
pub struct Deadlines {
    /// `None` while the sweeper looks for the next deadline, or when nothing is pending:
    /// then every new deadline wakes it.
    sleeping_until: Mutex<Option<DateTime<Utc>>>,
    pub(crate) wake: Notify,
}

impl Deadlines {
    /// Something now expires at `at`: wakes the sweeper if that is sooner than it planned.
    pub fn propose(&self, at: DateTime<Utc>) {
        let planned = *self
            .sleeping_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if planned.is_none_or(|planned| at < planned) {
            // A stored permit: a wake-up while the sweeper is busy is not lost.
            self.wake.notify_one();
        }
    }

    pub(crate) fn plan(&self, until: Option<DateTime<Utc>>) {
        *self
            .sleeping_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = until;
    }
}
