//! Time is a parameter: the service reads it from a [`Clock`]; tests hold a [`FakeClock`].

use chrono::{DateTime, Duration, Utc};
use tokio::sync::watch;

/// Where the service gets "now".
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;

    /// Changes whenever the clock is moved by hand (a [`FakeClock`]), so whatever sleeps
    /// until a deadline of this clock can look again; `None` for a clock that only runs.
    fn moves(&self) -> Option<watch::Receiver<DateTime<Utc>>> {
        None
    }
}

/// The machine's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct FakeClock {
    now: watch::Sender<DateTime<Utc>>,
}

impl FakeClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        FakeClock {
            now: watch::Sender::new(start),
        }
    }

    pub fn set(&self, now: DateTime<Utc>) {
        self.now.send_replace(now);
    }

    pub fn advance(&self, by: Duration) {
        self.now.send_modify(|now| *now += by);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.borrow()
    }

    fn moves(&self) -> Option<watch::Receiver<DateTime<Utc>>> {
        Some(self.now.subscribe())
    }
}
