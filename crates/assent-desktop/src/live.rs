//! The live task: follows the event stream (refetching on every (re)connect and `reset`),
//! receives notification clicks and pause choices, and after each change brings the
//! notifications, the tray and the window up to date. Event-driven: the only timer is the end
//! of a timed pause. While the service is out of reach the desk shows no notification (its
//! buttons could not go through); on Quit it closes them before the app ends.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use assent_client::StreamItem;
use assent_core::ScopeKind;
use assent_protocol::{Approval, DecisionRequest, Me};
use chrono::Utc;
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::desk::{Desk, Follow, Link};
use crate::hub::{locked, Hub};
use crate::ipc::{said, DeskEvent};
use crate::notices::{NoticeOp, Notices, Press};
use crate::notifier::{Notifier, Signal};
use crate::pause::{Pause, PauseChoice};
use crate::prompt::{
    notice, open_only, open_only_line, refused_notice, PromptAction, PromptNotice,
};
use crate::tray::{Tray, TrayView};
use crate::Shell;

/// Expiry of a grant made from a notification's "Allow once".
pub const ONCE_EXPIRY_SECONDS: i64 = 15 * 60;
/// "End of run": the grant ends when the run ends, bounded by the default policy's 8 h.
pub const RUN_EXPIRY_SECONDS: i64 = 8 * 60 * 60;
/// The reason a notification's "Deny" sends back to the agent.
pub const NOTIFICATION_DENY_REASON: &str = "Denied from the Assent notification";

/// What the live task receives besides the event stream.
#[derive(Debug)]
pub enum Input {
    Signal(Signal),
    Pause(PauseChoice),
    /// Settings changed (notifications on/off): redraw.
    Redraw,
    /// The service changed (URL or token in the settings): follow the new one.
    Reconnect,
    /// A notification button did not go through: show why.
    Refused(PromptNotice),
    /// The app quits: close the desk's notifications and end (see [`quit`]).
    Quit,
}

/// How long Quit waits for the notifications to close: never hang on a stuck server.
const QUIT_WAIT: Duration = Duration::from_secs(2);

type Events = Pin<Box<dyn Stream<Item = StreamItem> + Send>>;

/// The event stream of the service in use now.
fn subscribe(hub: &Hub) -> Events {
    Box::pin(hub.client().events(None))
}

