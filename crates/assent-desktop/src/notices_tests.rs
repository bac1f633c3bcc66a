use assent_core::{Decision, RiskLevel, Role};

use super::*;
use crate::fixtures::{approval, at, owner, person};
use crate::notifier::Signal;
use crate::prompt::{PromptAction, Urgency};

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
        Some("a"),
        "a press that crossed the close still names the prompt, so it is refused, not lost"
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
fn paused_a_notification_whose_batch_changed_is_closed_not_left_stale() {
    let mut notices = Notices::default();
    let mut a = approval("a");
    notices.shown("a", 10, 1, at(0));
    a.count = 4;
    a.updated_at = at(5);
    let ops = notices.plan(&[&a], true, Some(&owner()));
    assert!(
        shows(&ops).is_empty(),
        "paused: no pop-up for the grown batch"
    );
    assert_eq!(
        closes(&ops),
        vec![("a".to_owned(), 10)],
        "its buttons were for 1 request and would now decide 4: the notification is closed"
    );
    notices.forget("a");
    assert!(
        notices.plan(&[&a], true, Some(&owner())).is_empty(),
        "still paused: nothing more"
    );
    let ops = notices.plan(&[&a], false, Some(&owner()));
    assert_eq!(
        shows(&ops),
        vec![("a".to_owned(), None)],
        "after resuming, the prompt is shown anew, as it is now"
    );
    assert!(
        matches!(ops.first(), Some(NoticeOp::Show { count: 4, .. })),
        "with its current count: {ops:?}"
    );
}

#[test]
fn the_listener_map_follows_replacements() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    notices.shown("a", 12, 2, at(1));
    assert_eq!(
        notices.withdraw(),
        vec![NoticeOp::Close {
            approval_id: "a".to_owned(),
            notification_id: 12
        }],
        "only the new id is on screen"
    );
    assert_eq!(
        notices.prompt_of(10),
        Some("a"),
        "a press on the replaced id still finds its prompt"
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
    escalation.facts.decision = Decision::Escalate;
    escalation.facts.required_role = Some(Role::PlatformAdmin);
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

fn action(id: u32, key: &str) -> Signal {
    Signal::Action {
        id,
        key: key.to_owned(),
    }
}

/// What real servers send when a button is pressed: the action, then the close (reason 2).
fn dismissed(id: u32) -> Signal {
    Signal::Closed { id, reason: 2 }
}

fn press(approval_id: &str, action: PromptAction) -> Press {
    Press {
        approval_id: approval_id.to_owned(),
        action,
    }
}

#[test]
fn a_press_decides_whatever_order_the_close_and_the_action_come_in() {
    let scenarios = [
        (
            "action then close (GNOME Shell, KDE, dunst)",
            [action(10, "allow-once"), dismissed(10)],
        ),
        (
            "close then action",
            [dismissed(10), action(10, "allow-once")],
        ),
    ];
    for (order, signals) in scenarios {
        let mut notices = Notices::default();
        notices.shown("a", 10, 1, at(0));
        let presses: Vec<Press> = signals
            .iter()
            .filter_map(|signal| notices.heard(signal))
            .collect();
        assert_eq!(
            presses,
            vec![press("a", PromptAction::AllowOnce)],
            "{order}: the press reaches its prompt exactly once"
        );
        let a = approval("a");
        assert!(
            notices.plan(&[&a], false, Some(&owner())).is_empty(),
            "{order}: the server closed it; the prompt is not popped up again while it settles"
        );
    }
}

#[test]
fn a_press_on_a_prompt_that_settled_meanwhile_still_names_it() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    // Decided elsewhere: the desk closes the notification as the person presses a button.
    assert_eq!(
        closes(&notices.plan(&[], false, Some(&owner()))),
        vec![("a".to_owned(), 10)],
        "settled elsewhere → closed"
    );
    notices.forget("a");
    assert_eq!(
        notices.heard(&Signal::Closed { id: 10, reason: 3 }),
        None,
        "the close the desk asked for presses nothing"
    );
    assert_eq!(
        notices.heard(&action(10, "deny")),
        Some(press("a", PromptAction::Deny)),
        "the late press reaches the live task, which says it did not go through"
    );
}

#[test]
fn signals_about_other_applications_notifications_are_ignored() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    assert_eq!(
        notices.heard(&action(99, "allow-once")),
        None,
        "id 99 was never ours: another application's button"
    );
    assert_eq!(
        notices.heard(&dismissed(99)),
        None,
        "another application's close"
    );
    assert_eq!(
        notices.prompt_of(10),
        Some("a"),
        "other applications' signals leave ours alone"
    );
    assert_eq!(
        notices.heard(&action(10, "launch-rockets")),
        None,
        "a key Assent never offered is no press"
    );
}

