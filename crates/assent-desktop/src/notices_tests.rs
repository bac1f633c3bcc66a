use assent_core::{Decision, Role};

use super::*;
use crate::fixtures::{approval, at, owner, person};
use crate::prompt::PromptAction;

fn shows(ops: &[NoticeOp]) -> Vec<(String, Option<u32>)> {
    ops.iter()
        .filter_map(|op| match op {
            NoticeOp::Show {
                approval_id,
                replaces,
                ..
            } => Some((approval_id.clone(), *replaces)),
            NoticeOp::Close { .. } => None,
        })
        .collect()
}

fn closes(ops: &[NoticeOp]) -> Vec<(String, u32)> {
    ops.iter()
        .filter_map(|op| match op {
            NoticeOp::Close {
                approval_id,
                notification_id,
            } => Some((approval_id.clone(), *notification_id)),
            NoticeOp::Show { .. } => None,
        })
        .collect()
}

#[test]
fn each_pending_prompt_is_notified_once_including_those_pending_at_start() {
    let mut notices = Notices::default();
    let a = approval("a");
    let b = approval("b");
    let ops = notices.plan(&[&a, &b], false, Some(&owner()));
    assert_eq!(
        shows(&ops),
        vec![("a".to_owned(), None), ("b".to_owned(), None)],
        "prompts already pending at start are notified"
    );
    notices.shown("a", 10, 1, at(0));
    notices.shown("b", 11, 1, at(0));
    assert!(
        notices.plan(&[&a, &b], false, Some(&owner())).is_empty(),
        "a reconnect with the same prompts must not notify twice"
    );
}

#[test]
fn a_growing_batch_replaces_its_notification_in_place() {
    let mut notices = Notices::default();
    let mut a = approval("a");
    notices.shown("a", 10, 1, at(0));
    a.count = 3;
    a.updated_at = at(5);
    assert_eq!(
        shows(&notices.plan(&[&a], false, Some(&owner()))),
        vec![("a".to_owned(), Some(10))],
        "the batch grew: same notification id, updated"
    );
}

#[test]
fn a_settled_prompt_closes_its_notification_and_is_forgotten() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    let ops = notices.plan(&[], false, Some(&owner()));
    assert_eq!(
        closes(&ops),
        vec![("a".to_owned(), 10)],
        "settled anywhere → closed"
    );
    notices.forget("a");
    assert_eq!(
        notices.prompt_of(10),
        None,
        "a closed notification maps to nothing"
    );
    assert!(
        notices.plan(&[], false, Some(&owner())).is_empty(),
        "nothing left to do"
    );
}

#[test]
fn a_dismissed_notification_is_not_shown_again() {
    let mut notices = Notices::default();
    let mut a = approval("a");
    notices.shown("a", 10, 1, at(0));
    assert_eq!(
        notices.closed(10),
        Some("a".to_owned()),
        "the listener maps the id back"
    );
    assert!(
        notices.plan(&[&a], false, Some(&owner())).is_empty(),
        "dismissed stays dismissed"
    );
    a.count = 2;
    assert!(
        notices.plan(&[&a], false, Some(&owner())).is_empty(),
        "a dismissed prompt does not pop up again when its batch grows"
    );
    let ops = notices.plan(&[], false, Some(&owner()));
    assert_eq!(
        closes(&ops),
        vec![("a".to_owned(), 0)],
        "settled: forgotten without a D-Bus close"
    );
}

#[test]
fn paused_means_no_popups_but_settled_ones_still_close() {
    let mut notices = Notices::default();
    let a = approval("a");
    let b = approval("b");
    notices.shown("b", 11, 1, at(0));
    let ops = notices.plan(&[&a], true, Some(&owner()));
    assert!(shows(&ops).is_empty(), "paused: no popups");
    assert_eq!(
        closes(&ops),
        vec![("b".to_owned(), 11)],
        "paused: settled prompts still close"
    );
    assert_eq!(
        shows(&notices.plan(&[&a, &b], false, Some(&owner()))),
        vec![("a".to_owned(), None)],
        "after resuming, prompts never notified are shown once"
    );
}

#[test]
fn the_listener_map_follows_replacements() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    notices.shown("a", 12, 2, at(1));
    assert_eq!(
        notices.prompt_of(10),
        None,
        "the replaced id no longer maps"
    );
    assert_eq!(
        notices.prompt_of(12),
        Some("a"),
        "the new id maps to the prompt"
    );
    assert_eq!(
        notices.closed(99),
        None,
        "unknown ids (other apps) are ignored"
    );
}

#[test]
fn the_plan_offers_buttons_by_the_roles_the_service_holds_for_who_is_signed_in() {
    let notices = Notices::default();
    let mut escalation = approval("esc");
    escalation.decision = Decision::Escalate;
    escalation.required_role = Some(Role::PlatformAdmin);
    let actions = |me: Option<&Me>| -> Vec<PromptAction> {
        match notices.plan(&[&escalation], false, me).as_slice() {
            [NoticeOp::Show { notice, .. }] => notice.actions.clone(),
            other => panic!("one prompt, one notification: {other:?}"),
        }
    };
    assert_eq!(
        actions(Some(&person("alice", &[Role::RepoMaintainer]))),
        [PromptAction::Open],
        "the service says alice lacks platform_admin: Open only"
    );
    assert!(
        actions(Some(&person("root", &[Role::PlatformAdmin]))).contains(&PromptAction::AllowOnce),
        "the service says root holds platform_admin: the decision buttons"
    );
    assert_eq!(
        actions(None),
        [PromptAction::Open],
        "not yet known who is signed in: Open only"
    );
    let mut mine = approval("mine");
    mine.requester = "owner".to_owned();
    match notices.plan(&[&mine], false, Some(&owner())).as_slice() {
        [NoticeOp::Show { notice, .. }] => assert_eq!(
            notice.actions,
            [PromptAction::Open],
            "the owner's own request: Open only, every role notwithstanding"
        ),
        other => panic!("one prompt, one notification: {other:?}"),
    }
}
