//! "Pause notifications": 30 min, 1 h, or until resumed. Paused means tray only, no popups.

use chrono::{DateTime, Duration, Utc};

/// The pause in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pause {
    #[default]
    Off,
    Until(DateTime<Utc>),
    UntilResumed,
}

pub use assent_ipc::PauseChoice;

impl Pause {
    /// The pause `choice` starts at `now`.
    pub fn start(choice: PauseChoice, now: DateTime<Utc>) -> Pause {
        match choice {
            PauseChoice::HalfHour => Pause::Until(now + Duration::minutes(30)),
            PauseChoice::Hour => Pause::Until(now + Duration::hours(1)),
            PauseChoice::UntilResumed => Pause::UntilResumed,
            PauseChoice::Resume => Pause::Off,
        }
    }
}

impl Pause {
    pub fn is_paused(self, now: DateTime<Utc>) -> bool {
        match self {
            Pause::Off => false,
            Pause::Until(end) => now < end,
            Pause::UntilResumed => true,
        }
    }

    /// When a timed pause ends (the live task sleeps until then; no polling).
    pub fn ends_at(self) -> Option<DateTime<Utc>> {
        match self {
            Pause::Until(end) => Some(end),
            Pause::Off | Pause::UntilResumed => None,
        }
    }

    /// For the window: the end as RFC 3339, or `until_resumed`.
    pub fn describe(self, now: DateTime<Utc>) -> Option<String> {
        match self {
            Pause::Until(end) if now < end => Some(end.to_rfc3339()),
            Pause::UntilResumed => Some("until_resumed".to_owned()),
            Pause::Off | Pause::Until(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::at;

    #[test]
    fn timed_pauses_end_by_themselves_and_resume_ends_any() {
        let now = at(0);
        let half = Pause::start(PauseChoice::HalfHour, now);
        assert!(half.is_paused(at(29 * 60)), "paused within the half hour");
        assert!(!half.is_paused(at(30 * 60)), "over at exactly 30 minutes");
        assert_eq!(
            Pause::start(PauseChoice::Hour, now).ends_at(),
            Some(at(3600)),
            "an hour"
        );
        assert!(
            Pause::start(PauseChoice::UntilResumed, now).is_paused(at(1_000_000)),
            "until resumed"
        );
        assert_eq!(
            Pause::start(PauseChoice::Resume, now),
            Pause::Off,
            "resume ends any pause"
        );
        assert_eq!(
            half.describe(at(31 * 60)),
            None,
            "an ended pause is not shown"
        );
    }
}