#[test]
fn closed_notifications_are_remembered_for_a_while_not_forever() {
    let mut notices = Notices::default();
    let last = u32::try_from(CLOSED_KEPT).expect("a small bound") + 1;
    for id in 1..=last {
        let prompt = format!("p{id}");
        notices.shown(&prompt, id, 1, at(0));
        assert_eq!(
            notices.closed(id),
            Some(prompt),
            "each close maps back to its prompt"
        );
    }
    assert_eq!(
        notices.prompt_of(1),
        None,
        "beyond {CLOSED_KEPT} later closes, the oldest is forgotten"
    );
    assert_eq!(
        notices.prompt_of(2),
        Some("p2"),
        "the last {CLOSED_KEPT} closes are still known"
    );
    assert_eq!(
        notices.heard(&action(last, "allow-run")),
        Some(press(&format!("p{last}"), PromptAction::AllowForRun)),
        "the newest close is still known"
    );
}

#[test]
fn an_id_handed_out_again_belongs_to_its_new_prompt() {
    let mut notices = Notices::default();
    notices.shown("a", 10, 1, at(0));
    notices.closed(10);
    notices.shown("b", 10, 1, at(1));
    assert_eq!(
        notices.heard(&action(10, "allow-once")),
        Some(press("b", PromptAction::AllowOnce)),
        "the server reused id 10 for b: a press on it is b's"
    );
}

#[test]
fn withdrawn_notifications_close_and_come_back_but_dismissed_ones_do_not() {
    let mut notices = Notices::default();
    let a = approval("a");
    let b = approval("b");
    notices.shown("a", 10, 1, at(0));
    notices.shown("b", 11, 1, at(0));
    notices.closed(11);
    let ops = notices.withdraw();
    assert_eq!(
        closes(&ops),
        vec![("a".to_owned(), 10)],
        "the service is gone (or the desk quits): what is on screen closes"
    );
    assert!(shows(&ops).is_empty(), "nothing pops up without a service");
    notices.forget("a");
    assert_eq!(
        notices.withdraw(),
        Vec::new(),
        "withdrawn once: nothing left on screen"
    );
    assert_eq!(
        shows(&notices.plan(&[&a, &b], false, Some(&owner()))),
        vec![("a".to_owned(), None)],
        "the service is back: a is shown anew, b stays dismissed"
    );
}

#[test]
fn a_prompt_someone_else_must_decide_is_never_an_urgent_toast() {
    let notices = Notices::default();
    let mut escalation = approval("esc");
    escalation.facts.decision = Decision::Escalate;
    escalation.facts.risk = RiskLevel::Critical;
    escalation.facts.required_role = Some(Role::PlatformAdmin);
    let urgency_of = |escalation: &Approval, me: &Me| -> Urgency {
        match notices.plan(&[escalation], false, Some(me)).as_slice() {
            [NoticeOp::Show { notice, .. }] => notice.urgency,
            other => panic!("one prompt, one notification: {other:?}"),
        }
    };
    let urgency = |me: &Me| urgency_of(&escalation, me);
    assert_eq!(
        urgency(&person("alice", &[Role::RepoMaintainer])),
        Urgency::Low,
        "alice may not decide a platform_admin prompt: a quiet notice, not a critical toast"
    );
    assert_eq!(
        urgency(&person("nobody", &[])),
        Urgency::Low,
        "a person without roles decides nothing: quiet"
    );
    assert_eq!(
        urgency(&person("root", &[Role::PlatformAdmin])),
        Urgency::Critical,
        "root can decide it: the critical toast is for them"
    );
    escalation.asked = Some(assent_protocol::AskedSteps {
        step: 1,
        people: vec!["root".to_owned()],
        basis: assent_core::policy::routing::AskedBasis::Everyone,
        at: at(0),
        escalated_at: None,
        escalated_to: Vec::new(),
    });
    assert_eq!(
        urgency_of(&escalation, &person("alice", &[Role::RepoMaintainer])),
        Urgency::Low,
        "routing asks only those who may decide; alice, who may not, still gets the quiet \
         notice that says who must — routing holds back decide-toasts, not the news"
    );
    let mut mine = approval("mine");
    mine.facts.risk = RiskLevel::High;
    mine.requester = "owner".to_owned();
    match notices.plan(&[&mine], false, Some(&owner())).as_slice() {
        [NoticeOp::Show { notice, .. }] => assert_eq!(
            notice.urgency,
            Urgency::Low,
            "the owner's own request is for someone else to decide: not urgent to the owner"
        ),
        other => panic!("one prompt, one notification: {other:?}"),
    }
}

