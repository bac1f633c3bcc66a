use assent_core::ApprovalStatus;
use assent_protocol::Event;

use super::*;
use crate::fixtures::{approval, at};

#[test]
fn events_keep_the_pending_list_current() {
    let mut desk = Desk::default();
    let a = approval("a");
    let mut b = approval("b");
    b.created_at = at(10);
    assert_eq!(
        desk.apply(&Event::ApprovalRequested {
            approval: a.clone()
        }),
        Follow::Nothing,
        "plain event"
    );
    desk.apply(&Event::ApprovalRequested {
        approval: b.clone(),
    });
    let ids: Vec<&str> = desk
        .pending_newest_first()
        .iter()
        .map(|a| a.approval_id.as_str())
        .collect();
    assert_eq!(ids, vec!["b", "a"], "newest first");

    let mut grown = a.clone();
    grown.count = 4;
    desk.apply(&Event::ApprovalUpdated { approval: grown });
    assert_eq!(
        desk.pending("a").map(|a| a.count),
        Some(4),
        "an update replaces the prompt"
    );

    let mut settled = b.clone();
    settled.status = ApprovalStatus::Denied;
    desk.apply(&Event::ApprovalSettled { approval: settled });
    assert_eq!(desk.pending_count(), 1, "a settled prompt leaves the list");

    desk.apply(&Event::RunEnded {
        run_id: "run-1".to_owned(),
        requester: None,
    });
    assert_eq!(
        desk.pending_count(),
        0,
        "a run's prompts close when it ends"
    );
}

#[test]
fn reset_asks_for_a_refetch_and_replace_keeps_only_pending() {
    let mut desk = Desk::default();
    assert_eq!(
        desk.apply(&Event::Reset {}),
        Follow::Refetch,
        "reset → refetch"
    );
    let mut done = approval("done");
    done.status = ApprovalStatus::ApprovedOnce;
    desk.replace(vec![approval("a"), done], Vec::new(), Vec::new());
    assert_eq!(
        desk.pending_count(),
        1,
        "a fetched settled approval is not pending"
    );
    let snapshot = desk.snapshot(None);
    assert_eq!(
        snapshot.pending.len(),
        1,
        "the snapshot carries the pending prompt"
    );
}

fn held(run_id: &str, second: i64) -> assent_protocol::RunState {
    assent_protocol::RunState {
        run_id: run_id.to_owned(),
        status: assent_protocol::RunStatus::Paused,
        reason: Some(format!("run {run_id} is paused awaiting a person")),
        approval_id: Some(format!("ap-{run_id}")),
        updated_at: Some(at(second)),
        campaign: None,
    }
}

#[test]
fn paused_runs_come_and_go_with_their_events() {
    let mut desk = Desk::default();
    desk.replace(Vec::new(), Vec::new(), vec![held("r1", 1)]);
    desk.apply(&Event::RunPaused { run: held("r2", 5) });
    let ids: Vec<&str> = desk
        .held_runs_newest_first()
        .iter()
        .map(|run| run.run_id.as_str())
        .collect();
    assert_eq!(
        ids,
        vec!["r2", "r1"],
        "a fetched and an announced pause both show, most recent first"
    );

    let mut resumed = held("r2", 6);
    resumed.status = assent_protocol::RunStatus::Running;
    desk.apply(&Event::RunResumed { run: resumed });
    desk.apply(&Event::RunEnded {
        run_id: "r1".to_owned(),
        requester: None,
    });
    assert!(
        desk.snapshot(None).held_runs.is_empty(),
        "a resumed run and an ended run are no longer waiting for anyone"
    );
}

#[test]
fn an_event_does_not_forget_how_many_agents_wait() {
    let mut desk = Desk::default();
    let mut listed = approval("a");
    listed.agents_waiting = 2;
    desk.replace(vec![listed.clone()], Vec::new(), Vec::new());
    let mut grown = listed.clone();
    grown.count = 3;
    grown.agents_waiting = 0;
    desk.apply(&Event::ApprovalUpdated { approval: grown });
    let now = desk.pending("a").expect("still pending");
    assert_eq!(
        (now.count, now.agents_waiting),
        (3, 2),
        "the batch grew (the event's news) and the agents the list counted still wait (events count none)"
    );
}

