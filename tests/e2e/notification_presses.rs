//! Many presses of every decision button, each on a new prompt, under both orders in which a
//! server may send a press's two signals; every press must make its grant or denial. Deny is
//! two presses (Deny, then a reason on the "why deny?" notification), both under the order.
//! The counts (made / applied) are written to stderr so a passing run shows them too.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::common::notification_server::{NotificationServer, PressOrder};
use crate::common::{shell_request, status_of, submit_pending, Desk, ASKED_COMMAND};
use crate::{next_shown, start_app, WAIT};
use assent_core::{ApprovalStatus, ScopeKind};

/// How many times each button is pressed under each signal order.
const PRESSES: u32 = 20;
/// The first of the desk's default deny reasons: what the agent must be told.
const FIRST_REASON: &str = "use the staging environment";
/// How long one press may take to be decided by the service before it counts as lost.
const PRESS_WAIT: Duration = Duration::from_secs(10);

/// A decision button of a prompt's notification and what pressing it must make.
#[derive(Debug, Clone, Copy)]
enum Button {
    AllowOnce,
    AllowForRun,
    Deny,
}

impl Button {
    const ALL: [Button; 3] = [Button::AllowOnce, Button::AllowForRun, Button::Deny];

    fn key(self) -> &'static str {
        match self {
            Button::AllowOnce => "allow-once",
            Button::AllowForRun => "allow-run",
            Button::Deny => "deny",
        }
    }

    fn status(self) -> ApprovalStatus {
        match self {
            Button::AllowOnce => ApprovalStatus::ApprovedOnce,
            Button::AllowForRun => ApprovalStatus::ApprovedForRun,
            Button::Deny => ApprovalStatus::Denied,
        }
    }

    /// The grant an approval must leave (`None`: a denial leaves none).
    fn grant(self) -> Option<ScopeKind> {
        match self {
            Button::AllowOnce => Some(ScopeKind::Once),
            Button::AllowForRun => Some(ScopeKind::Run),
            Button::Deny => None,
        }
    }
}

/// Whether the press of `button` on `approval_id` made its decision (and grant) within
/// [`PRESS_WAIT`]. A lost press leaves the prompt pending: it counts as not applied.
async fn applied(approver: &assent_client::Client, approval_id: &str, button: Button) -> bool {
    let until = Instant::now() + PRESS_WAIT;
    let status = loop {
        let status = status_of(approver, approval_id).await;
        if status != ApprovalStatus::Requested || Instant::now() >= until {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    if status != button.status() {
        return false;
    }
    let Some(scope) = button.grant() else {
        let reason = approver
            .approval(approval_id, None)
            .await
            .expect("the approval")
            .decision_reason;
        return reason.as_deref() == Some(FIRST_REASON);
    };
    approver
        .grants(false)
        .await
        .expect("the grants")
        .iter()
        .any(|g| g.grant.approval_id == approval_id && g.grant.scope_kind == scope)
}

/// Presses each button [`PRESSES`] times under `order`, a new prompt (its own run) each time;
/// the presses made and applied per button, also written to stderr to be quoted.
async fn press_every_button(order: PressOrder) -> Vec<(Button, u32, u32)> {
    let mut server = NotificationServer::start().await;
    let desk = Desk::new();
    let _app = start_app(&desk);
    let (requester, approver) = desk.wait_ready(WAIT).await;
    let mut tally = Vec::new();
    for button in Button::ALL {
        let (mut made, mut applied_count) = (0, 0);
        for press in 0..PRESSES {
            let run_id = format!("run-{order:?}-{button:?}-{press}");
            let request = shell_request(&run_id, ASKED_COMMAND, "/work/shop");
            let approval_id = submit_pending(&requester, &request).await;
            let (id, actions) = next_shown(&mut server).await;
            assert!(
                actions.iter().any(|key| key == button.key()),
                "{button:?} must be offered on {ASKED_COMMAND}: {actions:?}"
            );
            server.press(id, button.key(), order).await;
            if let Button::Deny = button {
                // Deny asks why: the reason picked on the next notification denies.
                let (why, reasons) = next_shown(&mut server).await;
                assert!(
                    reasons.iter().any(|key| key == "deny-reason-1"),
                    "Deny must raise the 'why deny?' notification: {reasons:?}"
                );
                server.press(why, "deny-reason-1", order).await;
            }
            made += 1;
            if applied(&approver, &approval_id, button).await {
                applied_count += 1;
            }
        }
        tally.push((button, made, applied_count));
    }
    // Written past the test harness's capture, so a passing run shows its counts too.
    let mut out = std::io::stderr().lock();
    for (button, made, applied) in &tally {
        let _ = writeln!(
            out,
            "presses, {order:?}: {button:?}: made {made}, applied {applied}"
        );
    }
    tally
}

fn assert_every_press_applied(order: PressOrder, tally: &[(Button, u32, u32)]) {
    for (button, made, applied) in tally {
        assert_eq!(
            (*made, *applied),
            (PRESSES, PRESSES),
            "{order:?}: every press of {button:?} on a pending prompt must make its decision; \
             a lost press leaves the agent waiting and tells the person nothing"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_press_decides_when_the_server_sends_the_action_then_the_close() {
    let order = PressOrder::ActionFirst;
    let tally = press_every_button(order).await;
    assert_every_press_applied(order, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_press_decides_when_the_server_sends_the_close_then_the_action() {
    let order = PressOrder::CloseFirst;
    let tally = press_every_button(order).await;
    assert_every_press_applied(order, &tally);
}
