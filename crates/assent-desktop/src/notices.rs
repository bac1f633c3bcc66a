//! Which notification belongs to which prompt, and what to send next: one notification per
//! prompt (also for prompts already pending at start or reconnect), never two, replaced in
//! place as its batch grows, closed when it settles, when the desk quits and while the service
//! is out of reach (shown again when it is back). Pure: the live task executes the plan.
//!
//! A press must never be lost, whatever order the server's two signals come in: a closed
//! notification's id is remembered with its prompt for a while ([`CLOSED_KEPT`]), so an
//! `ActionInvoked` handled after its `NotificationClosed` still finds the prompt, and one for
//! a prompt that settled meanwhile reaches the live task, which says it did not go through.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use assent_protocol::{Approval, Me};
use chrono::{DateTime, Utc};

use crate::notifier::Signal;
use crate::prompt::{notice, open_only, OpenOnly, PromptAction, PromptNotice, Urgency};

/// How many notifications no longer on screen are still mapped to their prompt. A server
/// sends the close and the action of one press back to back, so a late one comes long
/// before this many other notifications close; each entry is an id and a prompt id.
pub const CLOSED_KEPT: usize = 256;

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeOp {
    /// `Notify` (with `replaces` set to update in place).
    Show {
        approval_id: String,
        replaces: Option<u32>,
        notice: PromptNotice,
        count: u32,
        updated_at: DateTime<Utc>,
    },
    /// `CloseNotification`: the prompt settled.
    Close {
        approval_id: String,
        notification_id: u32,
    },
}

/// What was shown for a prompt. `notification_id` is `None` once the person dismissed it:
/// the prompt stays "notified" and is never popped up again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    notification_id: Option<u32>,
    count: u32,
    updated_at: DateTime<Utc>,
    /// The reviewer's part it showed ([`review_key`]): an opinion arriving later replaces it.
    review: Option<String>,
}

/// A button pressed on one of our notifications: the prompt it was for and the button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Press {
    pub approval_id: String,
    pub action: PromptAction,
}

/// The id ↔ prompt map of the one app-wide listener.
#[derive(Debug, Default)]
pub struct Notices {
    by_prompt: HashMap<String, Shown>,
    /// Notifications on screen now.
    by_id: HashMap<u32, String>,
    /// Notifications of ours no longer on screen (closed by the server or by us, or replaced
    /// by a new id), oldest first, at most [`CLOSED_KEPT`].
    closed: VecDeque<(u32, String)>,
    /// The reviewer's part of each notification planned, until the server accepted it.
    planned: RefCell<HashMap<String, Option<String>>>,
}

/// What of the reviewer's part a notification shows; a change replaces it in place (advise
/// mode: the prompt is shown while the call is under way, its opinion comes later).
fn review_key(approval: &Approval) -> Option<String> {
    approval
        .review
        .as_ref()
        .map(|r| format!("{:?}:{:?}", r.state, r.outcome))
}

impl Notices {
    /// What to send so the screen matches `pending`; `me` is who the service says this desk
    /// signs in as (what it may decide from a notification).
    pub fn plan(&self, pending: &[&Approval], paused: bool, me: Option<&Me>) -> Vec<NoticeOp> {
        let mut ops = Vec::new();
        for approval in pending {
            let shown = self.by_prompt.get(&approval.approval_id);
            let replaces = match shown {
                None => None,
                Some(Shown {
                    notification_id: Some(id),
                    count,
                    updated_at,
                    review,
                }) if *count != approval.count
                    || *updated_at != approval.updated_at
                    || *review != review_key(approval) =>
                {
                    Some(*id)
                }
                Some(_) => continue,
            };
            if paused {
                // No pop-ups while paused. One on screen whose batch changed is closed rather
                // than left offering buttons for the batch it showed (a press acts on the
                // prompt as it is now); it is shown anew after resuming.
                if let Some(notification_id) = replaces {
                    ops.push(NoticeOp::Close {
                        approval_id: approval.approval_id.clone(),
                        notification_id,
                    });
                }
                continue;
            }
            if let Some(notice) = toast(approval, me) {
                self.planned
                    .borrow_mut()
                    .insert(approval.approval_id.clone(), review_key(approval));
                ops.push(NoticeOp::Show {
                    approval_id: approval.approval_id.clone(),
                    replaces,
                    notice,
                    count: approval.count,
                    updated_at: approval.updated_at,
                });
            }
        }
        let mut gone: Vec<(&String, &Shown)> = self
            .by_prompt
            .iter()
            .filter(|(id, _)| !pending.iter().any(|a| &a.approval_id == *id))
            .collect();
        gone.sort_by_key(|(id, _)| id.as_str());
        for (approval_id, shown) in gone {
            if let Some(notification_id) = shown.notification_id {
                ops.push(NoticeOp::Close {
                    approval_id: approval_id.clone(),
                    notification_id,
                });
            }
        }
        ops.extend(self.forget_settled_dismissed(pending));
        ops
    }

    /// Closes every notification on screen (the desk quits, or lost its service). The prompts
    /// are forgotten, so those still pending when the service is back are shown again; those
    /// the person dismissed stay dismissed.
    pub fn withdraw(&self) -> Vec<NoticeOp> {
        let mut on_screen: Vec<(&String, u32)> = self
            .by_prompt
            .iter()
            .filter_map(|(approval_id, shown)| shown.notification_id.map(|id| (approval_id, id)))
            .collect();
        on_screen.sort();
        on_screen
            .into_iter()
            .map(|(approval_id, notification_id)| NoticeOp::Close {
                approval_id: approval_id.clone(),
                notification_id,
            })
            .collect()
    }

