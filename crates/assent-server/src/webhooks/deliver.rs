//! The delivery loop, a background task of every replica: it claims the outbox rows that are
//! due (one replica per row, see `store/sql/webhooks.rs`), posts each, signed as Standard
//! Webhooks do, and records the attempt. A failure (no answer in time, a refused address, a
//! non-2xx) is tried again with backoff, under the same `webhook-id`, until a day after the
//! event. It wakes when an event commits (outbox rows commit with their events), when an
//! attempt ends, when the earliest retry is due — on the service's clock, so a test moves a
//! fake clock instead of sleeping — and at least every [`RECHECK`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use assent_protocol::DeliveryState;
use chrono::{DateTime, TimeDelta, Utc};
use tokio::task::JoinSet;

use super::destination::{Checked, Reach, Resolver};
use crate::clock::Clock;
use crate::store::{AttemptRow, ClaimedDelivery, Store};

/// The waits after each failed attempt (the last repeats); no attempt after [`GIVE_UP_AFTER`].
pub const WAITS: [TimeDelta; 7] = [
    TimeDelta::seconds(5),
    TimeDelta::minutes(5),
    TimeDelta::minutes(30),
    TimeDelta::hours(2),
    TimeDelta::hours(5),
    TimeDelta::hours(10),
    TimeDelta::hours(10),
];

/// A delivery is tried for a day after its event; the last attempt is at that mark.
pub const GIVE_UP_AFTER: TimeDelta = TimeDelta::hours(24);

/// The longest the loop sleeps without looking (another replica's commits wake it too).
pub const RECHECK: Duration = Duration::from_secs(30);

/// Deliveries attempted at once by one replica.
const CONCURRENCY: usize = 32;

/// When a delivery created at `created_at`, whose `attempts`-th attempt just failed at `now`,
/// is tried next; `None`: it has failed for good.
pub fn next_attempt(
    created_at: DateTime<Utc>,
    attempts: u32,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let deadline = created_at + GIVE_UP_AFTER;
    if now >= deadline {
        return None;
    }
    let index = usize::try_from(attempts.saturating_sub(1)).unwrap_or(usize::MAX);
    let wait = WAITS
        .get(index)
        .or(WAITS.last())
        .copied()
        .unwrap_or(GIVE_UP_AFTER);
    Some((now + wait).min(deadline))
}

/// What delivering needs: the store, the clock, one HTTP client per [`Reach`].
#[derive(Clone)]
pub struct Deliverer {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    clients: HashMap<Reach, reqwest::Client>,
    /// How long a claim holds a delivery (longer than an attempt can take).
    lease: TimeDelta,
}

impl std::fmt::Debug for Deliverer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deliverer").finish_non_exhaustive()
    }
}