#[test]
fn the_desk_is_told_when_the_agent_stops_waiting_and_when_it_comes_back() {
    let mut desk = Desk::default();
    let mut listed = approval("a");
    listed.agents_waiting = 1;
    desk.replace(vec![listed.clone()], Vec::new(), Vec::new());
    desk.apply(&Event::ApprovalWaiting {
        approval_id: "a".to_owned(),
        agents_waiting: 0,
        stopped_waiting_at: Some(at(42)),
    });
    let now = desk.pending("a").expect("still pending");
    assert_eq!(
        (now.agents_waiting, now.agents_stopped_waiting_at),
        (0, Some(at(42))),
        "the stop and its time reach the desk without a refetch"
    );
    let mut grown = listed.clone();
    grown.count = 2;
    grown.agents_waiting = 0;
    desk.apply(&Event::ApprovalUpdated { approval: grown });
    assert_eq!(
        desk.pending("a").and_then(|a| a.agents_stopped_waiting_at),
        Some(at(42)),
        "a later update of the batch does not forget that the agent stopped waiting"
    );
    desk.apply(&Event::ApprovalWaiting {
        approval_id: "a".to_owned(),
        agents_waiting: 1,
        stopped_waiting_at: None,
    });
    assert_eq!(
        desk.pending("a")
            .map(|a| (a.agents_waiting, a.agents_stopped_waiting_at)),
        Some((1, None)),
        "an agent coming back makes the prompt live again"
    );
    desk.apply(&Event::ApprovalWaiting {
        approval_id: "gone".to_owned(),
        agents_waiting: 0,
        stopped_waiting_at: Some(at(43)),
    });
    assert!(
        desk.pending("gone").is_none(),
        "news about a prompt the desk does not list adds nothing"
    );
}

#[test]
fn one_agent_ending_its_run_closes_only_its_own_prompts() {
    let mut desk = Desk::default();
    let mut mine = approval("mine");
    mine.requester = "bot".to_owned();
    let mut theirs = approval("theirs");
    theirs.requester = "bot2".to_owned();
    for approval in [mine, theirs] {
        desk.apply(&Event::ApprovalRequested { approval });
    }
    desk.apply(&Event::RunPaused {
        run: held("run-1", 1),
    });
    desk.apply(&Event::RunEnded {
        run_id: "run-1".to_owned(),
        requester: Some("bot".to_owned()),
    });
    assert!(
        desk.pending("mine").is_none(),
        "bot ended its part of run-1: its prompt closes"
    );
    assert!(
        desk.pending("theirs").is_some(),
        "bot2's prompt in the same run id still waits: bot cannot end it"
    );
    assert_eq!(
        desk.snapshot(None).held_runs.len(),
        1,
        "the run's hold is the run's, not one agent's"
    );
}

#[test]
fn a_prompt_that_settles_while_listed_is_kept_with_who_decided_it() {
    let mut desk = Desk::default();
    for id in ["a", "b"] {
        desk.apply(&Event::ApprovalRequested {
            approval: approval(id),
        });
    }
    let mut denied = approval("a");
    denied.status = ApprovalStatus::Denied;
    denied.decided_by = Some("alice".to_owned());
    desk.apply(&Event::ApprovalSettled {
        approval: denied.clone(),
    });
    let mut never_listed = approval("elsewhere");
    never_listed.status = ApprovalStatus::Denied;
    desk.apply(&Event::ApprovalSettled {
        approval: never_listed,
    });
    let snapshot = desk.snapshot(None);
    assert_eq!(
        snapshot.settled,
        vec![denied],
        "the window learns who settled the prompt it listed; one it never listed is not kept"
    );

    for n in 0..(SETTLED_KEPT + 4) {
        let id = format!("p{n}");
        desk.apply(&Event::ApprovalRequested {
            approval: approval(&id),
        });
        let mut done = approval(&id);
        done.status = ApprovalStatus::ApprovedOnce;
        desk.apply(&Event::ApprovalUpdated { approval: done });
    }
    let settled = desk.snapshot(None).settled;
    assert_eq!(settled.len(), SETTLED_KEPT, "a bounded list");
    assert_eq!(
        settled.first().map(|a| a.approval_id.as_str()),
        Some(format!("p{}", SETTLED_KEPT + 3).as_str()),
        "newest first"
    );
}
