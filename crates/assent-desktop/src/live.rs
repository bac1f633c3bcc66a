//! The live task: follows the event stream (refetching on every (re)connect and `reset`),
//! receives notification clicks and pause choices, and after each change brings the
//! notifications, the tray and the window up to date. Event-driven: the only timer is the end
//! of a timed pause. While the service is out of reach the desk shows no notification (its
//! buttons could not go through); on Quit it closes them before the app ends.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use assent_client::StreamItem;
use assent_protocol::Approval;
use chrono::Utc;
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::app::App;
use crate::app_state::{locked, Hub};
use crate::desk::{Desk, Follow, Link};
use crate::ipc::DeskEvent;
use crate::link_notice::LinkWatch;
use crate::notices::{NoticeOp, Notices, Press};
use crate::notifier::Notifier;
use crate::pause::Pause;
use crate::prompt::{why_notice, PromptNotice};
use crate::tray::{Tray, TrayView};

pub(crate) mod input;
mod press;

use input::Input;

/// How long Quit waits for the notifications to close: never hang on a stuck server.
const QUIT_WAIT: Duration = Duration::from_secs(2);

type Events = Pin<Box<dyn Stream<Item = StreamItem> + Send>>;

/// The event stream of the service in use now.
fn subscribe(hub: &Hub) -> Events {
    Box::pin(hub.client().events(None))
}

/// Runs until the app quits.
pub(crate) async fn run(
    app: Arc<App>,
    tray: Option<Tray>,
    mut inputs: mpsc::Receiver<Input>,
    notifier: Option<Notifier>,
) {
    let hub = Arc::clone(&app.hub);
    let mut notices = Notices::default();
    // Whether the last Notify failed: say so once, not once per prompt and event.
    let mut notify_failing = false;
    let mut tray_shown: Option<TrayView> = None;
    // The service's loss and return, said in one notification replaced in place.
    let mut link_watch = LinkWatch::default();
    let mut link_notice: Option<u32> = None;
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
                Input::AskWhy(approval) => {
                    if let Some(notifier) = notifier.as_ref() {
                        ask_why(&hub, notifier, &mut notices, &approval).await;
                    }
                }
                Input::Quit => {
                    if let Some(notifier) = notifier.as_ref() {
                        let ops = notices.withdraw();
                        execute(notifier, &mut notices, ops, &mut notify_failing).await;
                    }
                    return;
                }
                input => on_input(&app, &mut notices, input),
            },
            () = pause_over => *locked(&hub.pause) = Pause::Off,
        }
        reconcile(&hub, &mut notices, notifier.as_ref(), &mut notify_failing).await;
        say_link(&hub, &mut link_watch, notifier.as_ref(), &mut link_notice).await;
        redraw(&app, tray.as_ref(), &mut tray_shown).await;
    }
}

/// Says the service's loss while agents wait, and its return (none while paused), in one
/// notification replaced in place.
async fn say_link(
    hub: &Hub,
    watch: &mut LinkWatch,
    notifier: Option<&Notifier>,
    shown: &mut Option<u32>,
) {
    let notice = {
        let desk = locked(&hub.desk);
        watch.on_link(&desk.link, desk.waited_on())
    };
    let (Some(notice), Some(notifier)) = (notice, notifier) else {
        return;
    };
    if hub.paused() {
        return;
    }
    match notifier.show(&notice, *shown).await {
        Ok(id) => *shown = Some(id),
        Err(err) => tracing::warn!(%err, "cannot say the service's loss or return"),
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

fn on_input(app: &Arc<App>, notices: &mut Notices, input: Input) {
    let hub = &app.hub;
    match input {
        Input::Pause(choice) => *locked(&hub.pause) = Pause::start(choice, Utc::now()),
        Input::Redraw | Input::Reconnect | Input::Refused(_) | Input::AskWhy(_) | Input::Quit => {}
        Input::Signal(signal) => {
            if let Some(Press {
                approval_id,
                action,
            }) = notices.heard(&signal)
            {
                press::on_action(app, approval_id, action);
            }
        }
    }
}

/// Raises the "why deny?" notification for `approval` in place of its prompt notification
/// (closed, if the server kept it on screen): its buttons are the prompt's from then on.
async fn ask_why(hub: &Hub, notifier: &Notifier, notices: &mut Notices, approval: &Approval) {
    let notice = why_notice(approval, &hub.settings().deny_reasons());
    let before = notices.on_screen(&approval.approval_id);
    match notifier.show(&notice, None).await {
        Ok(id) => {
            notices.shown(
                &approval.approval_id,
                id,
                approval.count,
                approval.updated_at,
            );
            if let Some(before) = before.filter(|before| *before != id) {
                if let Err(err) = notifier.close(before).await {
                    tracing::debug!(%err, "the prompt's notification was already gone");
                }
            }
        }
        Err(err) => {
            tracing::warn!(%err, "cannot ask why: the prompt stays in the window and the tray");
        }
    }
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
async fn redraw(app: &App, tray: Option<&Tray>, tray_shown: &mut Option<TrayView>) {
    let hub = &app.hub;
    let view = TrayView::of(&locked(&hub.desk), hub.paused());
    if tray_shown.as_ref() != Some(&view) {
        if let Some(tray) = tray {
            tray.show(view.clone()).await;
        }
        *tray_shown = Some(view);
    }
    if app.window.is_open() {
        app.window.emit(&DeskEvent::State {
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
