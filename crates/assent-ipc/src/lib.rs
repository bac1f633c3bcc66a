//! The link between the desk (`assent-desktop`, the tray process holding the approver token)
//! and its window (`assent-window`, the Tauri webview, a second process started on *Open*).
//! Both sides speak these types and nothing else of each other: the window links neither the
//! service nor its client.
//!
//! - [`call`]: what the page may ask ([`WindowCall`]) and with what ([`SettingsInput`],
//!   [`PauseChoice`]); the page invokes one command, `desk_call`, with a [`WindowCall`].
//! - [`event`]: what the page hears on its one event channel ([`DeskEvent`] on [`DESK_EVENT`]).
//! - [`error`]: why a call failed ([`CommandError`]); the page branches on its code.
//! - [`link`]: the line format between the two processes ([`ToWindow`], [`FromWindow`]) and the
//!   window process's arguments and defaults.
//! - [`typescript`]: the page's side of these types (`ui/src/ipc.gen.ts`), generated.

pub mod call;
pub mod error;
pub mod event;
pub mod link;
pub mod typescript;

pub use call::{PauseChoice, SettingsInput, WindowCall};
pub use error::{CommandError, CommandErrorCode};
pub use event::{DeskEvent, DESK_EVENT};
pub use link::{
    plain_id, set_process_defaults, FromWindow, ToWindow, FOCUS_ARG, MAX_LINE_BYTES,
    WINDOW_PROCESS_DEFAULTS,
};
