//! The window itself: its label, and bringing it forward on a prompt when the tray process
//! asks (a tray entry or a notification click).

use assent_ipc::{plain_id, DeskEvent, DESK_EVENT};
use tauri::{AppHandle, Emitter, Manager};

/// The label of the one window this process shows.
pub const MAIN: &str = "main";

/// Shows and focuses the window, on `focus` if given (a tray entry or a notification click).
pub fn focus(app: &AppHandle, approval_id: Option<String>) {
    let Some(window) = app.get_webview_window(MAIN) else {
        return;
    };
    let _ = window.unminimize();
    let _ = window.show();
    let _ = window.set_focus();
    if let Some(approval_id) = approval_id.filter(|id| plain_id(id)) {
        if let Err(err) = app.emit(DESK_EVENT, DeskEvent::<()>::Focus { approval_id }) {
            tracing::warn!(%err, "cannot focus the prompt");
        }
    }
}
