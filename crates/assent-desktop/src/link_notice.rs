//! The notifications of the link to the service: losing it while agents wait on prompts —
//! their gates are refused until it is back, and the prompts' own notifications close, since
//! no button could go through — and its return. Without them a person away from the window
//! sees the prompts vanish and never learns why. Pure: the live task shows them.

use crate::desk::Link;
use crate::prompt::{PromptNotice, Urgency};

/// What the desk said of its link so far.
#[derive(Debug, Default)]
pub struct LinkWatch {
    /// Connected at the last look.
    connected: bool,
    /// The loss was said, and its return not yet.
    said_lost: bool,
}

impl LinkWatch {
    /// The notice the link as it is now calls for: the loss when a connected desk lost its
    /// service while `waiting` prompts may hold an agent, and the return of a loss it said.
    /// `waiting` counts the prompts as last known (kept while the service is out of reach).
    pub fn on_link(&mut self, link: &Link, waiting: usize) -> Option<PromptNotice> {
        let was = self.connected;
        self.connected = *link == Link::Connected;
        match link {
            Link::Disconnected { .. } if was && waiting > 0 => {
                self.said_lost = true;
                Some(lost(waiting))
            }
            Link::Connected if !was && self.said_lost => {
                self.said_lost = false;
                Some(back(waiting))
            }
            _ => None,
        }
    }
}

fn prompts(n: usize) -> String {
    if n == 1 {
        "1 prompt".to_owned()
    } else {
        format!("{n} prompts")
    }
}

fn lost(waiting: usize) -> PromptNotice {
    PromptNotice {
        summary: "Assent can't reach its service".to_owned(),
        body: format!(
            "{} waiting for you. Until it is back, agents asking are refused (nothing runs \
             unguarded) and nothing can be decided; Assent retries, and the prompts come back \
             with it.",
            prompts(waiting)
        ),
        actions: Vec::new(),
        urgency: Urgency::Critical,
        reasons: Vec::new(),
    }
}

fn back(waiting: usize) -> PromptNotice {
    let body = match waiting {
        0 => "Nothing is waiting for you.".to_owned(),
        n => format!("{} waiting for you.", prompts(n)),
    };
    PromptNotice {
        summary: "Assent reaches its service again".to_owned(),
        body,
        actions: Vec::new(),
        urgency: Urgency::Normal,
        reasons: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down() -> Link {
        Link::Disconnected {
            reason: "connection refused".to_owned(),
        }
    }

    /// One row per step: the link now, the prompts waiting, and the summary said (if any).
    #[test]
    fn the_loss_is_said_once_while_agents_wait_and_its_return_after_it() {
        let steps: [(&str, Link, usize, Option<&str>); 9] = [
            ("starting", Link::Connecting, 0, None),
            ("first connection", Link::Connected, 2, None),
            (
                "lost with 2 waiting",
                down(),
                2,
                Some("Assent can't reach its service"),
            ),
            ("still down, retrying", down(), 2, None),
            (
                "back",
                Link::Connected,
                1,
                Some("Assent reaches its service again"),
            ),
            ("connected still", Link::Connected, 1, None),
            ("following another service", Link::Connecting, 0, None),
            ("connected to it", Link::Connected, 0, None),
            ("lost with nobody waiting", down(), 0, None),
        ];
        let mut watch = LinkWatch::default();
        for (step, link, waiting, want) in steps {
            let said = watch.on_link(&link, waiting);
            assert_eq!(
                said.as_ref().map(|notice| notice.summary.as_str()),
                want,
                "{step}: the loss only when agents wait, once; its return only after it"
            );
        }
        let mut watch = LinkWatch::default();
        watch.on_link(&Link::Connected, 3);
        let lost = watch.on_link(&down(), 3).expect("the loss");
        assert!(
            lost.body.starts_with("3 prompts waiting") && lost.body.contains("refused"),
            "how many wait, and that agents are refused meanwhile: {}",
            lost.body
        );
        assert_eq!(lost.urgency, Urgency::Critical, "agents are being refused");
        assert!(lost.actions.is_empty(), "no button could go through");
        let back = watch.on_link(&Link::Connected, 1).expect("the return");
        assert_eq!(back.body, "1 prompt waiting for you.", "what waits now");
    }
}
