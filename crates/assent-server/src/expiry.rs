//! The expiry sweeper. It does not tick: it sleeps until the earliest deadline of a pending
//! approval, an unannounced grant or a prompt's escalation (`crate::routing`), is woken
//! sooner when something with an earlier deadline is created (or a fake clock is moved, or a
//! commit of this or another replica adds events), and with nothing
//! pending it sleeps until the safety cap. Expiry is also checked on every match, so the
//! sweeper only makes expiry *visible* (events, audit, fallbacks) without anyone asking.

use std::future::pending;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::state::AppState;

/// How long the sweeper waits after a failed sweep before it tries again.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// The shortest sleep, so clocks that disagree by a hair cannot make the sweeper spin.
const MIN_SLEEP: Duration = Duration::from_millis(1);

/// Settles approvals at their `expires_at` and announces expired grants, until aborted.
pub async fn sweep(state: AppState, cap: Duration) {
    let shared = &state.inner;
    let mut clock_moves = shared.clock.moves();
    // Another replica's commits (a team's service) can make earlier deadlines too: its events
    // reach this replica's bus, and the sweeper looks again.
    let mut committed = Some(shared.store.events().watch());
    loop {
        // From here until the plan is set, any new deadline wakes the next sleep.
        shared.deadlines.plan(None);
        let wait = match next_wait(&state, cap).await {
            Ok((until, wait)) => {
                shared.deadlines.plan(until);
                wait
            }
            Err(err) => {
                tracing::warn!(error = %err, "expiry sweep failed");
                RETRY_AFTER_FAILURE
            }
        };
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = shared.deadlines.wake.notified() => {}
            () = moved(&mut clock_moves) => {}
            () = grew(&mut committed) => {}
        }
    }
}

/// Resolves when the event log grows; never once its bus is gone.
async fn grew(committed: &mut Option<watch::Receiver<i64>>) {
    match committed {
        Some(receiver) => {
            if receiver.changed().await.is_err() {
                *committed = None;
                pending::<()>().await;
            }
        }
        None => pending::<()>().await,
    }
}

/// Sweeps what is due now; answers the next deadline and how long to sleep for it.
async fn next_wait(
    state: &AppState,
    cap: Duration,
) -> Result<(Option<DateTime<Utc>>, Duration), crate::StoreError> {
    let shared = &state.inner;
    shared.workflow.expire_due(shared.clock.now()).await?;
    crate::routing::escalate_due(state, shared.clock.now()).await?;
    let next = earliest(
        shared.store.next_deadline().await?,
        crate::routing::next_escalation(state).await?,
    );
    let wait = match next {
        None => cap,
        Some(at) => (at - shared.clock.now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .clamp(MIN_SLEEP, cap.max(MIN_SLEEP)),
    };
    Ok((next, wait))
}

fn earliest(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (one, other) => one.or(other),
    }
}

/// Resolves when a hand-moved clock moves; never for a clock that only runs.
async fn moved(moves: &mut Option<watch::Receiver<DateTime<Utc>>>) {
    match moves {
        Some(receiver) => {
            if receiver.changed().await.is_err() {
                *moves = None;
                pending::<()>().await;
            }
        }
        None => pending::<()>().await,
    }
}
