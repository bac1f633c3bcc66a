//! What the live task receives besides the event stream; the hub, the window's commands and
//! the entry point send it.

use assent_protocol::Approval;

use crate::notifier::Signal;
use crate::pause::PauseChoice;
use crate::prompt::PromptNotice;

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
    /// Deny was pressed on this prompt's notification: ask why (the "why deny?" notice).
    AskWhy(Box<Approval>),
    /// The app quits: close the desk's notifications and end (see [`quit`]).
    Quit,
}
