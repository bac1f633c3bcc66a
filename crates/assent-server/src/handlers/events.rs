//! `GET /v1/events`: the live event stream, resumable with `Last-Event-ID`.

use std::collections::VecDeque;
use std::convert::Infallible;

use assent_protocol::{ErrorBody, Event, EventEnvelope, Subject};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures::stream::{self, Stream};
use tokio::sync::{broadcast, watch};

use crate::error::ApiError;
use crate::guard::Caller;
use crate::state::AppState;
use crate::waiters::WaitChange;

/// Events read from the log per query.
const PAGE: i64 = 256;

#[utoipa::path(get, path = "/v1/events", tag = "events",
    params(("Last-Event-ID" = Option<i64>, Header, description = "resume after this event id")),
    responses(
        (status = 200, content_type = "text/event-stream", body = EventEnvelope,
         description = "server-sent events; `event:` is the type, `id:` the persisted id, `data:` an EventEnvelope. A person's token: every event; an agent's token: only the events about its own requests, grants and runs"),
        (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn event_stream(
    State(state): State<AppState>,
    Caller(who): Caller,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let last_seen = headers
        .get("last-event-id")
        .map(|v| v.to_str().ok().and_then(|s| s.trim().parse::<i64>().ok()))
        .map(|parsed| parsed.unwrap_or(-1));
    let shared = &state.inner;
    let (oldest, newest) = shared.store.events().bounds().await?;
    let mut backlog = VecDeque::new();
    let after = match last_seen {
        None => newest,
        Some(id)
            if id < 0 || id > newest || newest - id > shared.replay_limit || id + 1 < oldest =>
        {
            backlog.push_back(EventEnvelope {
                id: newest,
                at: shared.clock.now(),
                event: Event::Reset {},
            });
            newest
        }
        Some(id) => id,
    };
    // A person whose desk holds this stream open is present (see `crate::routing`); an agent
    // hears only about its own requests, grants and runs.
    let (presence, agent) = if who.is_person() {
        let presence = shared
            .presence
            .connect(&shared.store, &who.name, shared.clock.now())
            .await;
        (Some(presence), None)
    } else {
        (None, Some(who.name.clone()))
    };
    let tail = Tail {
        _presence: presence,
        agent,
        runs: std::collections::HashSet::new(),
        state: state.clone(),
        changes: shared.store.events().watch(),
        waiting: shared.waiters.subscribe(),
        shutdown: shared.shutdown.clone(),
        after,
        backlog,
    };
    let keep_alive = KeepAlive::new()
        .interval(shared.heartbeat)
        .text("heartbeat");
    Ok(Sse::new(stream::unfold(tail, next_event)).keep_alive(keep_alive))
}

/// One client's position in the event log.
struct Tail {
    /// Its person is present while the stream lives (an agent's stream: none).
    _presence: Option<crate::routing::presence::PresenceGuard>,
    /// An agent's stream: only the events about this identity's own requests.
    agent: Option<String>,
    /// The runs this agent's events named so far (a whole run's end concerns it then).
    runs: std::collections::HashSet<String>,
    state: AppState,
    changes: watch::Receiver<i64>,
    /// Who waits on which prompt (live only, not in the log).
    waiting: broadcast::Receiver<WaitChange>,
    shutdown: watch::Receiver<bool>,
    after: i64,
    backlog: VecDeque<EventEnvelope>,
}

async fn next_event(mut tail: Tail) -> Option<(Result<SseEvent, Infallible>, Tail)> {
    loop {
        if let Some(mut envelope) = tail.backlog.pop_front() {
            if let Some(agent) = tail.agent.as_deref() {
                if !concerns(&tail.state, agent, &mut tail.runs, &envelope.event).await {
                    continue;
                }
            }
            let policy = tail.state.inner.policy.current();
            with_desk_line(&tail.state.inner, &policy, &mut envelope);
            return Some((Ok(to_sse(&envelope)), tail));
        }
        if *tail.shutdown.borrow() {
            return None;
        }
        tail.changes.borrow_and_update();
        match tail
            .state
            .inner
            .store
            .events()
            .after(tail.after, PAGE)
            .await
        {
            Ok(events) if !events.is_empty() => {
                tail.after = events.last().map_or(tail.after, |e| e.id);
                tail.backlog.extend(events);
                continue;
            }
            Ok(_) => {}
            Err(err) => {
                tracing::error!(error = %err, "event stream cannot read the log");
                return None;
            }
        }
        let waiting = tokio::select! {
            changed = tail.changes.changed() => if changed.is_err() { return None } else { None },
            waiting = tail.waiting.recv() => match waiting {
                Ok(change) => Some(change),
                // Fell behind: the counts of the missed changes come with the next list.
                Err(broadcast::error::RecvError::Lagged(_)) => None,
                Err(broadcast::error::RecvError::Closed) => return None,
            },
            _ = tail.shutdown.wait_for(|stop| *stop) => return None,
        };
        if let Some(change) = waiting.filter(|_| tail.agent.is_none()) {
            let event = waiting_event(&tail, change);
            tail.backlog.push_back(event);
        }
    }
}

/// Whether `event` is about agent `agent`'s own requests, grants or runs (`runs`: the runs
/// its events named so far on this stream). Nothing about another agent, the policy, people
/// or campaigns reaches an agent.
async fn concerns(
    state: &AppState,
    agent: &str,
    runs: &mut std::collections::HashSet<String>,
    event: &Event,
) -> bool {
    match mine(agent, runs, event.subject()) {
        Mine::Known(mine) => mine,
        Mine::IfItAsked(approval_id) => matches!(
            state.inner.store.approval(approval_id).await,
            Ok(Some(record)) if record.requester == agent
        ),
    }
}

/// Whether an event is an agent's, as far as the event tells.
#[derive(Debug, PartialEq, Eq)]
enum Mine<'a> {
    Known(bool),
    /// A run held or let go because of this approval: the agent's if it asked it.
    IfItAsked(&'a str),
}

/// [`concerns`] without the store: an approval or grant of `agent`'s is its own (and its run
/// is remembered in `runs`, so that run's end reaches it); a run's end or hold is its own when
/// it names the agent, or else the approval that held it, or else a run remembered; a reset
/// reaches every stream.
fn mine<'a>(
    agent: &str,
    runs: &mut std::collections::HashSet<String>,
    subject: Subject<'a>,
) -> Mine<'a> {
    let (mine, run) = match subject {
        Subject::Approval { approval, .. } => (approval.requester == agent, &*approval.run_id),
        Subject::Grant { requester, run_id } => (requester == Some(agent), run_id),
        Subject::Run {
            requester: Some(requester),
            ..
        } => return Mine::Known(requester == agent),
        Subject::Run {
            approval_id: Some(approval_id),
            ..
        } => return Mine::IfItAsked(approval_id),
        Subject::Run { run_id, .. } => return Mine::Known(runs.contains(run_id)),
        Subject::Reset => return Mine::Known(true),
        Subject::Nobody | Subject::Waiting => return Mine::Known(false),
    };
    if mine {
        runs.insert(run.to_owned());
    }
    Mine::Known(mine)
}

