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
    desk.replace(vec![approval("a"), done], Vec::new());
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