#[test]
fn a_prompt_routed_to_other_people_raises_no_notification_until_it_asks_this_person() {
    use assent_core::policy::routing::AskedBasis;
    let notices = Notices::default();
    let bob = person("bob", &[Role::TaskAuthor]);
    let mut prompt = approval("routed");
    prompt.asked = Some(assent_protocol::AskedSteps {
        step: 1,
        people: vec!["alice".to_owned()],
        basis: AskedBasis::Present,
        at: at(0),
        escalated_at: None,
        escalated_to: Vec::new(),
    });
    assert!(
        shows(&notices.plan(&[&prompt], false, Some(&bob))).is_empty(),
        "the prompt asks alice (present) first: bob's desk stays quiet"
    );
    if let Some(asked) = prompt.asked.as_mut() {
        asked.step = 2;
        asked.escalated_at = Some(at(300));
        asked.escalated_to = vec!["bob".to_owned()];
    }
    assert_eq!(
        shows(&notices.plan(&[&prompt], false, Some(&bob))),
        [("routed".to_owned(), None)],
        "escalated to bob: his desk notifies now"
    );
    assert_eq!(
        shows(&notices.plan(&[&prompt], false, None)).len(),
        1,
        "not yet known who is signed in: notified, as before routing"
    );
}

fn reviewed(id: &str, state: assent_protocol::ReviewState, outcome: Option<&str>) -> Approval {
    let mut a = approval(id);
    a.review = Some(assent_protocol::ApprovalReview {
        model: "qwen3:8b".to_owned(),
        outcome: outcome.map(str::to_owned),
        risk: outcome.map(|_| RiskLevel::Low),
        rationale: "runs the tests only".to_owned(),
        state,
        reviewer_unavailable: false,
    });
    a
}

fn shown_body(ops: &[NoticeOp]) -> Option<String> {
    ops.iter().find_map(|op| match op {
        NoticeOp::Show { notice, .. } => Some(notice.body.clone()),
        NoticeOp::Close { .. } => None,
    })
}

#[test]
fn a_prompt_the_reviewer_may_still_approve_alone_is_not_notified_until_it_reaches_the_person() {
    use assent_protocol::ReviewState;
    let mut notices = Notices::default();
    let reviewing = reviewed("a", ReviewState::Reviewing, None);
    assert!(
        notices
            .plan(&[&reviewing], false, Some(&owner()))
            .is_empty(),
        "the model may approve it alone: no person is asked yet, so no pop-up"
    );
    // The approval.updated that follows: the reviewer gave its opinion, the person decides.
    let advised = reviewed("a", ReviewState::Advised, Some("ask_person"));
    let ops = notices.plan(&[&advised], false, Some(&owner()));
    assert_eq!(
        shows(&ops),
        vec![("a".to_owned(), None)],
        "once it reaches the person, it is notified (once, new)"
    );
    let body = shown_body(&ops).expect("a body");
    assert!(
        body.ends_with("\nReviewer (qwen3:8b): would ask you — runs the tests only"),
        "the body carries the reviewer's opinion as one line, named as the model's: {body}"
    );
    notices.shown("a", 10, 1, advised.updated_at);
    assert!(
        notices.plan(&[&advised], false, Some(&owner())).is_empty(),
        "notified once, not again on the next plan"
    );
}

#[test]
fn a_failed_or_ineligible_review_is_notified_with_what_happened() {
    use assent_protocol::ReviewState;
    for (state, want) in [
        (
            ReviewState::Failed,
            "Reviewer (qwen3:8b) failed: runs the tests only — asking you",
        ),
        (
            ReviewState::NotEligible,
            "Reviewer (qwen3:8b) may not decide this: runs the tests only",
        ),
    ] {
        let notices = Notices::default();
        let a = reviewed("a", state, None);
        let ops = notices.plan(&[&a], false, Some(&owner()));
        let body = shown_body(&ops)
            .unwrap_or_else(|| panic!("{state:?}: the person decides, so notified"));
        assert_eq!(
            body.lines().last(),
            Some(want),
            "{state:?}: the last line says the reviewer's part"
        );
    }
}

#[test]
fn an_opinion_arriving_after_the_prompt_was_shown_replaces_its_notification_in_place() {
    use assent_protocol::ReviewState;
    let mut notices = Notices::default();
    // Advise mode: the prompt is shown while the call is under way (no verdict yet).
    let asking = reviewed("a", ReviewState::Advised, None);
    let ops = notices.plan(&[&asking], false, Some(&owner()));
    assert_eq!(
        shows(&ops),
        vec![("a".to_owned(), None)],
        "shown at once: a person decides"
    );
    notices.shown("a", 10, 1, asking.updated_at);
    assert!(
        notices.plan(&[&asking], false, Some(&owner())).is_empty(),
        "nothing changed: not shown again"
    );
    // The same prompt (same count, same updated_at) now carries the reviewer's opinion.
    let advised = reviewed("a", ReviewState::Advised, Some("approve"));
    let ops = notices.plan(&[&advised], false, Some(&owner()));
    assert_eq!(
        shows(&ops),
        vec![("a".to_owned(), Some(10))],
        "the opinion replaces the notification in place, not a second one"
    );
    assert!(
        shown_body(&ops).is_some_and(
            |b| b.ends_with("Reviewer (qwen3:8b): would approve — runs the tests only")
        ),
        "with the opinion in its body"
    );
    notices.shown("a", 10, 1, advised.updated_at);
    assert!(
        notices.plan(&[&advised], false, Some(&owner())).is_empty(),
        "once shown, the opinion is not shown again"
    );
}