/// `approval.waiting`, at the stream's position (it is not in the log: a resume after it
/// replays from the same place).
fn waiting_event(tail: &Tail, change: WaitChange) -> EventEnvelope {
    EventEnvelope {
        id: tail.after,
        at: tail.state.inner.clock.now(),
        event: Event::ApprovalWaiting {
            approval_id: change.approval_id,
            agents_waiting: change.agents_waiting,
            stopped_waiting_at: change.stopped_waiting_at,
        },
    }
}

/// An approval in an event carries the policy's one-act line (`[desk] quick_up_to`) and its
/// step-up page as the list does, so a desk never offers one click on a prompt the policy
/// wants confirmed.
fn with_desk_line(
    shared: &crate::state::Shared,
    policy: &assent_core::Policy,
    envelope: &mut EventEnvelope,
) {
    if let Event::ApprovalRequested { approval }
    | Event::ApprovalUpdated { approval }
    | Event::ApprovalSettled { approval } = &mut envelope.event
    {
        crate::handlers::approvals::with_policy_lines(shared, policy, approval);
    }
}

fn to_sse(envelope: &EventEnvelope) -> SseEvent {
    let data = serde_json::to_string(envelope).unwrap_or_else(|_| "{}".to_owned());
    SseEvent::default()
        .id(envelope.id.to_string())
        .event(envelope.event.name())
        .data(data)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use assent_protocol::fixtures::{self, one_of_each};

    use super::*;

    /// Each row: an event on agent `default`'s stream → whether it reaches the stream, and the
    /// runs the stream remembers after it (it had seen none before).
    #[test]
    fn an_agents_stream_takes_only_its_own_events() {
        let rows: [(Mine<'_>, &[&str]); 17] = [
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &["run-1"]),
            (Mine::Known(true), &[]),
            (Mine::IfItAsked("apr-1"), &[]),
            (Mine::IfItAsked("apr-1"), &[]),
            (Mine::Known(false), &[]),
            (Mine::Known(false), &[]),
            (Mine::Known(false), &[]),
            (Mine::Known(false), &[]),
            (Mine::Known(false), &[]),
            (Mine::Known(true), &[]),
        ];
        let events = one_of_each();
        assert_eq!(events.len(), rows.len(), "a row for every kind of event");
        for (event, (want, remembered)) in events.iter().zip(rows) {
            let mut runs = HashSet::new();
            assert_eq!(
                mine("default", &mut runs, event.subject()),
                want,
                "{}: whether agent default's stream takes it",
                event.name()
            );
            let remembered: HashSet<String> = remembered.iter().map(|r| (*r).to_owned()).collect();
            assert_eq!(
                runs,
                remembered,
                "{}: the runs the stream remembers (a whole run's end reaches it then)",
                event.name()
            );
            let mut runs = HashSet::new();
            let another = mine("other", &mut runs, event.subject());
            assert!(
                another != Mine::Known(true) || event.subject() == Subject::Reset,
                "{}: another agent's stream does not take default's event (a reset aside)",
                event.name()
            );
        }
    }

    #[test]
    fn a_whole_runs_end_reaches_the_agents_that_named_the_run() {
        let ended = Event::RunEnded {
            run_id: "run-1".to_owned(),
            requester: None,
        };
        let mut runs = HashSet::new();
        assert_eq!(
            mine("default", &mut runs, ended.subject()),
            Mine::Known(false),
            "a run this stream never heard of is not its agent's"
        );
        let requested = Event::ApprovalRequested {
            approval: fixtures::approval("apr-1"),
        };
        assert_eq!(
            mine("default", &mut runs, requested.subject()),
            Mine::Known(true),
            "its own request reaches it"
        );
        assert_eq!(
            mine("default", &mut runs, ended.subject()),
            Mine::Known(true),
            "the end of a run it asked in reaches it"
        );
        let resumed = Event::RunResumed {
            run: fixtures::run("run-1", None),
        };
        assert_eq!(
            mine("default", &mut runs, resumed.subject()),
            Mine::Known(true),
            "so does that run resumed, when no approval held it"
        );
        let anyones = Event::GrantCreated {
            grant: fixtures::grant(None),
        };
        let mut fresh = HashSet::new();
        assert_eq!(
            mine("default", &mut fresh, anyones.subject()),
            Mine::Known(false),
            "a grant limited to no agent is not this agent's own"
        );
        assert!(fresh.is_empty(), "and names no run of its");
    }
}
