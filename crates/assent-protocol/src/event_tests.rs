//! What each event is about: one classification, pinned for every kind of event.

use super::*;
use crate::fixtures::{self, one_of_each};

#[test]
fn the_fixtures_hold_one_event_of_every_kind() {
    let mut names: Vec<&str> = one_of_each().iter().map(Event::name).collect();
    let listed = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        (names.len(), listed),
        (17, 17),
        "one event per variant, none twice: a table test over them covers every variant"
    );
}

/// Each row: an event → what it is about, and whether it may move prompts it does not name.
#[test]
fn every_event_says_what_it_is_about() {
    let events = one_of_each();
    let approval = |i: usize| fixtures::approval_in(&events, i);
    let grant = Subject::Grant {
        requester: Some("default"),
        run_id: "run-1",
    };
    let held = Subject::Run {
        run_id: "run-1",
        requester: None,
        approval_id: Some("apr-1"),
    };
    let want: [(Subject<'_>, bool); 17] = [
        (
            Subject::Approval {
                approval: approval(0),
                settled: false,
            },
            false,
        ),
        (
            Subject::Approval {
                approval: approval(1),
                settled: false,
            },
            false,
        ),
        (
            Subject::Approval {
                approval: approval(2),
                settled: true,
            },
            false,
        ),
        (grant, false),
        (grant, false),
        (grant, false),
        (grant, false),
        (grant, false),
        (
            Subject::Run {
                run_id: "run-1",
                requester: Some("default"),
                approval_id: None,
            },
            true,
        ),
        (held, true),
        (held, true),
        (Subject::Nobody, false),
        (Subject::Nobody, false),
        (Subject::Nobody, false),
        (Subject::Nobody, false),
        (Subject::Waiting, false),
        (Subject::Reset, true),
    ];
    assert_eq!(events.len(), want.len(), "a row for every event");
    for (event, (subject, moves)) in events.iter().zip(want) {
        assert_eq!(event.subject(), subject, "{}: what it names", event.name());
        assert_eq!(
            subject.moves_unnamed_prompts(),
            moves,
            "{}: whether a waiter on another prompt must look again",
            event.name()
        );
    }
}

#[test]
fn a_grant_for_no_agent_and_a_whole_runs_end_name_no_agent() {
    let anyone = Event::GrantRevoked {
        grant: fixtures::grant(None),
    };
    assert_eq!(
        anyone.subject(),
        Subject::Grant {
            requester: None,
            run_id: "run-1"
        },
        "a grant limited to no agent is no one agent's"
    );
    let ended = Event::RunEnded {
        run_id: "run-2".to_owned(),
        requester: None,
    };
    assert_eq!(
        ended.subject(),
        Subject::Run {
            run_id: "run-2",
            requester: None,
            approval_id: None
        },
        "a whole run's end names only the run"
    );
    let resumed = Event::RunResumed {
        run: fixtures::run("run-3", None),
    };
    assert_eq!(
        resumed.subject(),
        Subject::Run {
            run_id: "run-3",
            requester: None,
            approval_id: None
        },
        "a run held by no approval names only the run"
    );
}
