//! Which notification belongs to which prompt, and what to send next: one notification per
//! prompt (also for prompts already pending at start or reconnect), never two, replaced in
//! place as its batch grows, closed when it settles. Pure: the live task executes the plan.

use std::collections::HashMap;

use assent_protocol::{Approval, Me};
use chrono::{DateTime, Utc};

use crate::prompt::{notice, PromptNotice};

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
}

/// The id ↔ prompt map of the one app-wide listener.
#[derive(Debug, Default)]
pub struct Notices {
    by_prompt: HashMap<String, Shown>,
    by_id: HashMap<u32, String>,
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
                }) if *count != approval.count || *updated_at != approval.updated_at => Some(*id),
                Some(_) => continue,
            };
            if paused {
                continue;
            }
            if let Some(notice) = notice(approval, me) {
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
        {
            self.by_id.remove(&old);
        }
        self.by_prompt.insert(
            approval_id.to_owned(),
            Shown {
                notification_id: Some(notification_id),
                count,
                updated_at,
            },
        );
        self.by_id.insert(notification_id, approval_id.to_owned());
    }

    /// Forgets a settled prompt (after its notification was closed).
    pub fn forget(&mut self, approval_id: &str) {
        if let Some(Shown {
            notification_id: Some(id),
            ..
        }) = self.by_prompt.remove(approval_id)
        {
            self.by_id.remove(&id);
        }
    }

    /// The server closed a notification (dismissed, expired): the prompt stays notified.
    pub fn closed(&mut self, notification_id: u32) -> Option<String> {
        let approval_id = self.by_id.remove(&notification_id)?;
        if let Some(shown) = self.by_prompt.get_mut(&approval_id) {
            shown.notification_id = None;
        }
        Some(approval_id)
    }

    /// The prompt a notification belongs to.
    pub fn prompt_of(&self, notification_id: u32) -> Option<&str> {
        self.by_id.get(&notification_id).map(String::as_str)
    }
}

#[cfg(test)]
#[path = "notices_tests.rs"]
mod tests;