    /// Dismissed prompts that settled leave no notification to close; they are forgotten by
    /// [`Notices::forget`] through a close with id 0 (never a real notification id).
    fn forget_settled_dismissed(&self, pending: &[&Approval]) -> Vec<NoticeOp> {
        let mut ids: Vec<&String> = self
            .by_prompt
            .iter()
            .filter(|(id, shown)| {
                shown.notification_id.is_none() && !pending.iter().any(|a| &a.approval_id == *id)
            })
            .map(|(id, _)| id)
            .collect();
        ids.sort();
        ids.into_iter()
            .map(|approval_id| NoticeOp::Close {
                approval_id: approval_id.clone(),
                notification_id: 0,
            })
            .collect()
    }

    /// Records a notification the server accepted.
    pub fn shown(
        &mut self,
        approval_id: &str,
        notification_id: u32,
        count: u32,
        updated_at: DateTime<Utc>,
    ) {
        if let Some(old) = self
            .by_prompt
            .get(approval_id)
            .and_then(|s| s.notification_id)
            .filter(|old| *old != notification_id)
        {
            self.by_id.remove(&old);
            self.retire(old, approval_id);
        }
        // A server may hand out an id again once its notification is gone.
        self.closed.retain(|(id, _)| *id != notification_id);
        let review = self
            .planned
            .borrow_mut()
            .remove(approval_id)
            .unwrap_or_default();
        self.by_prompt.insert(
            approval_id.to_owned(),
            Shown {
                notification_id: Some(notification_id),
                count,
                updated_at,
                review,
            },
        );
        self.by_id.insert(notification_id, approval_id.to_owned());
    }

    /// Forgets a settled prompt (after its notification was closed). Its notification id
    /// still maps to it for a while: a press that crossed the close is refused, not lost.
    pub fn forget(&mut self, approval_id: &str) {
        if let Some(Shown {
            notification_id: Some(id),
            ..
        }) = self.by_prompt.remove(approval_id)
        {
            self.by_id.remove(&id);
            self.retire(id, approval_id);
        }
    }

    /// The server closed a notification (dismissed, expired, or right before or after the
    /// press of a button): the prompt stays notified, and the id still maps to it.
    pub fn closed(&mut self, notification_id: u32) -> Option<String> {
        let approval_id = self.by_id.remove(&notification_id)?;
        if let Some(shown) = self.by_prompt.get_mut(&approval_id) {
            shown.notification_id = None;
        }
        self.retire(notification_id, &approval_id);
        Some(approval_id)
    }

    /// The notification on screen for a prompt, if any.
    pub fn on_screen(&self, approval_id: &str) -> Option<u32> {
        self.by_prompt.get(approval_id)?.notification_id
    }

    /// The prompt a notification of ours belongs to, whether it is on screen or closed a
    /// moment ago; `None` for another application's notification.
    pub fn prompt_of(&self, notification_id: u32) -> Option<&str> {
        self.by_id
            .get(&notification_id)
            .or_else(|| {
                self.closed
                    .iter()
                    .rev()
                    .find(|(id, _)| *id == notification_id)
                    .map(|(_, approval_id)| approval_id)
            })
            .map(String::as_str)
    }

    /// Takes one signal of the server, in the order the bus delivered it; the press it
    /// carries, if it is one on a notification of ours. The close and the action of a press
    /// may come in either order: both yield the press.
    pub(crate) fn heard(&mut self, signal: &Signal) -> Option<Press> {
        match signal {
            Signal::Closed { id, reason } => {
                if let Some(approval_id) = self.closed(*id) {
                    tracing::debug!(id, reason, %approval_id, "a prompt's notification closed");
                }
                None
            }
            Signal::Action { id, key } => {
                let approval_id = self.prompt_of(*id)?.to_owned();
                let Some(action) = PromptAction::from_key(key) else {
                    tracing::warn!(%key, %approval_id, "the notification server sent a button Assent never offered");
                    return None;
                };
                Some(Press {
                    approval_id,
                    action,
                })
            }
        }
    }

    /// Remembers a notification that left the screen, dropping the oldest beyond
    /// [`CLOSED_KEPT`].
    fn retire(&mut self, notification_id: u32, approval_id: &str) {
        self.closed.retain(|(id, _)| *id != notification_id);
        self.closed
            .push_back((notification_id, approval_id.to_owned()));
        while self.closed.len() > CLOSED_KEPT {
            self.closed.pop_front();
        }
    }
}

/// The notification for a pending prompt, as [`notice`] words it; a prompt this person may
/// not decide (someone else must) is a quiet one, never urgent: it is for those who can
/// decide, and the window and the tray still list it with who can. A prompt this person may
/// decide but the service routes to other people at this step (`asked`, the policy's
/// `[routing]`) raises none; once it escalates to this person, the next plan shows it.
fn toast(approval: &Approval, me: Option<&Me>) -> Option<PromptNotice> {
    let someone_else_decides = open_only(approval, me).is_some_and(someone_elses);
    let asks_others_now = match (me, &approval.asked) {
        (Some(me), Some(asked)) => !asked.asks(&me.name),
        _ => false,
    };
    if asks_others_now && !someone_else_decides {
        return None;
    }
    let mut toast = notice(approval, me)?;
    if someone_else_decides {
        toast.urgency = Urgency::Low;
    }
    Some(toast)
}

/// Whether `why` means another person must decide (not: the window must show more first).
fn someone_elses(why: OpenOnly) -> bool {
    matches!(
        why,
        OpenOnly::NotAPerson
            | OpenOnly::OwnRequest
            | OpenOnly::MissingRole(_)
            | OpenOnly::NoRole
            | OpenOnly::AlreadyApproved { .. }
    )
}

#[cfg(test)]
#[path = "notices_tests.rs"]
mod tests;