/// Runs until the app quits.
pub(crate) async fn run(
    shell: Arc<Shell>,
    tray: Option<Tray>,
    mut inputs: mpsc::Receiver<Input>,
    notifier: Option<Notifier>,
) {
    let hub = Arc::clone(&shell.hub);
    let mut notices = Notices::default();
    // Whether the last Notify failed: say so once, not once per prompt and event.
    let mut notify_failing = false;
    let mut tray_shown: Option<TrayView> = None;
    let mut events = subscribe(&hub);
    loop {
        let pause_end = locked(&hub.pause).ends_at();
        let pause_over = async {
            match pause_end.and_then(|end| (end - Utc::now()).to_std().ok()) {
                Some(left) => tokio::time::sleep(left).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            item = events.next() => match item {
                Some(item) => {
                    if let Some(notice) = on_stream(&hub, item).await {
                        show_refusal(notifier.as_ref(), &notice).await;
                    }
                }
                None => break,
            },
            Some(input) = inputs.recv() => match input {
                Input::Reconnect => {
                    // Everything known came from the old service; the new one is fetched
                    // on its `Connected`.
                    events = subscribe(&hub);
                    *locked(&hub.desk) = Desk::default();
                }
                Input::Refused(notice) => show_refusal(notifier.as_ref(), &notice).await,
                Input::Quit => {
                    if let Some(notifier) = notifier.as_ref() {
                        let ops = notices.withdraw();
                        execute(notifier, &mut notices, ops, &mut notify_failing).await;
                    }
                    return;
                }
                input => on_input(&shell, &mut notices, input),
            },
            () = pause_over => *locked(&hub.pause) = Pause::Off,
        }
        reconcile(&hub, &mut notices, notifier.as_ref(), &mut notify_failing).await;
        redraw(&shell, tray.as_ref(), &mut tray_shown).await;
    }
}

/// Asks the live task to close the desk's notifications and end, and waits for it (at most
/// [`QUIT_WAIT`] each): a prompt's buttons must not outlive the desk that answers them.
pub(crate) async fn quit(inputs: &mpsc::Sender<Input>, task: JoinHandle<()>) {
    if inputs.send_timeout(Input::Quit, QUIT_WAIT).await.is_err() {
        tracing::warn!("the live task is gone: cannot close the notifications");
        return;
    }
    if tokio::time::timeout(QUIT_WAIT, task).await.is_err() {
        tracing::warn!("quitting without closing every notification: the server is slow");
    }
}

/// Applies one stream item; a notice to show that belongs to no prompt, if any.
async fn on_stream(hub: &Hub, item: StreamItem) -> Option<PromptNotice> {
    match item {
        StreamItem::Connected => refetch(hub).await,
        StreamItem::Event(envelope) => {
            let follow = locked(&hub.desk).apply(&envelope.event);
            match follow {
                Follow::Refetch => refetch(hub).await,
                Follow::Notify(notice) => return Some(notice),
                Follow::Nothing => {}
            }
        }
        StreamItem::Disconnected(reason) => {
            locked(&hub.desk).link = Link::Disconnected { reason };
        }
    }
    None
}

/// Who this desk signs in as, pending prompts, grants and paused runs, fetched afresh.
async fn refetch(hub: &Hub) {
    let client = hub.client();
    let (me, pending, grants, held) = tokio::join!(
        client.me(),
        client.pending(),
        client.grants(false),
        client.paused_runs()
    );
    let mut desk = locked(&hub.desk);
    match (me, pending, grants, held) {
        (Ok(me), Ok(pending), Ok(grants), Ok(held)) => {
            desk.me = Some(me);
            desk.replace(pending, grants, held);
            desk.link = Link::Connected;
        }
        (Err(err), _, _, _) | (_, Err(err), _, _) | (_, _, Err(err), _) | (_, _, _, Err(err)) => {
            desk.link = Link::Disconnected {
                reason: err.to_string(),
            };
        }
    }
}

fn on_input(shell: &Arc<Shell>, notices: &mut Notices, input: Input) {
    let hub = &shell.hub;
    match input {
        Input::Pause(choice) => *locked(&hub.pause) = choice.start(Utc::now()),
        Input::Redraw | Input::Reconnect | Input::Refused(_) | Input::Quit => {}
        Input::Signal(signal) => {
            if let Some(Press {
                approval_id,
                action,
            }) = notices.heard(&signal)
            {
                on_action(shell, approval_id, action);
            }
        }
    }
}

/// A notification button: opens the window, or decides through the service with the
/// approver token (never the webview's business). A click that does not go through — the
/// service refused it, or the prompt is gone — raises a notification saying why.
fn on_action(shell: &Arc<Shell>, approval_id: String, action: PromptAction) {
    if action == PromptAction::Open {
        shell.open_window(Some(&approval_id));
        return;
    }
    let hub = &shell.hub;
    let (approval, not_offered) = {
        let desk = locked(&hub.desk);
        let approval = desk.pending(&approval_id).cloned();
        let not_offered = not_offered(approval.as_ref(), desk.me.as_ref(), action);
        (approval, not_offered)
    };
    let inputs = hub.inputs.clone();
    let refuse = move |approval: Option<&Approval>, message: &str| {
        tracing::warn!(%message, ?action, "a decision from a notification did not go through");
        let notice = refused_notice(approval, action, message);
        // The live task may be gone only while the app quits.
        let _ = inputs.try_send(Input::Refused(notice));
    };
    if let Some(message) = not_offered {
        refuse(approval.as_ref(), &message);
        return;
    }
    let Some(request) = decision_for(action, approval.as_ref()) else {
        return;
    };
    let client = hub.client();
    tokio::spawn(async move {
        if let Err(err) = client.decide(&approval_id, &request).await {
            refuse(approval.as_ref(), &said(&err));
        }
    });
}

/// Why `action` is not offered on `approval` now (it settled, or this person may not decide
/// it), or `None` when it is.
fn not_offered(
    approval: Option<&Approval>,
    me: Option<&Me>,
    action: PromptAction,
) -> Option<String> {
    let Some(approval) = approval else {
        return Some(
            "This prompt is no longer waiting: it was decided elsewhere or expired.".to_owned(),
        );
    };
    if notice(approval, me).is_some_and(|notice| notice.actions.contains(&action)) {
        return None;
    }
    Some(match open_only(approval, me) {
        Some(why) => open_only_line(why),
        None => format!("This prompt does not offer \"{}\".", action.label()),
    })
}

/// Shows why a notification button did not go through.
async fn show_refusal(notifier: Option<&Notifier>, notice: &PromptNotice) {
    let Some(notifier) = notifier else {
        return;
    };
    if let Err(err) = notifier.show(notice, None).await {
        tracing::warn!(%err, "cannot show why a decision did not go through");
    }
}

/// How long a button's grant lasts: what the service's `quick_decisions` allow for that scope
/// (the policy's bound), else the desk's default capped by nothing the service told us.
fn quick_seconds(approval: Option<&Approval>, scope: ScopeKind, default: i64) -> i64 {
    approval
        .and_then(|a| a.quick_decisions.iter().find(|q| q.scope == scope))
        .map_or(default, |q| q.expires_in_seconds)
}

/// The decision a notification button stands for on `approval`.
pub fn decision_for(action: PromptAction, approval: Option<&Approval>) -> Option<DecisionRequest> {
    let approve = |scope, expires_in_seconds, reason: &str| DecisionRequest::Approve {
        scope,
        expires_in_seconds,
        max_uses: None,
        reason: Some(reason.to_owned()),
        path_patterns: None,
    };
    match action {
        PromptAction::Open => None,
        PromptAction::AllowOnce => Some(approve(
            ScopeKind::Once,
            quick_seconds(approval, ScopeKind::Once, ONCE_EXPIRY_SECONDS),
            "Allowed once from the Assent notification",
        )),
        PromptAction::AllowForRun => Some(approve(
            ScopeKind::Run,
            quick_seconds(approval, ScopeKind::Run, RUN_EXPIRY_SECONDS),
            "Allowed for this run from the Assent notification",
        )),
        PromptAction::Deny => Some(DecisionRequest::Deny {
            reason: NOTIFICATION_DENY_REASON.to_owned(),
        }),
    }
}

/// Brings the notifications in line with the desk: the pending prompts while the service
/// answers, none while it is out of reach.
async fn reconcile(
    hub: &Hub,
    notices: &mut Notices,
    notifier: Option<&Notifier>,
    failing: &mut bool,
) {
    let paused = hub.paused();
    let ops = {
        let desk = locked(&hub.desk);
        if desk.link == Link::Connected {
            notices.plan(&desk.pending_newest_first(), paused, desk.me.as_ref())
        } else {
            notices.withdraw()
        }
    };
    if let Some(notifier) = notifier {
        execute(notifier, notices, ops, failing).await;
    }
}

/// Brings the tray (what changed of it) and the window in line with the desk.
async fn redraw(shell: &Shell, tray: Option<&Tray>, tray_shown: &mut Option<TrayView>) {
    let hub = &shell.hub;
    let view = TrayView::of(&locked(&hub.desk), hub.paused());
    if tray_shown.as_ref() != Some(&view) {
        if let Some(tray) = tray {
            tray.show(view.clone()).await;
        }
        *tray_shown = Some(view);
    }
    if shell.window.is_open() {
        shell.window.emit(&DeskEvent::State {
            snapshot: hub.snapshot(),
        });
    }
}

/// Sends the plan. A prompt whose Notify failed stays unshown and is tried again on the next
/// change (a notification server may start later).
async fn execute(
    notifier: &Notifier,
    notices: &mut Notices,
    ops: Vec<NoticeOp>,
    failing: &mut bool,
) {
    for op in ops {
        match op {
            NoticeOp::Show {
                approval_id,
                replaces,
                notice,
                count,
                updated_at,
            } => match notifier.show(&notice, replaces).await {
                Ok(id) => {
                    notices.shown(&approval_id, id, count, updated_at);
                    *failing = false;
                }
                Err(err) if *failing => {
                    tracing::debug!(%err, %approval_id, "cannot show the notification");
                }
                Err(err) => {
                    tracing::warn!(%err, %approval_id, "cannot show notifications; the tray and the window still show every prompt");
                    *failing = true;
                }
            },
            NoticeOp::Close {
                approval_id,
                notification_id,
            } => {
                if notification_id != 0 {
                    if let Err(err) = notifier.close(notification_id).await {
                        tracing::debug!(%err, "the notification was already gone");
                    }
                }
                notices.forget(&approval_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_button_asks_for_what_the_policy_allows() {
        let mut approval = crate::fixtures::approval("a-1");
        approval.quick_decisions = vec![assent_core::QuickDecision {
            label: "Allow maven-test for run".to_owned(),
            scope: ScopeKind::Run,
            expires_in_seconds: 14_400,
        }];
        match decision_for(PromptAction::AllowForRun, Some(&approval)) {
            Some(DecisionRequest::Approve {
                expires_in_seconds, ..
            }) => assert_eq!(
                expires_in_seconds, 14_400,
                "a policy capping run grants at 4 h gets a 4 h click, not a refused 8 h one"
            ),
            other => panic!("'Allow for run' must approve, got {other:?}"),
        }
    }

    #[test]
    fn notification_buttons_map_to_the_documented_decisions() {
        assert_eq!(
            decision_for(PromptAction::Open, None),
            None,
            "the body click only opens the window"
        );
        match decision_for(PromptAction::AllowForRun, None) {
            Some(DecisionRequest::Approve {
                scope,
                expires_in_seconds,
                ..
            }) => {
                assert_eq!(
                    scope,
                    ScopeKind::Run,
                    "'Allow for run' grants the run scope"
                );
                assert!(expires_in_seconds > 0, "every grant expires");
            }
            other => panic!("'Allow for run' must approve, got {other:?}"),
        }
        match decision_for(PromptAction::AllowOnce, None) {
            Some(DecisionRequest::Approve { scope, .. }) => {
                assert_eq!(
                    scope,
                    ScopeKind::Once,
                    "'Allow once' grants exactly this action"
                );
            }
            other => panic!("'Allow once' must approve, got {other:?}"),
        }
        match decision_for(PromptAction::Deny, None) {
            Some(DecisionRequest::Deny { reason }) => {
                assert!(
                    !reason.trim().is_empty(),
                    "a denial carries a reason for the agent"
                );
            }
            other => panic!("'Deny' must deny, got {other:?}"),
        }
    }
}
