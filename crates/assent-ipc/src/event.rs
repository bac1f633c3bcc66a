//! The one event channel from the desk to the page.

use serde::Serialize;
use ts_rs::TS;

/// The one event channel from Rust to the window.
pub const DESK_EVENT: &str = "assent:desk";

/// Every event on [`DESK_EVENT`]. `S` is the desk's snapshot (`assent_desktop::desk::
/// DeskSnapshot`, whose page side is written in `ui/src/types.ts`); the window only ever sends
/// [`DeskEvent::Focus`] itself and passes the desk's events on as they came.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DeskEvent<S> {
    /// The whole live picture (sent after every change).
    State { snapshot: S },
    /// Show this prompt (tray menu or notification body click).
    Focus { approval_id: String },
}