impl Deliverer {
    /// A deliverer resolving names with `resolver`, each attempt bounded by `timeout`.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        resolver: Arc<dyn Resolver>,
        timeout: Duration,
    ) -> Result<Deliverer, std::io::Error> {
        let roots: Vec<reqwest::Certificate> = rustls_native_certs::load_native_certs()
            .certs
            .iter()
            .filter_map(|cert| reqwest::Certificate::from_der(cert).ok())
            .collect();
        let mut clients = HashMap::new();
        for reach in [Reach::Loopback, Reach::Public, Reach::Any] {
            let mut builder = reqwest::Client::builder()
                // A webhook posts where it was registered, never elsewhere; no proxy from the
                // environment stands between the address check and the connection.
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .dns_resolver(Arc::new(Checked {
                    inner: resolver.clone(),
                    reach,
                }))
                .connect_timeout(timeout)
                .timeout(timeout)
                .user_agent(concat!("assent-webhooks/", env!("CARGO_PKG_VERSION")));
            for cert in &roots {
                builder = builder.add_root_certificate(cert.clone());
            }
            clients.insert(reach, builder.build().map_err(std::io::Error::other)?);
        }
        let lease =
            TimeDelta::from_std(timeout).unwrap_or(TimeDelta::hours(1)) + TimeDelta::minutes(1);
        Ok(Deliverer {
            store,
            clock,
            clients,
            lease,
        })
    }

    /// Delivers until aborted (the service's end aborts it, and the attempts under way).
    pub async fn run(self: Arc<Self>) {
        let mut changes = self.store.events().watch();
        let mut moves = self.clock.moves();
        let mut running: JoinSet<()> = JoinSet::new();
        loop {
            let now = self.clock.now();
            let due = match self.store.webhook_next_due().await {
                Ok(due) => due,
                Err(err) => {
                    tracing::warn!(%err, "webhooks: cannot read the outbox");
                    Some(now + TimeDelta::seconds(5))
                }
            };
            let free = CONCURRENCY.saturating_sub(running.len());
            let mut sleep = due.map_or(RECHECK, |at| {
                (at - now).to_std().unwrap_or(Duration::ZERO).min(RECHECK)
            });
            if due.is_some_and(|at| at <= now) {
                if free == 0 {
                    sleep = RECHECK;
                } else {
                    let limit = i64::try_from(free).unwrap_or(1);
                    match self.store.webhook_claim(now, now + self.lease, limit).await {
                        Ok(claimed) if !claimed.is_empty() => {
                            for delivery in claimed {
                                let me = self.clone();
                                running.spawn(async move { me.deliver(delivery).await });
                            }
                            continue;
                        }
                        // Another replica holds them: look again when its claim ends.
                        Ok(_) => sleep = Duration::from_millis(200),
                        Err(err) => {
                            tracing::warn!(%err, "webhooks: cannot claim deliveries");
                            sleep = Duration::from_secs(1);
                        }
                    }
                }
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                moved = async { match moves.as_mut() {
                    Some(moves) => moves.changed().await,
                    None => std::future::pending::<Result<(), tokio::sync::watch::error::RecvError>>().await,
                } } => if moved.is_err() { moves = None },
                Some(_) = running.join_next(), if !running.is_empty() => {}
                () = tokio::time::sleep(sleep) => {}
            }
        }
    }

    /// One attempt at `delivery`, recorded with what comes next.
    pub async fn deliver(&self, delivery: ClaimedDelivery) {
        let started = Instant::now();
        let at = self.clock.now();
        let (status, error) = match self.post(&delivery).await {
            Ok(status) if (200..300).contains(&status) => (Some(status), None),
            Ok(status) => (
                Some(status),
                Some(format!("the receiver answered {status}")),
            ),
            Err(why) => (None, Some(why)),
        };
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let attempts = delivery.attempts.saturating_add(1);
        let (outcome, next_at) = if error.is_none() {
            (DeliveryState::Delivered, None)
        } else {
            let now = self.clock.now();
            match next_attempt(delivery.created_at, attempts, now) {
                Some(next) => (DeliveryState::Pending, Some(next)),
                None => (DeliveryState::Failed, None),
            }
        };
        match &error {
            None => tracing::debug!(id = %delivery.id, latency_ms, "webhook delivered"),
            Some(why) => tracing::info!(
                id = %delivery.id, webhook = %delivery.webhook.id, attempts, %why,
                "webhook not delivered"
            ),
        }
        let row = AttemptRow {
            delivery_id: delivery.id,
            at,
            status,
            latency_ms,
            error,
            outcome,
            next_at,
        };
        if let Err(err) = self.store.webhook_attempted(&row).await {
            // Its claim runs out and it is tried again: at least once, never lost.
            tracing::warn!(%err, "webhooks: cannot record an attempt");
        }
    }

    /// Posts the delivery's body, signed; the receiver's status, or why there was none.
    async fn post(&self, delivery: &ClaimedDelivery) -> Result<u16, String> {
        let hook = &delivery.webhook;
        let url = super::destination::check_url(&hook.url, hook.allow_private)
            .map_err(|err| format!("refused: {err}"))?;
        let reach = Reach::of(&url, hook.allow_private);
        // A literal address is not resolved: it is judged here, as the resolver judges names.
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(why) = literal.and_then(|ip| reach.refuses(ip)) {
            return Err(format!("refused: the URL names {why}"));
        }
        // Receivers check the timestamp against their own clock: the real one.
        let timestamp = Utc::now().timestamp();
        let signature = super::sign(&hook.secret, &delivery.id, timestamp, &delivery.body)?;
        let client = self.clients.get(&reach).ok_or("no client")?;
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &delivery.id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(delivery.body.clone())
            .send()
            .await
            .map_err(|err| describe(&err))?;
        Ok(response.status().as_u16())
    }
}

/// A failed request in words: a timeout, a refused address (its reason), or the cause.
fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "no answer in time (timeout)".to_owned();
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<super::destination::Refused>() {
            return refused.to_string();
        }
        source = cause.source();
    }
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_for_a_day_then_stop() {
        let t0 = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let mut now = t0;
        let mut attempts = 1;
        let mut waits = Vec::new();
        while let Some(next) = next_attempt(t0, attempts, now) {
            assert!(next > now, "a retry is later than the failure it follows");
            waits.push(next - now);
            now = next;
            attempts += 1;
        }
        assert_eq!(
            waits[0],
            TimeDelta::seconds(5),
            "the first retry comes soon"
        );
        assert_eq!(waits[1], TimeDelta::minutes(5), "then backs off");
        assert_eq!(
            now,
            t0 + GIVE_UP_AFTER,
            "the last attempt is a day after the event"
        );
        assert_eq!(attempts, 8, "eight attempts in all");
        assert_eq!(
            next_attempt(t0, 1, t0 + TimeDelta::hours(25)),
            None,
            "nothing after a day"
        );
    }
}
